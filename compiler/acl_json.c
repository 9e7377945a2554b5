/* SPDX-License-Identifier: MIT
 * The JSON form of the Windows part. It renders struct win_manifest,
 * whether acl_build() made it from a source or win_manifest_from_view()
 * read it from an artifact, so the two forms cannot drift apart: the
 * JSON of a policy and of its artifact are the same bytes. Masks are hex
 * strings (JSON numbers lose nothing here, but a reviewer compares masks
 * against winnt.h in hex) with their bit names beside them. */
#include "acl_json.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "acl_build.h"

static const struct {
	uint32_t bit;
	const char *name;
} mask_bits[] = {
    {WIN_FILE_READ_DATA, "READ_DATA"},
    {WIN_FILE_WRITE_DATA, "WRITE_DATA"},
    {WIN_FILE_APPEND_DATA, "APPEND_DATA"},
    {WIN_FILE_READ_EA, "READ_EA"},
    {WIN_FILE_WRITE_EA, "WRITE_EA"},
    {WIN_FILE_EXECUTE, "EXECUTE"},
    {WIN_FILE_DELETE_CHILD, "DELETE_CHILD"},
    {WIN_FILE_READ_ATTRIBUTES, "READ_ATTRIBUTES"},
    {WIN_FILE_WRITE_ATTRIBUTES, "WRITE_ATTRIBUTES"},
    {WIN_DELETE, "DELETE"},
    {WIN_READ_CONTROL, "READ_CONTROL"},
    {WIN_WRITE_DAC, "WRITE_DAC"},
    {WIN_WRITE_OWNER, "WRITE_OWNER"},
    {WIN_SYNCHRONIZE, "SYNCHRONIZE"},
};

/* The policy's word for a mask heelc writes; NULL for another. */
static const char *
access_word(uint8_t ace, uint32_t mask)
{
	if (ace == WIN_ACE_DENY)
		return mask == ACL_MASK_DENY	     ? "deny"
		       : mask == ACL_MASK_DENY_WRITE ? "deny-write"
						     : NULL;
	switch (mask) {
	case ACL_MASK_R:
		return "r";
	case ACL_MASK_RX:
		return "rx";
	case ACL_MASK_RW:
		return "rw";
	case ACL_MASK_RWX:
		return "rwx";
	}
	return NULL;
}

static json_t *
str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *
u64_or_null(uint64_t v)
{
	return v ? json_integer((json_int_t)v) : json_null();
}

static json_t *
hex32(uint32_t v)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "0x%08lx", (unsigned long)v);
	return json_string(buf);
}

static json_t *
entry_json(const struct win_entry *e, size_t id)
{
	static const char *const kinds[] = {"auto", "directory", "file"};
	json_t *o = json_object(), *names = json_array(), *inherit = json_array();
	const char *word = access_word(e->ace, e->mask);
	char origin[512];

	for (size_t i = 0; i < sizeof(mask_bits) / sizeof(mask_bits[0]); i++)
		if (e->mask & mask_bits[i].bit)
			json_array_append_new(names, json_string(mask_bits[i].name));
	if (e->inherit & WIN_INHERIT_OBJECT)
		json_array_append_new(inherit, json_string("OI"));
	if (e->inherit & WIN_INHERIT_CONTAINER)
		json_array_append_new(inherit, json_string("CI"));
	if (e->inherit & WIN_INHERIT_NO_PROPAGATE)
		json_array_append_new(inherit, json_string("NP"));
	if (e->inherit & WIN_INHERIT_ONLY)
		json_array_append_new(inherit, json_string("IO"));
	json_object_set_new(o, "id", json_integer((json_int_t)id));
	json_object_set_new(o, "path", json_string(e->path));
	json_object_set_new(o, "kind", json_string(e->kind <= WIN_KIND_FILE ? kinds[e->kind] : "?"));
	json_object_set_new(o, "trustee", json_string("container"));
	json_object_set_new(o, "ace", json_string(e->ace == WIN_ACE_DENY ? "deny" : "allow"));
	json_object_set_new(o, "access", str_or_null(word));
	json_object_set_new(o, "mask", hex32(e->mask));
	json_object_set_new(o, "mask_names", names);
	json_object_set_new(o, "inherit", inherit);
	json_object_set_new(o, "label", e->label == WIN_LABEL_LOW ? json_string("low") : json_null());
	json_object_set_new(o, "missing",
			    json_string(e->missing == WIN_MISSING_SKIP ? "skip" : "error"));
	json_object_set_new(o, "parent_deny_delete_child",
			    json_boolean(e->parent_deny_delete_child));
	if (e->origin_line) {
		snprintf(origin, sizeof(origin), "%s:%lu", e->origin_file ? e->origin_file : "",
			 (unsigned long)e->origin_line);
		json_object_set_new(o, "origin", json_string(origin));
	} else {
		json_object_set_new(o, "origin", json_null());
	}
	return o;
}

