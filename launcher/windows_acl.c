/* SPDX-License-Identifier: MIT
 * Applying and reverting the plan's ACL edits. The binary ACL is turned
 * into runtime/win_acl.h's list, converged there and written back whole,
 * walking the ACEs ourselves: SetEntriesInAcl's GRANT merges masks into
 * whatever is there and its REVOKE also drops denies, so neither leaves
 * exactly the ACEs the manifest names. Every change is announced in the
 * journal first (pending) and confirmed after (applied). */
#ifdef _WIN32
#include "winexec.h"

#include <aclapi.h>
#include <errno.h>
#include <sddl.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"

/* ------------------------------------------------------------ binary <-> list */

static int
ace_from_binary(const ACE_HEADER *h, struct win_ace *out)
{
	PSID sid;
	LPWSTR w = NULL;
	char *s;
	int rc;

	switch (h->AceType) {
	case ACCESS_ALLOWED_ACE_TYPE:
	case ACCESS_DENIED_ACE_TYPE:
		/* Allowed, denied and label ACEs share this layout. */
	case SYSTEM_MANDATORY_LABEL_ACE_TYPE:
		sid = (PSID)&((const ACCESS_ALLOWED_ACE *)h)->SidStart;
		break;
	default:
		return -ENOTSUP;
	}
	if (!ConvertSidToStringSidW(sid, &w))
		return -EINVAL;
	s = winx_utf8(w);
	LocalFree(w);
	if (!s)
		return -ENOMEM;
	rc = win_ace_make(out, h->AceType == ACCESS_ALLOWED_ACE_TYPE ? WIN_ACL_ALLOW
			       : h->AceType == ACCESS_DENIED_ACE_TYPE ? WIN_ACL_DENY
								       : WIN_ACL_LABEL,
			  h->AceFlags & WIN_ACL_FLAGS_KNOWN, ((const ACCESS_ALLOWED_ACE *)h)->Mask, s);
	free(s);
	return rc;
}

static int
list_from_binary(PACL acl, char part, struct win_acl *out)
{
	ACL_SIZE_INFORMATION info;
	int rc;

	win_acl_init(out, part);
	if (!acl)
		return 0;
	if (!GetAclInformation(acl, &info, sizeof(info), AclSizeInformation))
		return -EINVAL;
	for (DWORD i = 0; i < info.AceCount; i++) {
		ACE_HEADER *h;
		struct win_ace a;

		if (!GetAce(acl, i, (LPVOID *)&h))
			return -EINVAL;
		if (part == 'S' && h->AceType != SYSTEM_MANDATORY_LABEL_ACE_TYPE)
			continue;
		if ((rc = ace_from_binary(h, &a)) < 0)
			return rc;
		if ((rc = win_acl_add(out, &a)) < 0)
			return rc;
	}
	return 0;
}

/* A binary ACL from the list (LocalFree it). */
static PACL
list_to_binary(const struct win_acl *l)
{
	DWORD size = sizeof(ACL);
	PSID *sids = calloc(l->n ? l->n : 1, sizeof(PSID));
	PACL acl = NULL;
	bool ok = sids != NULL;

	for (size_t i = 0; ok && i < l->n; i++) {
		wchar_t *w = winx_wide(l->aces[i].sid);

		ok = w && ConvertStringSidToSidW(w, &sids[i]);
		free(w);
		if (ok)
			size += sizeof(ACCESS_ALLOWED_ACE) - sizeof(DWORD) + GetLengthSid(sids[i]);
	}
	if (ok)
		acl = LocalAlloc(LPTR, size);
	ok = ok && acl && InitializeAcl(acl, size, ACL_REVISION);
	for (size_t i = 0; ok && i < l->n; i++) {
		const struct win_ace *a = &l->aces[i];

		if (a->type == WIN_ACL_ALLOW)
			ok = AddAccessAllowedAceEx(acl, ACL_REVISION, a->flags, a->mask, sids[i]);
		else if (a->type == WIN_ACL_DENY)
			ok = AddAccessDeniedAceEx(acl, ACL_REVISION, a->flags, a->mask, sids[i]);
		else
			ok = AddMandatoryAce(acl, ACL_REVISION, a->flags, a->mask, sids[i]);
	}
	for (size_t i = 0; sids && i < l->n; i++)
		if (sids[i])
			LocalFree(sids[i]);
	free(sids);
	if (!ok && acl) {
		LocalFree(acl);
		acl = NULL;
	}
	return acl;
}

