/* SPDX-License-Identifier: MIT
 * The Node addon under the `heel` package (lib/index.js is its public
 * face): libheel's calls as N-API functions. Nothing here blocks the
 * event loop: compiling a policy from a file or text, spawning and
 * capturing run as async work on libuv's pool, and a child's end is
 * seen by polling its pidfd in the event loop (uv_poll), never by a
 * thread waiting for it. Errors reach JavaScript as the HeelError class
 * index.js registers, carrying libheel's message and errno. */
#define _GNU_SOURCE /* pipe2 */
#define NAPI_VERSION 8
#include <node_api.h>
#include <uv.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <heel.h>

/* index.js's HeelError constructor (message, errno), kept as the
 * addon's instance data: one per Node environment (worker threads). */
static napi_ref
hn_error_class(napi_env env)
{
	void *ref = NULL;

	napi_get_instance_data(env, &ref);
	return ref;
}

static void
hn_error_class_free(napi_env env, void *data, void *hint)
{
	(void)hint;
	napi_delete_reference(env, data);
}

#define HN_CHECK(env, call)                                                                        \
	do {                                                                                       \
		if ((call) != napi_ok)                                                             \
			return hn_pending(env);                                                    \
	} while (0)

/* After a failed napi call an exception is usually pending; if none is,
 * one is thrown so that the failure is never silent. */
static napi_value
hn_pending(napi_env env)
{
	bool pending = false;

	napi_is_exception_pending(env, &pending);
	if (!pending)
		napi_throw_error(env, "EINVAL", "heel: invalid argument");
	return NULL;
}

static napi_value
hn_error(napi_env env, int code, const char *message)
{
	napi_value ctor, argv[2], obj = NULL;
	napi_ref cls = hn_error_class(env);

	napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &argv[0]);
	napi_create_int32(env, code, &argv[1]);
	if (cls && napi_get_reference_value(env, cls, &ctor) == napi_ok &&
	    napi_new_instance(env, ctor, 2, argv, &obj) == napi_ok)
		return obj;
	napi_create_error(env, NULL, argv[0], &obj);
	return obj;
}

static napi_value
hn_throw(napi_env env, const heel_error *e)
{
	napi_throw(env, hn_error(env, e->code ? e->code : -EINVAL, e->message));
	return NULL;
}

static napi_value
hn_throw_msg(napi_env env, int code, const char *message)
{
	napi_throw(env, hn_error(env, code, message));
	return NULL;
}

/* A JavaScript string as a malloc'ed C string (caller frees); NULL for
 * undefined or null when allowed. A string with a NUL in it is refused:
 * C would see a shorter one than the caller meant. */
static int
hn_string(napi_env env, napi_value v, bool nullable, char **out)
{
	napi_valuetype t;
	size_t len;

	*out = NULL;
	if (napi_typeof(env, v, &t) != napi_ok)
		return -1;
	if (nullable && (t == napi_undefined || t == napi_null))
		return 0;
	if (t != napi_string) {
		napi_throw_type_error(env, "EINVAL", "heel: a string was expected");
		return -1;
	}
	if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok)
		return -1;
	*out = malloc(len + 1);
	if (!*out) {
		hn_throw_msg(env, -ENOMEM, "heel: out of memory");
		return -1;
	}
	napi_get_value_string_utf8(env, v, *out, len + 1, &len);
	if (strlen(*out) != len) {
		free(*out);
		*out = NULL;
		napi_throw_type_error(env, "EINVAL", "heel: a string holds a NUL character");
		return -1;
	}
	return 0;
}

static void
hn_strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

/* An array of strings as a NULL-terminated vector; NULL for undefined. */
static int
hn_strv(napi_env env, napi_value v, char ***out)
{
	napi_valuetype t;
	bool is_array = false;
	uint32_t n;

	*out = NULL;
	if (napi_typeof(env, v, &t) != napi_ok)
		return -1;
	if (t == napi_undefined || t == napi_null)
		return 0;
	if (napi_is_array(env, v, &is_array) != napi_ok || !is_array) {
		napi_throw_type_error(env, "EINVAL", "heel: an array of strings was expected");
		return -1;
	}
	napi_get_array_length(env, v, &n);
	*out = calloc((size_t)n + 1, sizeof(char *));
	if (!*out) {
		hn_throw_msg(env, -ENOMEM, "heel: out of memory");
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		napi_value el;

		if (napi_get_element(env, v, i, &el) != napi_ok ||
		    hn_string(env, el, false, &(*out)[i]) != 0) {
			hn_strv_free(*out);
			*out = NULL;
			return -1;
		}
	}
	return 0;
}

static napi_value
hn_prop(napi_env env, napi_value obj, const char *name)
{
	napi_value v = NULL;

	napi_get_named_property(env, obj, name, &v);
	return v;
}