static json_t *
manifest_json(const struct win_manifest *m, const char *policy_name, const uint8_t digest[32])
{
	static const char *const prio[] = {NULL, "below_normal", "idle"};
	json_t *root = json_object(), *policy = json_object(), *box = json_object();
	json_t *caps = json_array(), *job = json_object(), *entries = json_array();
	char hex[8 + 64 + 1];

	snprintf(hex, sizeof(hex), "sha256:");
	for (int i = 0; i < 32; i++)
		snprintf(hex + 7 + 2 * i, 3, "%02x", digest[i]);
	json_object_set_new(policy, "name", str_or_null(policy_name));
	json_object_set_new(policy, "digest", json_string(hex));

	for (size_t i = 0; i < m->ncapabilities; i++)
		json_array_append_new(caps, json_string(m->capabilities[i]));
	json_object_set_new(box, "name", json_string(m->name));
	json_object_set_new(box, "display_name", json_string("heel sandbox"));
	json_object_set_new(box, "sid", json_string(m->sid));
	json_object_set_new(box, "capabilities", caps);
	json_object_set_new(box, "lpac", json_boolean(m->lpac));
	json_object_set_new(box, "loopback_required", json_boolean(m->loopback_required));
	/* One profile per policy, shared by its runs: heel-exec.exe keeps it. */
	json_object_set_new(box, "delete_profile_on_exit", json_false());

	json_object_set_new(job, "kill_on_close", json_true());
	json_object_set_new(job, "die_on_unhandled_exception", json_true());
	json_object_set_new(job, "priority_class",
			    str_or_null(m->priority_class <= WIN_PRIO_IDLE ? prio[m->priority_class]
									   : "?"));
	json_object_set_new(job, "job_memory_bytes", u64_or_null(m->job_memory_bytes));
	json_object_set_new(job, "process_memory_bytes", u64_or_null(m->process_memory_bytes));
	json_object_set_new(job, "active_processes", u64_or_null(m->active_processes));
	json_object_set_new(job, "cpu_rate_percent", u64_or_null(m->cpu_rate_percent));

	for (size_t i = 0; i < m->nentries; i++)
		json_array_append_new(entries, entry_json(&m->entries[i], i));

	json_object_set_new(root, "schema", json_string(ACL_JSON_SCHEMA));
	json_object_set_new(root, "policy", policy);
	json_object_set_new(root, "appcontainer", box);
	json_object_set_new(root, "job", job);
	json_object_set_new(root, "entries", entries);
	return root;
}

int
acl_json_render(const struct win_manifest *m, const char *policy_name, const uint8_t digest[32],
		FILE *out)
{
	json_t *root = manifest_json(m, policy_name, digest);
	char *text;
	int rc = 0;

	if (!root)
		return -ENOMEM;
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (!text)
		return -ENOMEM;
	if (fputs(text, out) == EOF || fputc('\n', out) == EOF)
		rc = -EIO;
	free(text);
	return rc;
}