/* ------------------------------------------------------------ one path */

static int
read_acls(const wchar_t *path, struct win_acl *dacl, struct win_acl *label, const char *name,
	  char *err, size_t errlen)
{
	PACL d = NULL, s = NULL;
	PSECURITY_DESCRIPTOR sd = NULL;
	SECURITY_DESCRIPTOR_CONTROL ctl = 0;
	DWORD rev, e;
	char why[300];
	int rc;

	win_acl_init(dacl, 'D');
	win_acl_init(label, 'S');
	e = GetNamedSecurityInfoW(path, SE_FILE_OBJECT,
				  DACL_SECURITY_INFORMATION | LABEL_SECURITY_INFORMATION, NULL, NULL, &d,
				  &s, &sd);
	if (e != ERROR_SUCCESS)
		return rt_error(err, errlen, -EIO, "%s: cannot read its ACL: %s", name,
				winx_strerror(e, why, sizeof(why)));
	GetSecurityDescriptorControl(sd, &ctl, &rev);
	if (!d) {
		LocalFree(sd);
		/* A NULL DACL lets everyone in: there is no list to add to,
		 * and making one would lock out whoever relies on it. */
		return rt_error(err, errlen, -ENOTSUP, "%s: has no DACL (open to everyone); refusing to edit it",
				name);
	}
	rc = list_from_binary(d, 'D', dacl);
	if (rc == 0)
		rc = list_from_binary(s, 'S', label);
	dacl->is_protected = (ctl & SE_DACL_PROTECTED) != 0;
	dacl->auto_inherited = (ctl & SE_DACL_AUTO_INHERITED) != 0;
	LocalFree(sd);
	if (rc == -ENOTSUP)
		return rt_error(err, errlen, rc,
				"%s: its ACL holds ACE types heel does not edit (object or callback ACEs)",
				name);
	if (rc < 0)
		return rt_error(err, errlen, rc, "%s: cannot decode its ACL", name);
	return 0;
}

static int
write_acl(const wchar_t *path, const struct win_acl *l, const char *name, char *err, size_t errlen)
{
	PACL acl = list_to_binary(l);
	SECURITY_INFORMATION what;
	DWORD e;
	char why[300];

	if (!acl)
		return rt_error(err, errlen, -ENOMEM, "%s: cannot build the ACL", name);
	if (l->part == 'D')
		what = DACL_SECURITY_INFORMATION |
		       (l->is_protected ? PROTECTED_DACL_SECURITY_INFORMATION
					: UNPROTECTED_DACL_SECURITY_INFORMATION);
	else
		what = LABEL_SECURITY_INFORMATION;
	e = SetNamedSecurityInfoW((LPWSTR)path, SE_FILE_OBJECT, what, NULL, NULL,
				  l->part == 'D' ? acl : NULL, l->part == 'S' ? acl : NULL);
	LocalFree(acl);
	if (e != ERROR_SUCCESS)
		return rt_error(err, errlen, -EIO, "%s: cannot write its %s: %s", name,
				l->part == 'D' ? "DACL" : "integrity label",
				winx_strerror(e, why, sizeof(why)));
	return 0;
}

/* What the path is, opened without following a final link: its final
 * name (links in its ancestors resolved), identity and kind. -ENOENT when
 * it does not exist. */