static int
hn_int(napi_env env, napi_value v, int dflt)
{
	napi_valuetype t;
	int32_t i;

	if (!v || napi_typeof(env, v, &t) != napi_ok || t != napi_number)
		return dflt;
	napi_get_value_int32(env, v, &i);
	return i;
}

static bool
hn_bool(napi_env env, napi_value v)
{
	napi_valuetype t;
	bool b = false;

	if (!v || napi_typeof(env, v, &t) != napi_ok || t != napi_boolean)
		return false;
	napi_get_value_bool(env, v, &b);
	return b;
}

/* ---------------------------------------------------------------- policies */

/* A policy and how many spawns are reading it on the pool: builder calls
 * wait until they have started (libheel lets many threads read a policy,
 * never one read it while another changes it). */
struct hn_policy {
	heel_policy *p;
	int readers;
};

static void
hn_policy_finalize(napi_env env, void *data, void *hint)
{
	struct hn_policy *hp = data;

	(void)env;
	(void)hint;
	heel_policy_free(hp->p);
	free(hp);
}

static napi_value
hn_policy_wrap(napi_env env, heel_policy *p)
{
	struct hn_policy *hp = calloc(1, sizeof(*hp));
	napi_value ext;

	if (!hp) {
		heel_policy_free(p);
		return hn_throw_msg(env, -ENOMEM, "heel: out of memory");
	}
	hp->p = p;
	if (napi_create_external(env, hp, hn_policy_finalize, NULL, &ext) != napi_ok) {
		hn_policy_finalize(env, hp, NULL);
		return hn_pending(env);
	}
	return ext;
}

static struct hn_policy *
hn_policy_of(napi_env env, napi_value v)
{
	void *data = NULL;
	napi_valuetype t;

	if (napi_typeof(env, v, &t) != napi_ok || t != napi_external ||
	    napi_get_value_external(env, v, &data) != napi_ok || !data) {
		napi_throw_type_error(env, "EINVAL", "heel: not a policy handle");
		return NULL;
	}
	return data;
}

static napi_value
hn_policy_new(napi_env env, napi_callback_info info)
{
	heel_error e;
	heel_policy *p;

	(void)info;
	p = heel_policy_new(&e);
	if (!p)
		return hn_throw(env, &e);
	return hn_policy_wrap(env, p);
}

/* policyFromFile(path) and policyFromString(text, name): compiled now,
 * on the pool (a file's includes are read, the compiler runs). */
struct hn_load {
	napi_async_work work;
	napi_deferred deferred;
	char *a, *b;
	bool from_file;
	heel_policy *p;
	heel_error e;
};

static void
hn_load_execute(napi_env env, void *data)
{
	struct hn_load *l = data;

	(void)env;
	l->p = l->from_file ? heel_policy_from_file(l->a, &l->e)
			    : heel_policy_from_string(l->a, l->b, &l->e);
}

static void
hn_load_complete(napi_env env, napi_status status, void *data)
{
	struct hn_load *l = data;
	napi_value v;

	if (status == napi_ok && l->p && (v = hn_policy_wrap(env, l->p))) {
		napi_resolve_deferred(env, l->deferred, v);
	} else {
		bool pending = false;

		napi_is_exception_pending(env, &pending);
		if (pending)
			napi_get_and_clear_last_exception(env, &v);
		else
			v = hn_error(env, l->e.code ? l->e.code : -ECANCELED, l->e.message);
		napi_reject_deferred(env, l->deferred, v);
	}
	napi_delete_async_work(env, l->work);
	free(l->a);
	free(l->b);
	free(l);
}

static napi_value
hn_policy_load(napi_env env, napi_callback_info info, bool from_file)
{
	size_t argc = 2;
	napi_value argv[2], name, promise;
	struct hn_load *l;

	HN_CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	if (argc < 1)
		return hn_throw_msg(env, -EINVAL, "heel: a policy path or text is needed");
	if (argc < 2)
		napi_get_undefined(env, &argv[1]);
	l = calloc(1, sizeof(*l));
	if (!l)
		return hn_throw_msg(env, -ENOMEM, "heel: out of memory");
	l->from_file = from_file;
	snprintf(l->e.message, sizeof(l->e.message), "heel: the load was cancelled");
	if (hn_string(env, argv[0], false, &l->a) != 0 ||
	    (!from_file && hn_string(env, argv[1], true, &l->b) != 0))
		goto fail;
	napi_create_string_utf8(env, "heel.policy", NAPI_AUTO_LENGTH, &name);
	if (napi_create_promise(env, &l->deferred, &promise) != napi_ok ||
	    napi_create_async_work(env, NULL, name, hn_load_execute, hn_load_complete, l,
				   &l->work) != napi_ok ||
	    napi_queue_async_work(env, l->work) != napi_ok)
		goto fail;
	return promise;
fail:
	free(l->a);
	free(l->b);
	free(l);
	return hn_pending(env);
}

