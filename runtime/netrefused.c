/* SPDX-License-Identifier: MIT
 * The sandbox's refused outbound attempts (netrefused.h). */
#include "netrefused.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
netrefused_parse(const char *text, const char *name, uint64_t *out)
{
	const char *dot = strchr(name, ':');
	size_t pl = dot ? (size_t)(dot - name) + 1 : 0, nl = strlen(name) - pl;
	const char *line, *next;

	for (line = text; line && *line; line = next) {
		const char *vals, *h, *v;
		size_t col = 0, want;
		bool found = false;

		next = strchr(line, '\n');
		next = next ? next + 1 : NULL;
		/* snmp6: "NAME <spaces> VALUE" on a line of its own. */
		if (!pl) {
			if (strncmp(line, name, nl) == 0 && (line[nl] == ' ' || line[nl] == '\t')) {
				*out = strtoull(line + nl, NULL, 10);
				return 0;
			}
			continue;
		}
		/* snmp: a header "Ip: A B C" and then its values "Ip: 1 2 3". */
		if (strncmp(line, name, pl) != 0 || !next || strncmp(next, name, pl) != 0)
			continue;
		for (h = line + pl, want = 0; *h && *h != '\n'; col++) {
			h += strspn(h, " ");
			if (strncmp(h, name + pl, nl) == 0 && (h[nl] == ' ' || h[nl] == '\n' || !h[nl])) {
				want = col;
				found = true;
				break;
			}
			h += strcspn(h, " \n");
		}
		if (!found)
			return -ENOENT;
		vals = next + pl;
		for (col = 0, v = vals; *v && *v != '\n'; col++) {
			v += strspn(v, " ");
			if (col == want) {
				*out = strtoull(v, NULL, 10);
				return 0;
			}
			v += strcspn(v, " \n");
		}
		return -ENOENT;
	}
	return -ENOENT;
}

/* A small /proc file, NUL-terminated. The count, or -errno. */
static long
read_proc(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	size_t got = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = '\0';
	return (long)got;
}

int
netrefused_read(uint64_t *v4, uint64_t *v6)
{
	char buf[8192];
	int r4 = -ENOENT, r6 = -ENOENT;

	*v4 = *v6 = 0;
	if (read_proc("/proc/self/net/snmp", buf, sizeof(buf)) > 0)
		r4 = netrefused_parse(buf, "Ip:OutNoRoutes", v4);
	if (read_proc("/proc/self/net/snmp6", buf, sizeof(buf)) > 0)
		r6 = netrefused_parse(buf, "Ip6OutNoRoutes", v6);
	return r4 == 0 || r6 == 0 ? 0 : r4;
}
