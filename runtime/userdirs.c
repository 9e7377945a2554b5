/* SPDX-License-Identifier: MIT
 * A user's own places on the host (userdirs.h). */
#include "userdirs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"

const char *
ud_passwd_home(char *buf, size_t len)
{
	char line[1024];
	FILE *f = fopen("/etc/passwd", "re");
	const char *found = NULL;
	struct stat st;

	if (!f)
		return NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		char *field[7], *p = line;
		int i;

		for (i = 0; i < 7 && p; i++) {
			field[i] = p;
			if ((p = strchr(p, ':')))
				*p++ = '\0';
		}
		if (i < 7)
			continue;
		field[6][strcspn(field[6], "\n")] = '\0';
		if (strtoul(field[2], NULL, 10) == (unsigned long)getuid() && field[2][0] &&
		    field[5][0] == '/' && strcmp(field[5], "/") != 0 &&
		    (size_t)snprintf(buf, len, "%s", field[5]) < len)
			found = buf;
	}
	fclose(f);
	return found && stat(found, &st) == 0 && S_ISDIR(st.st_mode) ? found : NULL;
}

int
ud_home(char *const *env, char *buf, size_t len)
{
	const char *home = envb_lookup(env, "HOME");

	if (!home || !home[0])
		return ud_passwd_home(buf, len) ? 0 : -ENOENT;
	if (home[0] != '/' || strcmp(home, "/") == 0)
		return -EINVAL;
	return (size_t)snprintf(buf, len, "%s", home) < len ? 0 : -ENAMETOOLONG;
}

int
ud_cache_home(char *const *env, char *buf, size_t len)
{
	const char *xdg = envb_lookup(env, "XDG_CACHE_HOME");
	char home[4096];
	int r;

	if (xdg && xdg[0] == '/')
		return (size_t)snprintf(buf, len, "%s", xdg) < len ? 0 : -ENAMETOOLONG;
	if ((r = ud_home(env, home, sizeof(home))) < 0)
		return r;
	return (size_t)snprintf(buf, len, "%s/.cache", home) < len ? 0 : -ENAMETOOLONG;
}

int
ud_compile_cache(char *const *env, char *buf, size_t len)
{
	char base[4096];
	int r;

	if ((r = ud_cache_home(env, base, sizeof(base))) < 0)
		return r;
	return (size_t)snprintf(buf, len, "%s/heel", strcmp(base, "/") ? base : "") < len
		       ? 0
		       : -ENAMETOOLONG;
}
