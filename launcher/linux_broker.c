/* SPDX-License-Identifier: MIT
 * heel-exec's side of heel-broker (linux_broker.h). */
#include "linux_broker.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact.h"
#include "ipc_abi.h"
#include "pathexpand.h"
#include "proxyctl.h"
#include "workdir.h"

/* heel-broker reads its settings and the two descriptors; nothing slow. */
#define READY_TIMEOUT_MS 10000
/* Time for heel-broker to kill the calls still running and reap them. */
#define STOP_GRACE_MS 2000

static const char *const type_names[] = { "string", "int", "bool", "path" };

/* The user's variables a host command gets (its environment is fresh). */
static const char *const passed_env[] = { "HOME", "USER", "LOGNAME", "LANG",
					  "LC_ALL", "TZ", "TERM" };

bool
linux_broker_wanted(const struct art_view *view)
{
	for (size_t i = 0; i < art_ipc_count(view); i++) {
		struct art_ipc c;

		if (art_ipc_at(view, i, &c) == 0 && (c.platforms & ART_PLAT_BIT(ART_LINUX)))
			return true;
	}
	return false;
}

/* The program of one command: named, absolute, there, and not one a
 * sandbox could have replaced (it runs on the host, at every call). */
static int
check_program(const struct hc_places *ps, const struct art_ipc *c, char *err, size_t errlen)
{
	char what[128];
	struct stat st;

	if (!c->exec || c->exec[0] != '/') {
		snprintf(err, errlen, "ipc \"%s\": no absolute `exec` program for Linux", c->name);
		return -EINVAL;
	}
	if (stat(c->exec, &st) < 0 || !S_ISREG(st.st_mode) || access(c->exec, X_OK) < 0) {
		int e = errno ? errno : EACCES;

		snprintf(err, errlen, "ipc \"%s\": the host program %s cannot be run: %s", c->name,
			 c->exec, S_ISDIR(st.st_mode) ? "it is a directory" : strerror(e));
		return -e;
	}
	snprintf(what, sizeof(what), "ipc \"%s\": the host program", c->name);
	return hc_check(ps, HC_RUN, what, c->exec, err, errlen);
}

int
linux_broker_check(struct linux_broker *b, const struct art_view *view,
		   const struct hc_places *ps, char *err, size_t errlen)
{
	const char **names;
	int r;

	if ((r = helper_find(ps, "heel-broker", "the policy's host commands", b->exe,
			     sizeof(b->exe), err, errlen)) < 0 ||
	    (r = helper_find(ps, "heel-ipc", "the policy's host commands", b->client,
			     sizeof(b->client), err, errlen)) < 0)
		return r;
	names = calloc(art_ipc_count(view), sizeof(*names));
	if (!names) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	free(b->names);
	b->names = names;
	b->nnames = 0;
	for (size_t i = 0; i < art_ipc_count(view); i++) {
		struct art_ipc c;

		if (art_ipc_at(view, i, &c) < 0 || !(c.platforms & ART_PLAT_BIT(ART_LINUX)))
			continue;
		if ((r = check_program(ps, &c, err, errlen)) < 0)
			return r;
		b->names[b->nnames++] = c.name;
	}
	return 0;
}

static int
send_setting(struct linux_broker *b, const char *key, const char *value, char *err,
	     size_t errlen)
{
	return helper_send(&b->h, "heel-broker", key, value, -1, err, errlen);
}

static int
send_command(struct linux_broker *b, const struct art_view *view, const struct art_ipc *c,
	     char *err, size_t errlen)
{
	char buf[PROXYCTL_MSG_MAX];
	const char *name;
	unsigned type;
	int r;

	if ((r = send_setting(b, "command", c->name, err, errlen)) < 0 ||
	    (r = send_setting(b, "exec", c->exec, err, errlen)) < 0)
		return r;
	snprintf(buf, sizeof(buf), "%llu",
		 (unsigned long long)(c->timeout_ms ? c->timeout_ms : HEEL_IPC_TIMEOUT_DEFAULT_MS));
	if ((r = send_setting(b, "timeout-ms", buf, err, errlen)) < 0)
		return r;
	for (size_t j = 0; (name = art_ipc_arg(view, c, j)); j++)
		if ((r = send_setting(b, "positional", name, err, errlen)) < 0)
			return r;
	for (size_t j = 0; j < art_ipc_typed_count(view, c); j++) {
		if (art_ipc_typed_at(view, c, j, &name, &type) < 0 || type >= 4) {
			snprintf(err, errlen, "ipc \"%s\": argument %zu cannot be read", c->name, j);
			return -EINVAL;
		}
		snprintf(buf, sizeof(buf), "%s %s", type_names[type], name);
		if ((r = send_setting(b, "arg", buf, err, errlen)) < 0)
			return r;
	}
	return 0;
}

