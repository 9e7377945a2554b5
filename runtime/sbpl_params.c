/* SPDX-License-Identifier: MIT
 * SBPL_TEXT + SBPL_PARAMS -> the profile and the parameter list of one
 * launch (sbpl_params.h, docs/sbpl.md). */
#include "sbpl_params.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "le.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

int
sbpl_text(const struct art_view *view, const char **text, size_t *len)
{
	const struct art_span *sp = &view->sec[ART_SEC_SBPL_TEXT];

	if (!sp->data || !view->sec[ART_SEC_SBPL_PARAMS].data)
		return -ENOENT;
	*text = (const char *)sp->data;
	*len = sp->size;
	return 0;
}

size_t
sbpl_param_count(const struct art_view *view)
{
	return view->sec[ART_SEC_SBPL_PARAMS].data ? view->sec[ART_SEC_SBPL_PARAMS].count : 0;
}

static const char *
strtab_at(const struct art_view *view, uint32_t off)
{
	if (off == ART_STR_NONE)
		return NULL;
	return (const char *)view->sec[ART_SEC_STRTAB].data + off;
}

int
sbpl_param_at(const struct art_view *view, size_t i, struct sbpl_param_rec *out)
{
	const struct art_span *sp = &view->sec[ART_SEC_SBPL_PARAMS];
	const uint8_t *r, *o;

	if (i >= sbpl_param_count(view))
		return -ERANGE;
	r = sp->data + sizeof(struct art_rec_table) + i * sp->record_size;
	o = r + offsetof(struct art_rec_sbpl_param, origin);
	out->name = strtab_at(view, le_get32(r + offsetof(struct art_rec_sbpl_param, name)));
	out->value = strtab_at(view, le_get32(r + offsetof(struct art_rec_sbpl_param, value)));
	out->kind = r[offsetof(struct art_rec_sbpl_param, kind)];
	out->mode = r[offsetof(struct art_rec_sbpl_param, mode)];
	out->optional = r[offsetof(struct art_rec_sbpl_param, optional)] != 0;
	out->rank = le_get32(r + offsetof(struct art_rec_sbpl_param, rank));
	out->origin.file = strtab_at(view, le_get32(o + offsetof(struct art_rec_origin, file)));
	out->origin.line = le_get32(o + offsetof(struct art_rec_origin, line));
	out->origin.col = le_get32(o + offsetof(struct art_rec_origin, col));
	return 0;
}

/* macOS's firmlinks (10.15 to 14, /usr/share/firmlinks): each directory
 * on the system volume joined to its namesake beneath SBPL_DATA_VOLUME. */
static const char *const firmlinks[] = {
    "/AppleInternal",
    "/Applications",
    "/Library",
    "/System/Library/Caches",
    "/System/Library/Assets",
    "/System/Library/PreinstalledAssets",
    "/System/Library/AssetsV2",
    "/System/Library/PreinstalledAssetsV2",
    "/System/Library/CoreServices/CoreTypes.bundle/Contents/Library",
    "/System/Library/Speech",
    "/Users",
    "/Volumes",
    "/cores",
    "/opt",
    "/private",
    "/usr/local",
    "/usr/libexec/cups",
    "/usr/share/snmp",
};

bool
sbpl_firmlinked(const char *path)
{
	for (size_t i = 0; i < sizeof(firmlinks) / sizeof(firmlinks[0]); i++) {
		size_t n = strlen(firmlinks[i]);

		if (strncmp(path, firmlinks[i], n) == 0 && (path[n] == '\0' || path[n] == '/'))
			return true;
	}
	return false;
}

const char *
sbpl_firmlink_fold(const char *path)
{
	size_t n = sizeof(SBPL_DATA_VOLUME) - 1;

	if (strncmp(path, SBPL_DATA_VOLUME, n) == 0 && path[n] == '/' && sbpl_firmlinked(path + n))
		return path + n;
	return path;
}

/* realpath() of a data-volume spelling may keep it: fold it, so a rule
 * names the place as the profile's other rules do. */
static void
fold_in_place(char *out)
{
	const char *f = sbpl_firmlink_fold(out);

	if (f != out)
		memmove(out, f, strlen(f) + 1);
}

int
sbpl_canonicalize(const char *path, char *out, size_t outlen, bool *exists)
{
	char probe[PATH_MAX], real[PATH_MAX];
	size_t len = strlen(path), cut = len;

	*exists = false;
	if (path[0] != '/')
		return -EINVAL;
	if (len >= sizeof(probe))
		return -ENAMETOOLONG;
	/* probe = path[0, cut), "/" when cut is 0. Walk up until it
	 * resolves: the rest does not exist yet and so holds no link. */
	for (;;) {
		const char *rest = path + cut;
		size_t rl;

		if (cut) {
			memcpy(probe, path, cut);
			probe[cut] = '\0';
		} else {
			memcpy(probe, "/", 2);
		}
		if (!realpath(probe, real)) {
			if ((errno != ENOENT && errno != ENOTDIR) || cut == 0)
				return -errno;
			while (cut > 0 && path[cut - 1] != '/')
				cut--;
			if (cut > 0)
				cut--; /* the '/' before the dropped component */
			continue;
		}
		rl = strlen(real);
		/* "/" + "/x" must not give "//x". */
		if (rl == 1 && rest[0] == '/')
			rl = 0;
		if (rl + strlen(rest) + 1 > outlen)
			return -ENAMETOOLONG;
		memcpy(out, real, rl);
		memcpy(out + rl, rest, strlen(rest) + 1);
		fold_in_place(out);
		*exists = cut == len;
		return 0;
	}
}

