/* SPDX-License-Identifier: MIT
 * IR life cycle and the names of its enumerations (see ir.h). */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

struct ir_pool {
	char **strings;
	size_t n, cap;
};

struct ir_policy *
ir_policy_new(void)
{
	struct ir_policy *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->pool = calloc(1, sizeof(*p->pool));
	if (!p->pool) {
		free(p);
		return NULL;
	}
	p->platforms = IR_PLAT_ALL;
	for (int i = 0; i < IR_PLATFORM_COUNT; i++) {
		p->scalar[i].isolation.set = true;
		p->scalar[i].isolation.value = IR_ISO_DEFAULT;
		p->scalar[i].network.set = true;
		p->scalar[i].network.value = IR_NET_DENY;
	}
	return p;
}

const char *
ir_intern(struct ir_policy *policy, const char *s)
{
	struct ir_pool *pool = policy->pool;
	char *copy, **grown;

	for (size_t i = 0; i < pool->n; i++)
		if (strcmp(pool->strings[i], s) == 0)
			return pool->strings[i];
	grown = grow_array(pool->strings, &pool->cap, pool->n + 1, sizeof(*grown), 0);
	if (!grown)
		return NULL;
	pool->strings = grown;
	copy = strdup(s);
	if (!copy)
		return NULL;
	pool->strings[pool->n++] = copy;
	return copy;
}

static void
free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void
free_named(struct ir_named *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].value);
	free(v);
}

void
ir_policy_free(struct ir_policy *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->npaths; i++)
		free(p->paths[i].path);
	free(p->paths);
	for (size_t i = 0; i < p->nreadonly; i++) {
		free(p->readonly[i].path);
		free(p->readonly[i].because);
	}
	free(p->readonly);
	for (size_t i = 0; i < p->npatterns; i++)
		free(p->patterns[i].host);
	free(p->patterns);
	for (size_t i = 0; i < p->nenv_pass; i++)
		free(p->env_pass[i].name);
	free(p->env_pass);
	for (size_t i = 0; i < p->nenv_set; i++) {
		free(p->env_set[i].name);
		free(p->env_set[i].value);
	}
	free(p->env_set);
	for (size_t i = 0; i < p->nipc; i++) {
		free(p->ipc[i].name);
		free(p->ipc[i].exec);
		free_strv(p->ipc[i].positionals, p->ipc[i].npositionals);
		for (size_t j = 0; j < p->ipc[i].nargs; j++)
			free(p->ipc[i].args[j].name);
		free(p->ipc[i].args);
	}
	free(p->ipc);
	for (int i = 0; i < IR_PLATFORM_COUNT; i++) {
		free(p->python[i].venv);
		free_strv(p->python[i].packages, p->python[i].npackages);
		free(p->decider[i].program);
		free_strv(p->decider[i].args, p->decider[i].nargs);
		free(p->scalar[i].audit_path.value);
		free(p->scalar[i].workdir.value);
		free(p->excluded_reason[i]);
	}
	for (size_t i = 0; i < p->nseccomp; i++)
		free(p->seccomp[i].syscall);
	free(p->seccomp);
	free_named(p->mach_lookups, p->nmach_lookups);
	free_named(p->sbpl, p->nsbpl);
	free_named(p->capabilities, p->ncapabilities);
	if (p->pool) {
		free_strv(p->pool->strings, p->pool->n);
		free(p->pool);
	}
	free(p);
}

static const char *const set_names[IR_SET_COUNT] = {
	[IR_SET_USER_HOME] = "user-home",
	[IR_SET_CREDENTIALS] = "credentials",
	[IR_SET_CLOUD_CONFIG] = "cloud-config",
	[IR_SET_BROWSER_DATA] = "browser-data",
	[IR_SET_KEYCHAINS] = "keychains",
	[IR_SET_SHELL_HISTORY] = "shell-history",
	[IR_SET_PACKAGE_CREDENTIALS] = "package-credentials",
	[IR_SET_SHARED_TEMP] = "shared-temp",
	[IR_SET_HOST_RUN] = "host-run",
};

static const char *const limit_names[IR_LIMIT_COUNT] = {
	[IR_LIMIT_MEMORY] = "memory",
	[IR_LIMIT_CPU] = "cpu",
	[IR_LIMIT_PROCESSES] = "processes",
	[IR_LIMIT_OPEN_FILES] = "open-files",
	[IR_LIMIT_FILE_SIZE] = "file-size",
	[IR_LIMIT_STACK] = "stack",
	[IR_LIMIT_CORE] = "core",
};

const char *const ir_isolation_names[] = {
	[IR_ISO_STRICT] = "strict",
	[IR_ISO_DEFAULT] = "default",
	[IR_ISO_PERMISSIVE] = "permissive",
	[IR_ISO_PERMISSIVE + 1] = NULL,
};

static const char *const platform_names[IR_PLATFORM_COUNT] = {
	[IR_LINUX] = "linux",
	[IR_MACOS] = "macos",
	[IR_WINDOWS] = "windows",
};

const char *
ir_set_name(enum ir_protect_set set)
{
	return (unsigned)set < IR_SET_COUNT ? set_names[set] : "?";
}

const char *
ir_isolation_name(uint64_t iso)
{
	return iso <= IR_ISO_PERMISSIVE ? ir_isolation_names[iso] : "?";
}

const char *
ir_limit_name(enum ir_limit limit)
{
	return (unsigned)limit < IR_LIMIT_COUNT ? limit_names[limit] : "?";
}

const char *
ir_platform_name(enum ir_platform p)
{
	return (unsigned)p < IR_PLATFORM_COUNT ? platform_names[p] : "?";
}

const char *const ir_ipc_arg_type_names[] = { "string", "int", "bool", "path", NULL };

const char *
ir_ipc_arg_type_name(unsigned type)
{
	return type < IR_IPC_ARG_TYPE_COUNT ? ir_ipc_arg_type_names[type] : "?";
}

const char *
ir_mode_name(unsigned mode)
{
	switch (mode) {
	case IR_MODE_DENY:
		return "deny";
	case IR_MODE_R:
		return "r";
	case IR_MODE_RW:
		return "rw";
	case IR_MODE_RX:
		return "rx";
	case IR_MODE_RWX:
		return "rwx";
	default:
		return "?";
	}
}