static napi_value
hn_policy_from_file(napi_env env, napi_callback_info info)
{
	return hn_policy_load(env, info, true);
}

static napi_value
hn_policy_from_string(napi_env env, napi_callback_info info)
{
	return hn_policy_load(env, info, false);
}

/* policyCall(handle, op, a, b): one builder call, by heel run's name for
 * it. Sync: each only checks and copies its value. */
static napi_value
hn_policy_call(napi_env env, napi_callback_info info)
{
	size_t argc = 4;
	napi_value argv[4], undef;
	struct hn_policy *hp;
	char *op = NULL, *a = NULL, *b = NULL;
	heel_error e;
	int rc = -EINVAL;

	HN_CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	napi_get_undefined(env, &undef);
	for (size_t i = argc; i < 4; i++)
		argv[i] = undef;
	if (!(hp = hn_policy_of(env, argv[0])))
		return NULL;
	if (hp->readers)
		return hn_throw_msg(env, -EBUSY,
				    "heel: the policy is being spawned; change it once the spawn "
				    "has started (await it) or use another policy");
	if (hn_string(env, argv[1], false, &op) != 0)
		return NULL;
	snprintf(e.message, sizeof(e.message), "heel: no builder call %s", op);
	e.code = -EINVAL;
	if (!strcmp(op, "gpu")) {
		rc = heel_policy_gpu(hp->p, hn_bool(env, argv[2]), &e);
	} else if (!strcmp(op, "nice")) {
		rc = heel_policy_nice(hp->p, hn_int(env, argv[2], 0), &e);
	} else if (!strcmp(op, "protect") || !strcmp(op, "unprotect")) {
		if (hn_string(env, argv[2], false, &a) != 0)
			goto out;
		rc = heel_policy_protect(hp->p, a, !strcmp(op, "protect"), &e);
	} else {
		if (hn_string(env, argv[2], false, &a) != 0 ||
		    hn_string(env, argv[3], true, &b) != 0)
			goto out;
		if (!strcmp(op, "isolation"))
			rc = heel_policy_isolation(hp->p, a, &e);
		else if (!strcmp(op, "grant"))
			rc = heel_policy_grant(hp->p, a, b ? b : "r", &e);
		else if (!strcmp(op, "network"))
			rc = heel_policy_network(hp->p, a, &e);
		else if (!strcmp(op, "allowDomain"))
			rc = heel_policy_allow_domain(hp->p, a, &e);
		else if (!strcmp(op, "auditLog"))
			rc = heel_policy_audit_log(hp->p, a, &e);
		else if (!strcmp(op, "limit"))
			rc = b ? heel_policy_limit(hp->p, a, b, &e) : -EINVAL;
		else if (!strcmp(op, "envPass"))
			rc = heel_policy_env_pass(hp->p, a, &e);
		else if (!strcmp(op, "envSet"))
			rc = b ? heel_policy_env_set(hp->p, a, b, &e) : -EINVAL;
		else if (!strcmp(op, "workdir"))
			rc = heel_policy_workdir(hp->p, a, &e);
		else if (!strcmp(op, "ioPriority"))
			rc = heel_policy_io_priority(hp->p, a, &e);
		if (rc == -EINVAL && !b && (!strcmp(op, "limit") || !strcmp(op, "envSet")))
			snprintf(e.message, sizeof(e.message), "heel: %s needs a name and a value",
				 op);
	}
	if (rc != 0)
		hn_throw_msg(env, rc, e.message);
out:
	free(op);
	free(a);
	free(b);
	return NULL;
}

/* ---------------------------------------------------------------- options */

/* What heel_spawn_opts points to, owned here so that async work can use
 * it after the JavaScript call has returned. */
struct hn_opts {
	struct heel_spawn_opts o;
	char **env, **launcher_env;
	char *cwd, *launcher;
};

static void
hn_opts_free(struct hn_opts *ho)
{
	hn_strv_free(ho->env);
	hn_strv_free(ho->launcher_env);
	free(ho->cwd);
	free(ho->launcher);
}