/* Where a variable may not land a grant on macOS: the root and the
 * top-level directories of the system (a ${HOME} that is "/" is a broken
 * environment, not the policy's choice). */
static bool
macos_system_dir(const char *p)
{
	static const char *const dirs[] = {
	    "/",	      "/System",  "/Library",	  "/Users",	 "/Applications",
	    "/Volumes",	      "/private", "/private/var", "/private/etc", "/private/tmp",
	    "/private/var/folders",	  "/usr",	  "/bin",	 "/sbin",
	    "/opt",	      "/cores",	  "/dev",	  "/etc",	 "/var",
	    "/tmp",	      "/Network", "/System/Volumes", SBPL_DATA_VOLUME,
	};

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (strcmp(p, dirs[i]) == 0)
			return true;
	return false;
}

struct lookup_ctx {
	const struct sbpl_launch *in;
};

static const char *
lookup(const char *name, void *ctx)
{
	const struct sbpl_launch *in = ((struct lookup_ctx *)ctx)->in;

	if (strcmp(name, "CWD") == 0)
		return in->launch_dir;
	/* The working directory's rights are fixed: heelc refuses
	 * ${WORKDIR} in paths, and nothing here may grant it either. */
	if (strcmp(name, "WORKDIR") == 0)
		return NULL;
	return in->lookup ? in->lookup(name, in->ctx) : NULL;
}

static const char *
mode_word(unsigned mode)
{
	switch (mode) {
	case 0:
		return "deny";
	case 1:
		return "grant r";
	case 3:
		return "grant rw";
	case 5:
		return "grant rx";
	case 7:
		return "grant rwx";
	case ART_SBPL_MODE_NOEXEC:
		return "never executable";
	case ART_SBPL_MODE_READONLY:
		return "readonly";
	case ART_SBPL_MODE_WORKDIR:
		return "working directory";
	default:
		return "rule";
	}
}

static bool
is_grant(unsigned mode)
{
	return mode != 0 && mode <= 7;
}

/* "P3 (grant rw, policy.heel:12)" */
static const char *
describe(const struct sbpl_param_rec *r, char *buf, size_t len)
{
	if (!r)
		snprintf(buf, len, "a rule");
	else if (r->origin.file)
		snprintf(buf, len, "%s (%s, %s:%lu)", r->name, mode_word(r->mode), r->origin.file,
			 (unsigned long)r->origin.line);
	else
		snprintf(buf, len, "%s (%s)", r->name, mode_word(r->mode));
	return buf;
}

static int
resolve_one(const struct sbpl_param_rec *r, const struct sbpl_launch *in, struct sbpl_resolved *o,
	    char *err, size_t errlen)
{
	char buf[PATH_MAX], canon[PATH_MAX], who[256], why[256];
	struct lookup_ctx lc = {in};
	struct px_info info;
	bool exists;
	int rc;

	o->name = r->name;
	o->kind = r->kind;
	o->mode = r->mode;
	o->rank = r->rank;
	o->rec = r;
	describe(r, who, sizeof(who));
	switch (r->kind) {
	case ART_SBPL_KIND_PROXY:
		if (!in->proxy_port)
			return rt_error(err, errlen, -EINVAL,
					"%s: the policy sends the network through heel-proxy, but no "
					"proxy port was given",
					r->name);
		snprintf(buf, sizeof(buf), "localhost:%u", (unsigned)in->proxy_port);
		break;
	case ART_SBPL_KIND_WORKDIR:
		if (!in->workdir || in->workdir[0] != '/')
			return rt_error(err, errlen, -EINVAL,
					"%s: no absolute working directory was given", who);
		rc = sbpl_canonicalize(in->workdir, buf, sizeof(buf), &exists);
		if (rc)
			return rt_error(err, errlen, rc, "%s: cannot resolve %s: %s", who,
					in->workdir, strerror(-rc));
		break;
	case ART_SBPL_KIND_PATH:
		rc = px_expand(r->value, lookup, &lc, canon, sizeof(canon), &info);
		if (rc == -ENOENT && r->optional) {
			snprintf(buf, sizeof(buf), "%s", SBPL_UNSET_PATH);
			o->unset = true;
			break;
		}
		if (rc)
			return rt_error(err, errlen, rc, "%s: %s: %s", who, r->value,
					px_describe(&info, why, sizeof(why)));
		rc = sbpl_canonicalize(canon, buf, sizeof(buf), &exists);
		if (rc)
			return rt_error(err, errlen, rc, "%s: cannot resolve %s: %s", who, canon,
					strerror(-rc));
		if (is_grant(r->mode) && !exists && !r->optional)
			return rt_error(err, errlen, -ENOENT,
					"%s: %s does not exist (the grant is not optional)", who,
					buf);
		if (is_grant(r->mode) && info.name[0] && macos_system_dir(buf))
			return rt_error(err, errlen, -EPERM,
					"%s: ${%s} made %s a grant of %s, a system directory; "
					"refusing",
					who, info.name, r->value, buf);
		break;
	default:
		return rt_error(err, errlen, -EINVAL, "%s: unknown parameter kind %u", r->name,
				(unsigned)r->kind);
	}
	o->value = strdup(buf);
	return o->value ? 0 : -ENOMEM;
}