int
linux_broker_start(struct linux_broker *b, const struct art_view *view,
		   const struct hc_places *ps, const struct envb_launch *vars, char *err,
		   size_t errlen)
{
	char *const envp[] = { "PATH=/usr/bin:/bin", NULL };
	char *const *host_env = vars->env;
	char buf[PROXYCTL_MSG_MAX];
	const char *sink, *v;
	int r, fd;

	b->h = (struct helper){ .pidfd = -1, .ctl = -1 };
	if ((r = helper_start(&b->h, b->exe, envp, err, errlen)) < 0)
		return r;
	for (size_t i = 0; i < sizeof(passed_env) / sizeof(passed_env[0]); i++) {
		if (!(v = envb_lookup(host_env, passed_env[i])))
			continue;
		if (snprintf(buf, sizeof(buf), "%s=%s", passed_env[i], v) >= (int)sizeof(buf))
			continue;
		if ((r = send_setting(b, "env", buf, err, errlen)) < 0)
			return r;
	}
	/* The same checked sink as heel-proxy's, handed over open. */
	if ((r = helper_audit_sink(view, ps, vars, &sink, &fd, err, errlen)) < 0)
		return r;
	if (sink) {
		r = helper_send(&b->h, "heel-broker", "audit", sink, fd, err, errlen);
		close(fd);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < art_ipc_count(view); i++) {
		struct art_ipc c;

		if (art_ipc_at(view, i, &c) < 0 || !(c.platforms & ART_PLAT_BIT(ART_LINUX)))
			continue;
		if ((r = send_command(b, view, &c, err, errlen)) < 0)
			return r;
	}
	return 0;
}

int
linux_broker_prepare(struct linux_broker *b, const struct art_view *view, const char *workdir,
		     char *const *host_env, struct envb *env, char *err, size_t errlen)
{
	const char *path;
	char *joined;
	size_t n;
	int r;

	if ((r = send_setting(b, "workdir", workdir, err, errlen)) < 0 ||
	    (r = send_setting(b, "end", NULL, err, errlen)) < 0)
		return r;
	if ((r = wd_mount_point(b->dir, sizeof(b->dir), "heel-ipc", host_env, &b->dir_lock, err,
				errlen)) < 0) {
		b->dir[0] = '\0';
		return r;
	}
	b->dir_locked = true;
	/* First on PATH: the command names win over a program of the same
	 * name, as the policy's reviewer expects. */
	path = envb_lookup(env->vars, "PATH");
	n = strlen(b->dir) + (path ? strlen(path) + 1 : 0) + 1;
	if (!(joined = malloc(n))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	snprintf(joined, n, "%s%s%s", b->dir, path ? ":" : "", path ? path : "");
	r = envb_set(env, "PATH", joined);
	free(joined);
	if (r < 0)
		snprintf(err, errlen, "environment: %s", strerror(-r));
	return r;
}

int
linux_broker_hand_over(struct linux_broker *b, int listener, int workdir_fd, char *err,
		       size_t errlen)
{
	int r = proxyctl_send(b->h.ctl, "listen", NULL, listener);

	close(listener);
	if (r == 0)
		r = proxyctl_send(b->h.ctl, "workdir-fd", NULL, workdir_fd);
	close(workdir_fd);
	if (r < 0) {
		snprintf(err, errlen, "heel-broker is gone (%s)", strerror(-r));
		return r;
	}
	return helper_wait_ready(b->h.ctl, "heel-broker", READY_TIMEOUT_MS, err, errlen);
}

int
linux_broker_stop(struct linux_broker *b)
{
	int r = 0;

	helper_stop(&b->h, STOP_GRACE_MS);
	if (b->dir[0] && rmdir(b->dir) < 0 && errno != ENOENT)
		r = -errno;
	else
		b->dir[0] = '\0';
	/* Removed, or left for a sweep to find once we are gone. */
	if (b->dir_locked)
		close(b->dir_lock);
	b->dir_locked = false;
	free(b->names);
	b->names = NULL;
	b->nnames = 0;
	return r;
}