/* {env, cwd, launcher, launcherEnv, bestEffort, newSession, why, stdin} */
static int
hn_opts_read(napi_env env, napi_value v, struct hn_opts *ho)
{
	napi_valuetype t;

	memset(ho, 0, sizeof(*ho));
	heel_spawn_opts_init(&ho->o);
	if (napi_typeof(env, v, &t) != napi_ok)
		return -1;
	if (t == napi_undefined || t == napi_null)
		return 0;
	if (t != napi_object) {
		napi_throw_type_error(env, "EINVAL", "heel: options must be an object");
		return -1;
	}
	if (hn_strv(env, hn_prop(env, v, "env"), &ho->env) != 0 ||
	    hn_strv(env, hn_prop(env, v, "launcherEnv"), &ho->launcher_env) != 0 ||
	    hn_string(env, hn_prop(env, v, "cwd"), true, &ho->cwd) != 0 ||
	    hn_string(env, hn_prop(env, v, "launcher"), true, &ho->launcher) != 0) {
		hn_opts_free(ho);
		return -1;
	}
	ho->o.env = (const char *const *)ho->env;
	ho->o.launcher_env = (const char *const *)ho->launcher_env;
	ho->o.cwd = ho->cwd;
	ho->o.launcher = ho->launcher;
	if (hn_bool(env, hn_prop(env, v, "bestEffort")))
		ho->o.flags |= HEEL_SPAWN_BEST_EFFORT;
	if (hn_bool(env, hn_prop(env, v, "why")))
		ho->o.flags |= HEEL_SPAWN_WHY;
	if (hn_bool(env, hn_prop(env, v, "newSession")))
		ho->o.flags |= HEEL_SPAWN_NEW_SESSION;
	ho->o.stdin_fd = hn_int(env, hn_prop(env, v, "stdinFd"), -1);
	ho->o.stdout_fd = hn_int(env, hn_prop(env, v, "stdoutFd"), -1);
	ho->o.stderr_fd = hn_int(env, hn_prop(env, v, "stderrFd"), -1);
	return 0;
}

/* policyText(handle, opts) and policyCheck(handle, opts): sync, as
 * libheel's own are quick (no file is read for a builder policy). */
static napi_value
hn_policy_text_or_check(napi_env env, napi_callback_info info, bool check)
{
	size_t argc = 2;
	napi_value argv[2], out;
	struct hn_policy *hp;
	struct hn_opts ho;
	heel_error e;
	char *text = NULL;
	int rc = 0;

	HN_CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	if (argc < 2)
		napi_get_undefined(env, &argv[1]);
	if (!(hp = hn_policy_of(env, argv[0])) || hn_opts_read(env, argv[1], &ho) != 0)
		return NULL;
	if (check)
		rc = heel_policy_check(hp->p, &ho.o, &text, &e);
	else if (!(text = heel_policy_text(hp->p, &ho.o, &e)))
		rc = e.code ? e.code : -EINVAL;
	hn_opts_free(&ho);
	if (rc != 0)
		return hn_throw(env, &e);
	if (text)
		napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &out);
	else
		napi_get_null(env, &out);
	free(text);
	return out;
}

static napi_value
hn_policy_text(napi_env env, napi_callback_info info)
{
	return hn_policy_text_or_check(env, info, false);
}

static napi_value
hn_policy_check(napi_env env, napi_callback_info info)
{
	return hn_policy_text_or_check(env, info, true);
}

/* ---------------------------------------------------------------- children */

/* A child and how its end is seen: a uv_poll on the pidfd in the event
 * loop, which reaps it (heel_child_wait with 0) and calls the watcher
 * JavaScript gave. The watcher is held strongly until then, and with it
 * the JavaScript child object: a child that runs is never collected. */
struct hn_child {
	heel_child *c;
	uv_poll_t *poll;
	napi_env env;
	napi_ref watcher;
	napi_async_context actx;
	bool reaped, closing, hooked;
	int status;
};

/* Node's environment ends (process.exit, a worker's end) while the
 * sandbox runs: it is ended as heel_child_free ends it (SIGTERM, SIGKILL
 * after 5 s) rather than left running with no handle to it. */
static void
hn_child_teardown(void *arg)
{
	struct hn_child *hc = arg;

	hc->hooked = false;
	/* A close() under way owns the handle on the pool: heel-exec has
	 * had its SIGTERM. */
	if (hc->reaped || hc->closing || !hc->c)
		return;
	if (hc->poll)
		uv_poll_stop(hc->poll);
	heel_child_free(hc->c);
	hc->c = NULL;
	hc->reaped = true;
}

static void
hn_child_finalize(napi_env env, void *data, void *hint)
{
	struct hn_child *hc = data;

	(void)hint;
	if (hc->hooked)
		napi_remove_env_cleanup_hook(env, hn_child_teardown, hc);
	/* Reaped, or never watched: heel_child_free does not block then
	 * (a running one is held by its watcher and not collected). */
	heel_child_free(hc->c);
	free(hc);
}

