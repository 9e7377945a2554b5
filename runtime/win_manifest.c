/* SPDX-License-Identifier: MIT
 * Decodes the Windows part of a validated artifact (WIN_CONTAINER and
 * WIN_ACES, docs/artifact.md) into struct win_manifest for heel-exec.exe.
 * art_validate() has already proved every offset, enumeration and string
 * reference, so this only copies; it still refuses what validation cannot
 * know to be absent (a view of another platform's artifact). Portable
 * C17, libc only: it is built for Linux (unit tests) and with mingw-w64. */
#include "win_manifest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact.h"
#include "artifact_read.h"

static_assert(ART_WIN_PRIO_MAX == WIN_PRIO_IDLE, "priority classes");

static const char *
strtab_at(const struct art_view *view, uint32_t off)
{
	if (off == ART_STR_NONE)
		return NULL;
	return (const char *)view->sec[ART_SEC_STRTAB].data + off;
}

static int
fail(char *err, size_t errlen, int rc, const char *msg)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", msg);
	return rc;
}

int
win_manifest_from_view(const struct art_view *view, struct win_manifest *out, char *err,
		       size_t errlen)
{
	const struct art_span *box = &view->sec[ART_SEC_WIN_CONTAINER];
	const struct art_span *aces = &view->sec[ART_SEC_WIN_ACES];
	const char **caps = NULL;
	struct win_entry *entries = NULL;
	const uint8_t *r;
	uint32_t flags;

	memset(out, 0, sizeof(*out));
	if (!view->buf || !box->data || !aces->data || box->count != 1)
		return fail(err, errlen, -ENOENT,
			    art_platform_enabled(view, ART_WINDOWS)
				? "the artifact has no Windows part: it was compiled by a heelc "
				  "older than format 1.4; compile the policy again"
				: "the policy is not built for windows");
	if (box->nitems) {
		caps = calloc(box->nitems, sizeof(*caps));
		if (!caps)
			return fail(err, errlen, -ENOMEM, "out of memory");
		for (size_t j = 0; j < box->nitems; j++)
			caps[j] = strtab_at(view, le_get32(box->items + j * ART_ITEM_SIZE));
	}
	if (aces->count) {
		entries = calloc(aces->count, sizeof(*entries));
		if (!entries) {
			free(caps);
			return fail(err, errlen, -ENOMEM, "out of memory");
		}
	}
	for (size_t i = 0; i < aces->count; i++) {
		const uint8_t *a = aces->data + sizeof(struct art_rec_table) + i * aces->record_size;
		const uint8_t *o = a + offsetof(struct art_rec_win_ace, origin);
		struct win_entry *e = &entries[i];

		e->path = strtab_at(view, le_get32(a + offsetof(struct art_rec_win_ace, path)));
		e->mask = le_get32(a + offsetof(struct art_rec_win_ace, mask));
		e->ace = a[offsetof(struct art_rec_win_ace, ace)];
		e->kind = a[offsetof(struct art_rec_win_ace, kind)];
		e->inherit = a[offsetof(struct art_rec_win_ace, inherit)];
		e->label = a[offsetof(struct art_rec_win_ace, label)];
		e->missing = a[offsetof(struct art_rec_win_ace, missing)];
		e->parent_deny_delete_child =
		    a[offsetof(struct art_rec_win_ace, parent_deny_delete_child)] != 0;
		e->origin_file = strtab_at(view, le_get32(o + offsetof(struct art_rec_origin, file)));
		e->origin_line = le_get32(o + offsetof(struct art_rec_origin, line));
		e->origin_col = le_get32(o + offsetof(struct art_rec_origin, col));
	}
	r = box->data + sizeof(struct art_rec_table);
	flags = le_get32(r + offsetof(struct art_rec_win_container, flags));
	out->name = strtab_at(view, le_get32(r + offsetof(struct art_rec_win_container, name)));
	out->sid = strtab_at(view, le_get32(r + offsetof(struct art_rec_win_container, sid)));
	out->capabilities = caps;
	out->ncapabilities = box->nitems;
	out->lpac = (flags & ART_WIN_CF_LPAC) != 0;
	out->loopback_required = (flags & ART_WIN_CF_LOOPBACK) != 0;
	out->priority_class = r[offsetof(struct art_rec_win_container, priority_class)];
	out->job_memory_bytes = le_get64(r + offsetof(struct art_rec_win_container, job_memory_bytes));
	out->process_memory_bytes =
	    le_get64(r + offsetof(struct art_rec_win_container, process_memory_bytes));
	out->active_processes = le_get32(r + offsetof(struct art_rec_win_container, active_processes));
	out->cpu_rate_percent = le_get32(r + offsetof(struct art_rec_win_container, cpu_rate_percent));
	out->entries = entries;
	out->nentries = aces->count;
	return 0;
}

void
win_manifest_free(struct win_manifest *m)
{
	if (!m)
		return;
	free((void *)m->capabilities);
	free((void *)m->entries);
	memset(m, 0, sizeof(*m));
}