int
winx_identify(const char *path, char *final, size_t finallen, char *file_id, size_t idlen, bool *is_dir,
	 char *err, size_t errlen)
{
	wchar_t *w = winx_wide(path), buf[WIN_PATH_MAX];
	BY_HANDLE_FILE_INFORMATION info;
	FILE_ID_INFO fid;
	char why[300], *u;
	HANDLE h;
	DWORD n;
	int rc;

	if (!w)
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	h = CreateFileW(w, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
			NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT,
			NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		DWORD e = GetLastError();

		if (e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND)
			return -ENOENT;
		return rt_error(err, errlen, -EIO, "%s: cannot open: %s", path,
				winx_strerror(e, why, sizeof(why)));
	}
	if (!GetFileInformationByHandle(h, &info)) {
		rc = rt_error(err, errlen, -EIO, "%s: cannot stat: %s", path,
			      winx_strerror(GetLastError(), why, sizeof(why)));
		goto out;
	}
	/* The ACEs would land on the link, or its target would be one the
	 * policy never named: refuse both. */
	if (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) {
		rc = rt_error(err, errlen, -ELOOP,
			      "%s: is a link or junction; name its target in the policy", path);
		goto out;
	}
	*is_dir = (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
	if (GetFileInformationByHandleEx(h, FileIdInfo, &fid, sizeof(fid))) {
		int o = snprintf(file_id, idlen, "0x%016llx:", (unsigned long long)fid.VolumeSerialNumber);

		for (int i = 15; i >= 0 && o > 0 && (size_t)o < idlen; i--)
			o += snprintf(file_id + o, idlen - (size_t)o, "%02x", fid.FileId.Identifier[i]);
	} else {
		/* Older file systems (and Wine): the 64-bit index. */
		snprintf(file_id, idlen, "0x%08lx:%08lx%08lx", (unsigned long)info.dwVolumeSerialNumber,
			 (unsigned long)info.nFileIndexHigh, (unsigned long)info.nFileIndexLow);
	}
	n = GetFinalPathNameByHandleW(h, buf, WIN_PATH_MAX, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	if (n == 0 || n >= WIN_PATH_MAX) {
		rc = rt_error(err, errlen, -EIO, "%s: no final path: %s", path,
			      winx_strerror(GetLastError(), why, sizeof(why)));
		goto out;
	}
	u = winx_utf8(wcsncmp(buf, L"\\\\?\\", 4) == 0 ? buf + 4 : buf);
	/* "\\?\UNC\..." comes out as "UNC\...": refused as relative. */
	rc = u ? win_path_normalize(u, final, finallen, err, errlen)
	       : rt_error(err, errlen, -EINVAL, "%s: final path is not valid UTF-16", path);
	free(u);
out:
	CloseHandle(h);
	return rc;
}

/* "D:(...)" and, when a label was set, "S:(ML;...)" after it. */
static int
aces_text(const struct win_ace *want, size_t n, const struct win_ace *label, char *out, size_t len)
{
	struct win_acl l = {.part = 'D', .aces = (struct win_ace *)want, .n = n};
	struct win_acl s = {.part = 'S', .aces = (struct win_ace *)label, .n = label ? 1 : 0};
	size_t used;

	if (win_acl_format(&l, out, len) < 0)
		return -ENOSPC;
	used = strlen(out);
	if (label && win_acl_format(&s, out + used, len - used) < 0)
		return -ENOSPC;
	return 0;
}

static int
apply_op(struct winx_run *r, const struct win_op *op, const char *const *pkg, size_t npkg,
	 struct win_journal *const *live, size_t nlive, char *err, size_t errlen)
{
	char final[WIN_PATH_MAX], file_id[80], aces[4096], prev_label[1024], line[8192];
	struct win_acl dacl, label, next;
	struct win_ace *want = NULL, low;
	const struct win_jentry *holder;
	struct win_jentry e, *grown;
	bool is_dir = false, prev_protected;
	size_t nwant;
	wchar_t *wpath = NULL;
	int rc;

	rc = winx_identify(op->path, final, sizeof(final), file_id, sizeof(file_id), &is_dir, err, errlen);
	if (rc == -ENOENT && op->skip_missing)
		return 0;
	if (rc == -ENOENT)
		return rt_error(err, errlen, rc, "%s: does not exist (manifest entry %zu)", op->path,
				op->entry);
	if (rc < 0)
		return rc;
	wpath = winx_wide(final);
	if (!wpath)
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	if ((rc = read_acls(wpath, &dacl, &label, final, err, errlen)) < 0)
		goto out;
	/* heel never changes the protected flag; it is journalled so that
	 * a reverted path can be checked against it. */
	prev_protected = dacl.is_protected;
	want = malloc((op->nwant ? op->nwant : 1) * sizeof(*want));
	if (!want) {
		rc = rt_error(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	memcpy(want, op->want, op->nwant * sizeof(*want));
	nwant = op->nwant;
	if (!is_dir)
		win_plan_for_file(want, nwant);
	/* Another live run of this policy holds the path: what it found
	 * there is what the last run out must put back, and what it wrote
	 * stays (the union), since both share the SID. */
	holder = NULL;
	if (win_journal_holders((const struct win_journal *const *)live, nlive, &r->j, r->j.sid, final,
				&holder) &&
	    win_plan_union(&want, &nwant, holder->aces) < 0) {
		rc = rt_error(err, errlen, -EINVAL, "%s: another run's journal entry is unreadable", final);
		goto out;
	}
	nwant = win_plan_needed(&dacl, pkg, npkg, want, nwant, op->label == WIN_LABEL_LOW);
	if (nwant == 0 && op->label != WIN_LABEL_LOW)
		goto out; /* already so, or nothing the container could reach */
	if (op->label == WIN_LABEL_LOW)
		win_plan_low_label(is_dir, &low);
	if (holder) {
		snprintf(prev_label, sizeof(prev_label), "%s", holder->prev_label);
		prev_protected = holder->prev_protected;
	} else if (label.n == 0) {
		snprintf(prev_label, sizeof(prev_label), "-");
	} else if (win_acl_format(&label, prev_label, sizeof(prev_label)) < 0) {
		rc = rt_error(err, errlen, -ENOSPC, "%s: its label is too long to journal", final);
		goto out;
	}
	if (aces_text(want, nwant, op->label == WIN_LABEL_LOW ? &low : NULL, aces, sizeof(aces)) < 0) {
		rc = rt_error(err, errlen, -ENOSPC, "%s: too many ACEs to journal", final);
		goto out;
	}
	e = (struct win_jentry){.path = final, .file_id = file_id, .prev_protected = prev_protected,
				.prev_label = prev_label, .aces = aces, .status = WIN_J_PENDING};
	if ((rc = win_journal_line_pending(line, sizeof(line), r->j.n, &e)) < 0) {
		rc = rt_error(err, errlen, rc, "%s: cannot be written in the journal", final);
		goto out;
	}
	/* In memory first, so that a failure from here on is reverted. */
	grown = realloc(r->j.entries, (r->j.n + 1) * sizeof(*grown));
	if (grown) {
		r->j.entries = grown;
		memset(&grown[r->j.n], 0, sizeof(grown[0]));
	}
	if (!grown || !(grown[r->j.n].path = strdup(final)) ||
	    !(grown[r->j.n].file_id = strdup(file_id)) ||
	    !(grown[r->j.n].prev_label = strdup(prev_label)) || !(grown[r->j.n].aces = strdup(aces))) {
		if (grown) {
			free(grown[r->j.n].path);
			free(grown[r->j.n].file_id);
			free(grown[r->j.n].prev_label);
		}
		rc = rt_error(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	grown[r->j.n].prev_protected = e.prev_protected;
	grown[r->j.n].status = WIN_J_PENDING;
	r->j.n++;
	if ((rc = winx_journal_append(r, line, err, errlen)) < 0)
		goto out;
	if ((rc = win_acl_converge(&dacl, r->j.sid, want, nwant, &next, err, errlen)) < 0)
		goto out;
	rc = write_acl(wpath, &next, final, err, errlen);
	win_acl_free(&next);
	if (rc < 0)
		goto out;
	if (op->label == WIN_LABEL_LOW) {
		struct win_acl s = {.part = 'S', .aces = &low, .n = 1};

		if ((rc = write_acl(wpath, &s, final, err, errlen)) < 0)
			goto out;
	}
	if ((rc = win_journal_line_status(line, sizeof(line), r->j.n - 1, WIN_J_APPLIED)) < 0 ||
	    (rc = winx_journal_append(r, line, err, errlen)) < 0)
		goto out;
	r->j.entries[r->j.n - 1].status = WIN_J_APPLIED;
out:
	free(want);
	free(wpath);
	win_acl_free(&dacl);
	win_acl_free(&label);
	return rc;
}

int
winx_acl_apply(struct winx_run *r, const struct win_manifest *m, const struct win_plan *plan,
	       char *err, size_t errlen)
{
	struct win_journal **live = NULL;
	const char **pkg = calloc(m->ncapabilities + 2, sizeof(*pkg));
	size_t nlive = 0, npkg = 0;
	int rc;

	if (!pkg)
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	/* Who passes the package half of the access check. */
	pkg[npkg++] = m->sid;
	pkg[npkg++] = m->lpac ? WIN_SID_ALL_RESTRICTED_APP_PACKAGES : WIN_SID_ALL_APP_PACKAGES;
	for (size_t i = 0; i < m->ncapabilities; i++)
		if (strncmp(m->capabilities[i], "S-1-", 4) == 0)
			pkg[npkg++] = m->capabilities[i];
	if ((rc = winx_journal_live(r, &live, &nlive, err, errlen)) < 0) {
		free(pkg);
		return rc;
	}
	/* Grants first: whether a deny is needed depends on what the grants
	 * above it pass down. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < plan->nops && rc == 0; i++)
			if (plan->ops[i].has_allow == (pass == 0))
				rc = apply_op(r, &plan->ops[i], pkg, npkg, live, nlive, err, errlen);
	winx_journal_list_free(live, nlive);
	free(pkg);
	return rc;
}

int
winx_acl_revert_entry(const char *sid, const struct win_jentry *e, char *err, size_t errlen)
{
	struct win_acl dacl, label, next;
	char final[WIN_PATH_MAX], id[80];
	bool is_dir;
	wchar_t *w;
	int rc;

	/* Gone, or another object under the same name (deleted and made
	 * again): the ACEs heel wrote went with the old one. */
	rc = winx_identify(e->path, final, sizeof(final), id, sizeof(id), &is_dir, err, errlen);
	if (rc == -ENOENT || (rc == 0 && strcmp(e->file_id, "-") != 0 && strcmp(id, e->file_id) != 0))
		return 1;
	if (rc < 0)
		return rc;
	w = winx_wide(e->path);
	if (!w)
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	win_acl_init(&dacl, 'D');
	win_acl_init(&label, 'S');
	rc = read_acls(w, &dacl, &label, e->path, err, errlen);
	if (rc == 0 && (rc = win_acl_revert(&dacl, sid, &next, err, errlen)) == 0) {
		rc = write_acl(w, &next, e->path, err, errlen);
		win_acl_free(&next);
	}
	/* The label only where the run set one (its ACE text says so). */
	if (rc == 0 && strstr(e->aces, "S:")) {
		struct win_acl prev;

		rc = win_acl_parse(strcmp(e->prev_label, "-") == 0 ? "" : e->prev_label, &prev, err, errlen);
		if (rc == 0)
			rc = write_acl(w, &prev, e->path, err, errlen);
		win_acl_free(&prev);
	}
	win_acl_free(&dacl);
	win_acl_free(&label);
	free(w);
	return rc;
}

int
winx_acl_revert(struct winx_run *r, char *err, size_t errlen)
{
	struct win_journal **live = NULL;
	size_t nlive = 0, *idx = NULL, k;
	char line[256], scratch[512];
	int rc, first = 0;

	if (r->j.n == 0)
		return 0;
	if ((rc = winx_journal_live(r, &live, &nlive, err, errlen)) < 0)
		return rc;
	idx = malloc(r->j.n * sizeof(*idx));
	if (!idx) {
		winx_journal_list_free(live, nlive);
		return rt_error(err, errlen, -ENOMEM, "out of memory");
	}
	k = win_journal_replay(&r->j, idx);
	for (size_t i = 0; i < k; i++) {
		struct win_jentry *e = &r->j.entries[idx[i]];

		/* Held by another live run of this policy: it reverts when it
		 * is the last one out. */
		if (!win_journal_holders((const struct win_journal *const *)live, nlive, &r->j, r->j.sid,
					 e->path, NULL) &&
		    (rc = winx_acl_revert_entry(r->j.sid, e, first ? scratch : err,
						first ? sizeof(scratch) : errlen)) < 0) {
			/* Keep going: every path that can be put back is;
			 * the journal keeps the rest for --recover. */
			if (!first)
				first = rc;
			continue;
		}
		if (win_journal_line_status(line, sizeof(line), idx[i], WIN_J_REVERTED) == 0 &&
		    winx_journal_append(r, line, NULL, 0) == 0)
			e->status = WIN_J_REVERTED;
	}
	free(idx);
	winx_journal_list_free(live, nlive);
	return first;
}
#endif