static struct hn_child *
hn_child_of(napi_env env, napi_value v)
{
	void *data = NULL;
	napi_valuetype t;

	if (napi_typeof(env, v, &t) != napi_ok || t != napi_external ||
	    napi_get_value_external(env, v, &data) != napi_ok || !data) {
		napi_throw_type_error(env, "EINVAL", "heel: not a child handle");
		return NULL;
	}
	return data;
}

static void
hn_poll_closed(uv_handle_t *h)
{
	free(h);
}

static void
hn_child_stop_poll(struct hn_child *hc)
{
	if (hc->poll) {
		uv_poll_stop(hc->poll);
		uv_close((uv_handle_t *)hc->poll, hn_poll_closed);
		hc->poll = NULL;
	}
}

/* The end seen: the watcher gets the status through napi_make_callback,
 * so that the promises it settles run their reactions at once. */
static void
hn_child_ended(struct hn_child *hc, const heel_error *failed)
{
	napi_env env = hc->env;
	napi_handle_scope scope;
	napi_value fn, recv, args[2];

	hn_child_stop_poll(hc);
	if (!hc->watcher)
		return;
	if (hc->hooked)
		napi_remove_env_cleanup_hook(env, hn_child_teardown, hc);
	hc->hooked = false;
	napi_open_handle_scope(env, &scope);
	if (napi_get_reference_value(env, hc->watcher, &fn) == napi_ok) {
		napi_get_global(env, &recv);
		napi_create_int32(env, hc->status, &args[0]);
		if (failed)
			args[1] = hn_error(env, failed->code, failed->message);
		else
			napi_get_undefined(env, &args[1]);
		napi_make_callback(env, hc->actx, recv, fn, 2, args, NULL);
	}
	napi_delete_reference(env, hc->watcher);
	hc->watcher = NULL;
	napi_async_destroy(env, hc->actx);
	napi_close_handle_scope(env, scope);
}

static void
hn_child_pollcb(uv_poll_t *h, int status, int events)
{
	struct hn_child *hc = h->data;
	heel_error e;
	int st, rc;

	(void)status;
	(void)events;
	if (hc->closing || hc->reaped)
		return;
	/* 0: reaped now; -ETIMEDOUT: not yet (a spurious wake); anything
	 * else would wake the poll again at once: the wait fails instead. */
	rc = heel_child_wait(hc->c, 0, &st, &e);
	if (rc == -ETIMEDOUT)
		return;
	hc->reaped = rc == 0;
	hc->status = rc == 0 ? st : -1;
	hn_child_ended(hc, rc == 0 ? NULL : &e);
}

/* watch(child, fn): fn(status) once heel-exec has ended. */
static napi_value
hn_child_watch(napi_env env, napi_callback_info info)
{
	size_t argc = 2;
	napi_value argv[2], name;
	struct hn_child *hc;
	uv_loop_t *loop;

	HN_CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	if (argc < 2 || !(hc = hn_child_of(env, argv[0])))
		return hn_pending(env);
	if (hc->watcher || hc->reaped)
		return hn_throw_msg(env, -EALREADY, "heel: the child is already watched");
	HN_CHECK(env, napi_get_uv_event_loop(env, &loop));
	napi_create_string_utf8(env, "heel.child", NAPI_AUTO_LENGTH, &name);
	hc->poll = calloc(1, sizeof(*hc->poll));
	if (!hc->poll)
		return hn_throw_msg(env, -ENOMEM, "heel: out of memory");
	if (uv_poll_init(loop, hc->poll, heel_child_pidfd(hc->c)) != 0) {
		free(hc->poll);
		hc->poll = NULL;
		return hn_throw_msg(env, -EIO, "heel: cannot watch heel-exec's pidfd");
	}
	hc->poll->data = hc;
	if (napi_create_reference(env, argv[1], 1, &hc->watcher) != napi_ok ||
	    napi_async_init(env, NULL, name, &hc->actx) != napi_ok) {
		if (hc->watcher)
			napi_delete_reference(env, hc->watcher);
		hc->watcher = NULL;
		hn_child_stop_poll(hc);
		return hn_pending(env);
	}
	hc->hooked = napi_add_env_cleanup_hook(env, hn_child_teardown, hc) == napi_ok;
	uv_poll_start(hc->poll, UV_READABLE, hn_child_pollcb);
	return NULL;
}

/* ref(child, on): whether a running child keeps Node alive. */
static napi_value
hn_child_ref(napi_env env, napi_callback_info info)
{
	size_t argc = 2;
	napi_value argv[2];
	struct hn_child *hc;

	HN_CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	if (argc < 2 || !(hc = hn_child_of(env, argv[0])))
		return hn_pending(env);
	if (hc->poll) {
		if (hn_bool(env, argv[1]))
			uv_ref((uv_handle_t *)hc->poll);
		else
			uv_unref((uv_handle_t *)hc->poll);
	}
	return NULL;
}