/* Whether child lies strictly beneath parent (both canonical). */
static bool
beneath(const char *child, const char *parent)
{
	size_t n = strlen(parent);

	if (strcmp(parent, "/") == 0)
		return child[0] == '/' && child[1] != '\0';
	return strncmp(child, parent, n) == 0 && child[n] == '/';
}

int
sbpl_order_check(const struct sbpl_resolved *p, size_t n, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i].kind == ART_SBPL_KIND_PROXY || p[i].unset)
			continue;
		for (size_t j = 0; j < n; j++) {
			char a[256], b[256];

			if (j == i || p[j].kind == ART_SBPL_KIND_PROXY || p[j].unset ||
			    p[j].rank <= p[i].rank || p[j].mode == p[i].mode)
				continue;
			if (!beneath(p[i].value, p[j].value))
				continue;
			return rt_error(
			    err, errlen, -EPERM,
			    "the profile's rule order does not hold for these paths: %s at %s lies "
			    "beneath %s at %s, whose rule comes later and would override it; "
			    "refusing (name the deeper path so heelc can order it, e.g. with the "
			    "same variable)",
			    describe(p[i].rec, a, sizeof(a)), p[i].value,
			    describe(p[j].rec, b, sizeof(b)), p[j].value);
		}
	}
	return 0;
}

void
sbpl_launch_params_free(struct sbpl_launch_params *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nparams; i++)
		free(p->params[i].value);
	free(p->params);
	free(p->kv);
	free(p->profile);
	memset(p, 0, sizeof(*p));
}

int
sbpl_resolve(const struct sbpl_param_rec *recs, size_t n, const struct sbpl_launch *in,
	     struct sbpl_launch_params *out, char *err, size_t errlen)
{
	int rc = 0;

	memset(out, 0, sizeof(*out));
	/* Without it a relative deny would expand as unset and match
	 * nothing: refuse instead. */
	if (!in->launch_dir || in->launch_dir[0] != '/')
		return rt_error(err, errlen, -EINVAL, "no absolute launch directory was given");
	out->params = calloc(n ? n : 1, sizeof(*out->params));
	out->kv = calloc(2 * n + 1, sizeof(*out->kv));
	if (!out->params || !out->kv) {
		sbpl_launch_params_free(out);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		rc = resolve_one(&recs[i], in, &out->params[i], err, errlen);
		out->nparams = i + 1;
	}
	if (!rc)
		rc = sbpl_order_check(out->params, out->nparams, err, errlen);
	if (rc) {
		sbpl_launch_params_free(out);
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		out->kv[2 * i] = out->params[i].name;
		out->kv[2 * i + 1] = out->params[i].value;
	}
	out->kv[2 * n] = NULL;
	return 0;
}

int
sbpl_prepare(const struct art_view *view, const struct sbpl_launch *in,
	     struct sbpl_launch_params *out, char *err, size_t errlen)
{
	struct sbpl_param_rec *recs;
	const char *text;
	size_t len, n = sbpl_param_count(view);
	char *profile;
	int rc;

	memset(out, 0, sizeof(*out));
	if (sbpl_text(view, &text, &len) != 0)
		return rt_error(err, errlen, -ENOENT,
				"the artifact has no macOS part (SBPL_TEXT, SBPL_PARAMS): it was "
				"built without macos, or by a heelc older than format 1.4");
	recs = calloc(n ? n : 1, sizeof(*recs));
	profile = malloc(len + 1);
	if (!recs || !profile) {
		free(recs);
		free(profile);
		return -ENOMEM;
	}
	memcpy(profile, text, len);
	profile[len] = '\0';
	for (size_t i = 0; i < n; i++)
		sbpl_param_at(view, i, &recs[i]);
	rc = sbpl_resolve(recs, n, in, out, err, errlen);
	if (rc) {
		free(recs);
		free(profile);
		return rc;
	}
	/* The records were only needed for messages; drop the pointers. */
	for (size_t i = 0; i < out->nparams; i++)
		out->params[i].rec = NULL;
	free(recs);
	out->profile = profile;
	return 0;
}