static napi_value
hn_child_kill(napi_env env, napi_callback_info info)
{
	size_t argc = 2;
	napi_value argv[2];
	struct hn_child *hc;
	heel_error e;

	HN_CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	if (argc < 2 || !(hc = hn_child_of(env, argv[0])))
		return hn_pending(env);
	/* While close() ends it on the pool, the handle is the pool's. */
	if (hc->closing)
		return hn_throw_msg(env, -ESRCH, "heel: the sandbox is being closed");
	if (heel_child_kill(hc->c, hn_int(env, argv[1], SIGTERM), &e) != 0)
		return hn_throw(env, &e);
	return NULL;
}

/* denials(child): heel_child_denials's lines, as one string; thrown:
 * EBUSY before the end, EINVAL without why or once closed. */
static napi_value
hn_child_denials(napi_env env, napi_callback_info info)
{
	size_t argc = 1;
	napi_value argv[1], out;
	struct hn_child *hc;
	heel_error e;
	char *lines;

	HN_CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	if (argc < 1 || !(hc = hn_child_of(env, argv[0])))
		return hn_pending(env);
	if (hc->closing || !hc->c)
		return hn_throw_msg(env, -EINVAL, "heel: the child is closed");
	if (!(lines = heel_child_denials(hc->c, &e)))
		return hn_throw(env, &e);
	napi_create_string_utf8(env, lines, NAPI_AUTO_LENGTH, &out);
	free(lines);
	return out;
}

/* close(child): ends the sandbox as heel_child_free does (SIGTERM, 5 s,
 * SIGKILL), on the pool; the watcher gets the status as at any end. */
struct hn_close {
	napi_async_work work;
	napi_deferred deferred;
	napi_ref keep;
	struct hn_child *hc;
	int status;
};

static void
hn_close_execute(napi_env env, void *data)
{
	struct hn_close *cl = data;
	heel_child *c = cl->hc->c;

	(void)env;
	/* heel_child_free's own sequence, with the status kept. */
	heel_child_kill(c, SIGTERM, NULL);
	heel_child_kill(c, SIGCONT, NULL);
	if (heel_child_wait(c, 5000, &cl->status, NULL) != 0) {
		heel_child_kill(c, SIGKILL, NULL);
		if (heel_child_wait(c, -1, &cl->status, NULL) != 0)
			cl->status = 128 + SIGKILL;
	}
}

static void
hn_close_complete(napi_env env, napi_status status, void *data)
{
	struct hn_close *cl = data;
	struct hn_child *hc = cl->hc;
	napi_value v;

	(void)status;
	hc->closing = false;
	hc->reaped = true;
	hc->status = cl->status;
	hn_child_ended(hc, NULL);
	napi_create_int32(env, hc->status, &v);
	napi_resolve_deferred(env, cl->deferred, v);
	napi_delete_reference(env, cl->keep);
	napi_delete_async_work(env, cl->work);
	free(cl);
}

static napi_value
hn_child_close(napi_env env, napi_callback_info info)
{
	size_t argc = 1;
	napi_value argv[1], promise, name, v;
	struct hn_child *hc;
	struct hn_close *cl;
	napi_deferred d;

	HN_CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	if (argc < 1 || !(hc = hn_child_of(env, argv[0])))
		return hn_pending(env);
	HN_CHECK(env, napi_create_promise(env, &d, &promise));
	if (hc->reaped || hc->closing) {
		napi_create_int32(env, hc->status, &v);
		napi_resolve_deferred(env, d, v);
		return promise;
	}
	cl = calloc(1, sizeof(*cl));
	if (!cl)
		return hn_throw_msg(env, -ENOMEM, "heel: out of memory");
	cl->hc = hc;
	cl->deferred = d;
	/* The poll must not reap beside the pool's wait. */
	hc->closing = true;
	if (hc->poll)
		uv_poll_stop(hc->poll);
	napi_create_string_utf8(env, "heel.close", NAPI_AUTO_LENGTH, &name);
	napi_create_reference(env, argv[0], 1, &cl->keep);
	if (napi_create_async_work(env, NULL, name, hn_close_execute, hn_close_complete, cl,
				   &cl->work) != napi_ok ||
	    napi_queue_async_work(env, cl->work) != napi_ok) {
		hc->closing = false;
		free(cl);
		return hn_pending(env);
	}
	return promise;
}

/* ---------------------------------------------------------------- spawning */

/* spawn(policy, argv, opts) and capture(policy, argv, opts, maxBytes,
 * timeoutMs): on the pool, the policy held (readers) until done. A
 * spawn's pipes are made here: "pipe" in index.js is fd -2, and the
 * caller's ends come back as numbers for net.Socket. */
struct hn_spawn {
	napi_async_work work;
	napi_deferred deferred;
	napi_ref policy_ref;
	struct hn_policy *hp;
	char **argv;
	struct hn_opts ho;
	bool capture;
	size_t max_bytes;
	int timeout_ms;
	int ours[3];   /* the caller's ends of pipes, -1 if none */
	int theirs[3]; /* heel-exec's ends, closed once it has them */
	heel_child *c;
	struct heel_capture cap;
	int rc;
	heel_error e;
};

static void
hn_spawn_close_fds(int *fds)
{
	for (int i = 0; i < 3; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

static void
hn_spawn_execute(napi_env env, void *data)
{
	struct hn_spawn *s = data;

	(void)env;
	if (s->capture) {
		s->rc = heel_run_capture(s->hp->p, (const char *const *)s->argv, &s->ho.o,
					 s->max_bytes, s->timeout_ms, &s->cap, &s->e);
	} else {
		s->c = heel_spawn(s->hp->p, (const char *const *)s->argv, &s->ho.o, &s->e);
		s->rc = s->c ? 0 : (s->e.code ? s->e.code : -EIO);
	}
	/* heel-exec holds its ends now (or never will). */
	hn_spawn_close_fds(s->theirs);
}

static void
hn_set_int(napi_env env, napi_value obj, const char *name, int v)
{
	napi_value x;

	napi_create_int32(env, v, &x);
	napi_set_named_property(env, obj, name, x);
}

static void
hn_set_buffer(napi_env env, napi_value obj, const char *name, const char *data, size_t len)
{
	napi_value x;

	napi_create_buffer_copy(env, len, data, NULL, &x);
	napi_set_named_property(env, obj, name, x);
}

static void
hn_spawn_complete(napi_env env, napi_status status, void *data)
{
	struct hn_spawn *s = data;
	napi_value res, ext;
	struct hn_child *hc;

	s->hp->readers--;
	if (status != napi_ok && s->rc == 0)
		s->rc = -ECANCELED;
	if (s->rc != 0) {
		hn_spawn_close_fds(s->ours);
		heel_child_free(s->c);
		napi_reject_deferred(env, s->deferred, hn_error(env, s->rc, s->e.message));
		goto out;
	}
	napi_create_object(env, &res);
	if (s->capture) {
		hn_set_buffer(env, res, "stdout", s->cap.out, s->cap.out_len);
		hn_set_buffer(env, res, "stderr", s->cap.err, s->cap.err_len);
		hn_set_int(env, res, "status", s->cap.status);
		hn_set_int(env, res, "timedOut", s->cap.timed_out);
		hn_set_int(env, res, "stdoutTruncated", s->cap.out_truncated);
		hn_set_int(env, res, "stderrTruncated", s->cap.err_truncated);
		heel_capture_free(&s->cap);
		napi_resolve_deferred(env, s->deferred, res);
		goto out;
	}
	hc = calloc(1, sizeof(*hc));
	if (!hc || napi_create_external(env, hc, hn_child_finalize, NULL, &ext) != napi_ok) {
		free(hc);
		hn_spawn_close_fds(s->ours);
		heel_child_free(s->c);
		napi_reject_deferred(env, s->deferred,
				     hn_error(env, -ENOMEM, "heel: out of memory"));
		goto out;
	}
	hc->c = s->c;
	hc->env = env;
	napi_set_named_property(env, res, "handle", ext);
	hn_set_int(env, res, "pid", (int)heel_child_pid(s->c));
	hn_set_int(env, res, "stdinFd", s->ours[0]);
	hn_set_int(env, res, "stdoutFd", s->ours[1]);
	hn_set_int(env, res, "stderrFd", s->ours[2]);
	napi_resolve_deferred(env, s->deferred, res);
out:
	napi_delete_reference(env, s->policy_ref);
	napi_delete_async_work(env, s->work);
	hn_strv_free(s->argv);
	hn_opts_free(&s->ho);
	free(s);
}

/* A descriptor of opts as spawn gives it: -2 asks for a pipe. */
static int
hn_spawn_pipe(struct hn_spawn *s, int i, int *fd)
{
	int p[2];

	if (*fd != -2)
		return 0;
	if (pipe2(p, O_CLOEXEC) != 0)
		return -errno;
	/* stdin: heel-exec reads p[0]; stdout and stderr: it writes p[1]. */
	s->ours[i] = i == 0 ? p[1] : p[0];
	s->theirs[i] = i == 0 ? p[0] : p[1];
	*fd = s->theirs[i];
	return 0;
}

static napi_value
hn_spawn_common(napi_env env, napi_callback_info info, bool capture)
{
	size_t argc = 5;
	napi_value argv[5], promise, name;
	struct hn_spawn *s;
	int rc;

	HN_CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	if (argc < 3)
		return hn_throw_msg(env, -EINVAL, "heel: spawn needs a policy, argv and options");
	s = calloc(1, sizeof(*s));
	if (!s)
		return hn_throw_msg(env, -ENOMEM, "heel: out of memory");
	for (int i = 0; i < 3; i++)
		s->ours[i] = s->theirs[i] = -1;
	s->capture = capture;
	if (!(s->hp = hn_policy_of(env, argv[0])) || hn_strv(env, argv[1], &s->argv) != 0)
		goto fail;
	if (!s->argv || !s->argv[0]) {
		hn_throw_msg(env, -EINVAL, "heel: argv must name a command");
		goto fail;
	}
	if (hn_opts_read(env, argv[2], &s->ho) != 0)
		goto fail;
	if (capture) {
		int64_t mb = 1 << 20;

		if (argc > 3)
			napi_get_value_int64(env, argv[3], &mb);
		s->max_bytes = mb > 0 ? (size_t)mb : 0;
		s->timeout_ms = argc > 4 ? hn_int(env, argv[4], -1) : -1;
		s->ho.o.stdout_fd = s->ho.o.stderr_fd = -1;
	} else if ((rc = hn_spawn_pipe(s, 0, &s->ho.o.stdin_fd)) != 0 ||
		   (rc = hn_spawn_pipe(s, 1, &s->ho.o.stdout_fd)) != 0 ||
		   (rc = hn_spawn_pipe(s, 2, &s->ho.o.stderr_fd)) != 0) {
		hn_throw_msg(env, rc, "heel: cannot make a pipe for the command");
		goto fail_opts;
	}
	if (capture && s->ho.o.stdin_fd == -2) {
		hn_throw_msg(env, -EINVAL, "heel: run() takes no stdin pipe (use spawn)");
		goto fail_opts;
	}
	napi_create_string_utf8(env, capture ? "heel.run" : "heel.spawn", NAPI_AUTO_LENGTH, &name);
	if (napi_create_promise(env, &s->deferred, &promise) != napi_ok ||
	    napi_create_reference(env, argv[0], 1, &s->policy_ref) != napi_ok ||
	    napi_create_async_work(env, NULL, name, hn_spawn_execute, hn_spawn_complete, s,
				   &s->work) != napi_ok ||
	    napi_queue_async_work(env, s->work) != napi_ok) {
		hn_pending(env);
		goto fail_opts;
	}
	s->hp->readers++;
	return promise;
fail_opts:
	hn_opts_free(&s->ho);
fail:
	hn_spawn_close_fds(s->ours);
	hn_spawn_close_fds(s->theirs);
	hn_strv_free(s->argv);
	free(s);
	return NULL;
}

static napi_value
hn_spawn(napi_env env, napi_callback_info info)
{
	return hn_spawn_common(env, info, false);
}

static napi_value
hn_capture(napi_env env, napi_callback_info info)
{
	return hn_spawn_common(env, info, true);
}

/* ---------------------------------------------------------------- module */

static napi_value
hn_set_error_class(napi_env env, napi_callback_info info)
{
	size_t argc = 1;
	napi_value argv[1];

	napi_ref ref;

	HN_CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	if (hn_error_class(env))
		return hn_throw_msg(env, -EALREADY, "heel: the error class is already set");
	HN_CHECK(env, napi_create_reference(env, argv[0], 1, &ref));
	HN_CHECK(env, napi_set_instance_data(env, ref, hn_error_class_free, NULL));
	return NULL;
}

static napi_value
hn_version(napi_env env, napi_callback_info info)
{
	napi_value v;

	(void)info;
	napi_create_string_utf8(env, heel_version(), NAPI_AUTO_LENGTH, &v);
	return v;
}

static napi_value
hn_init(napi_env env, napi_value exports)
{
	static const struct {
		const char *name;
		napi_callback fn;
	} fns[] = {
	    {"setErrorClass", hn_set_error_class},
	    {"version", hn_version},
	    {"policyNew", hn_policy_new},
	    {"policyFromFile", hn_policy_from_file},
	    {"policyFromString", hn_policy_from_string},
	    {"policyCall", hn_policy_call},
	    {"policyText", hn_policy_text},
	    {"policyCheck", hn_policy_check},
	    {"spawn", hn_spawn},
	    {"capture", hn_capture},
	    {"watch", hn_child_watch},
	    {"ref", hn_child_ref},
	    {"kill", hn_child_kill},
	    {"denials", hn_child_denials},
	    {"close", hn_child_close},
	};

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		napi_value f;

		HN_CHECK(env, napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].fn,
						   NULL, &f));
		HN_CHECK(env, napi_set_named_property(env, exports, fns[i].name, f));
	}
	return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, hn_init)
