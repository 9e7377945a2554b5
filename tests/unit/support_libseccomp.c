/* SPDX-License-Identifier: MIT
 * heel's seccomp model through libseccomp (see support_libseccomp.h):
 * test and benchmark code, linked into the unit tests and tests/bench,
 * never into heelc. */
#include "support_libseccomp.h"

#include <errno.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* libseccomp rules may only deny (an action equal to the default is
 * refused), take one comparison per argument, and have no "not in". So a
 * rule with clauses is rewritten as its deny region: the domain of each
 * argument is cut into cells (each listed value, and "the rest"), the
 * model is evaluated on one representative per combination of cells, and
 * each combination that is denied becomes libseccomp rules. "The rest" is
 * expressed exactly as aligned blocks (CIDR-style) of the masked value,
 * each one SCMP_CMP_MASKED_EQ; a mask below 2^32 ignores the upper word,
 * which is the 32-bit semantics heel wants. */

#define LS_MAX_ARGS 6
#define LS_MAX_CELLS (SCP_MAX_CLAUSES * SCP_MAX_CONDS * SCP_MAX_VALUES + 1)
#define LS_MAX_BLOCKS 130

struct ls_arg {
	bool used;
	uint64_t mask;
	uint8_t width;
	size_t ncells;               /* values, then "rest" when non-empty */
	uint64_t cell_value[LS_MAX_CELLS]; /* masked value (the rest: a representative) */
	bool has_rest;
};

struct ls_block {
	uint64_t mask, value;
};

/* Bit positions of `mask`, highest first. */
static unsigned
mask_bits(uint64_t mask, unsigned *bits)
{
	unsigned n = 0;

	for (int b = 63; b >= 0; b--)
		if (mask & (1ull << b))
			bits[n++] = (unsigned)b;
	return n;
}

static uint64_t
compress(uint64_t v, const unsigned *bits, unsigned n)
{
	uint64_t c = 0;

	for (unsigned j = 0; j < n; j++)
		if (v & (1ull << bits[j]))
			c |= 1ull << (n - 1 - j);
	return c;
}

static uint64_t
deposit(uint64_t c, const unsigned *bits, unsigned n)
{
	uint64_t v = 0;

	for (unsigned j = 0; j < n; j++)
		if (c & (1ull << (n - 1 - j)))
			v |= 1ull << bits[j];
	return v;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The masked values of `arg` not in its listed values, as aligned blocks
 * in the compressed space of the mask, mapped back to (mask, value). */
static int
rest_blocks(const struct ls_arg *a, struct ls_block *out, size_t *nout)
{
	unsigned bits[64], n = mask_bits(a->mask, bits);
	uint64_t vals[LS_MAX_CELLS], lo = 0, top;
	size_t nv = 0;

	*nout = 0;
	if (n > 32)
		return -ENOTSUP;
	top = (1ull << n) - 1;
	for (size_t i = 0; i < a->ncells - (a->has_rest ? 1 : 0); i++)
		vals[nv++] = compress(a->cell_value[i], bits, n);
	qsort(vals, nv, sizeof(vals[0]), cmp_u64);
	for (size_t i = 0; i <= nv; i++) {
		uint64_t hi = i < nv ? vals[i] : top + 1; /* exclusive */

		while (lo < hi) {
			unsigned s = 0;

			/* Largest aligned block starting at lo inside [lo, hi). */
			while (s < n && (lo & ((1ull << (s + 1)) - 1)) == 0 &&
			       lo + (1ull << (s + 1)) <= hi)
				s++;
			if (*nout == LS_MAX_BLOCKS)
				return -ENOTSUP;
			out[*nout].mask = deposit(top & ~((1ull << s) - 1), bits, n);
			out[*nout].value = deposit(lo, bits, n);
			(*nout)++;
			lo += 1ull << s;
		}
		if (i < nv)
			lo = vals[i] + 1;
	}
	return 0;
}

static int
ls_add_cell(struct ls_arg *a, uint64_t v)
{
	for (size_t i = 0; i < a->ncells; i++)
		if (a->cell_value[i] == v)
			return 0;
	if (a->ncells == LS_MAX_CELLS - 1)
		return -ENOTSUP;
	a->cell_value[a->ncells++] = v;
	return 0;
}

/* Emits the libseccomp rules for one denied combination of cells; an arg
 * in its "rest" cell multiplies the rule by its blocks. */
static int
ls_emit_combo(scmp_filter_ctx ctx, int nr, uint32_t action, struct ls_arg *args,
	      const size_t *cell, const bool *dontcare)
{
	struct scmp_arg_cmp cmp[LS_MAX_ARGS];
	struct ls_block blocks[LS_MAX_ARGS][LS_MAX_BLOCKS];
	size_t nblocks[LS_MAX_ARGS], idx[LS_MAX_ARGS] = { 0 };
	unsigned argno[LS_MAX_ARGS], n = 0;
	int ret;

	for (unsigned a = 0; a < LS_MAX_ARGS; a++) {
		struct ls_arg *la = &args[a];

		if (!la->used || dontcare[a])
			continue;
		argno[n] = a;
		if (la->has_rest && cell[a] == la->ncells - 1) {
			ret = rest_blocks(la, blocks[n], &nblocks[n]);
			if (ret < 0)
				return ret;
		} else {
			blocks[n][0].mask = la->mask;
			blocks[n][0].value = la->cell_value[cell[a]];
			nblocks[n] = 1;
		}
		if (nblocks[n] == 0)
			return 0;            /* empty cell: nothing to deny */
		n++;
	}
	for (;;) {
		for (unsigned i = 0; i < n; i++)
			cmp[i] = (struct scmp_arg_cmp){ argno[i], SCMP_CMP_MASKED_EQ,
							blocks[i][idx[i]].mask,
							blocks[i][idx[i]].value };
		ret = seccomp_rule_add_array(ctx, action, nr, n, cmp);
		if (ret < 0)
			return ret;
		/* Next combination of blocks. */
		unsigned i = 0;

		while (i < n && ++idx[i] == nblocks[i])
			idx[i++] = 0;
		if (i == n)
			return 0;
	}
}

/* The action of `r` when arguments [0, from) sit in the given cells, if
 * it is the same whatever the others hold; sets *constant. */
static uint32_t
ls_constant(const struct scp_rule *r, const struct ls_arg *args, size_t *cell,
	    unsigned from, bool *constant)
{
	size_t ncombo = 1, saved[LS_MAX_ARGS];
	uint32_t first = 0;

	memcpy(saved, cell, sizeof(saved));
	for (unsigned a = from; a < LS_MAX_ARGS; a++)
		if (args[a].used)
			ncombo *= args[a].ncells;
	*constant = true;
	for (size_t k = 0; k < ncombo && *constant; k++) {
		struct bpf_sim_data d = { 0 };
		size_t rem = k;
		uint32_t act;

		for (unsigned a = 0; a < LS_MAX_ARGS; a++) {
			if (!args[a].used)
				continue;
			if (a >= from) {
				cell[a] = rem % args[a].ncells;
				rem /= args[a].ncells;
			}
			d.args[a] = args[a].cell_value[cell[a]];
		}
		act = scp_rule_eval(r, &d);
		if (k == 0)
			first = act;
		else if (act != first)
			*constant = false;
	}
	memcpy(cell, saved, sizeof(saved));
	return first;
}

/* Splits on the arguments in order, stopping as soon as the remaining
 * ones cannot change the result: the terms partition the argument space,
 * and only denied parts become libseccomp rules. */
static int
ls_split(scmp_filter_ctx ctx, int nr, const struct scp_rule *r,
	 struct ls_arg *args, size_t *cell, unsigned from)
{
	bool constant, dontcare[LS_MAX_ARGS];
	uint32_t act = ls_constant(r, args, cell, from, &constant);
	int ret;

	if (constant) {
		if (act == SCP_ALLOW)
			return 0;
		for (unsigned a = 0; a < LS_MAX_ARGS; a++)
			dontcare[a] = a >= from;
		return ls_emit_combo(ctx, nr, act, args, cell, dontcare);
	}
	while (from < LS_MAX_ARGS && !args[from].used)
		from++;
	if (from == LS_MAX_ARGS)
		return -EINVAL;
	for (size_t c = 0; c < args[from].ncells; c++) {
		cell[from] = c;
		ret = ls_split(ctx, nr, r, args, cell, from + 1);
		if (ret < 0)
			return ret;
	}
	cell[from] = 0;
	return 0;
}

static int
ls_rule(scmp_filter_ctx ctx, int nr, const struct scp_rule *r)
{
	struct ls_arg args[LS_MAX_ARGS] = { 0 };
	size_t cell[LS_MAX_ARGS] = { 0 };
	int ret;

	if (r->nclauses == 0)
		return r->action == SCP_ALLOW ? 0 : seccomp_rule_add(ctx, r->action, nr, 0);

	for (uint8_t i = 0; i < r->nclauses; i++) {
		for (uint8_t j = 0; j < r->clauses[i].nconds; j++) {
			const struct scp_cond *c = &r->clauses[i].conds[j];
			struct ls_arg *a = &args[c->arg % LS_MAX_ARGS];
			uint64_t mask = c->width == 32 ? c->mask & 0xffffffffu : c->mask;

			if (a->used && (a->mask != mask || a->width != c->width))
				return -ENOTSUP; /* two masks on one argument */
			a->used = true;
			a->mask = mask;
			a->width = c->width;
			for (uint8_t v = 0; v < c->nvalues; v++) {
				if (c->values[v] & ~mask)
					continue;
				ret = ls_add_cell(a, c->values[v]);
				if (ret < 0)
					return ret;
			}
		}
	}
	/* "The rest": the smallest masked value not listed, if any. */
	for (unsigned a = 0; a < LS_MAX_ARGS; a++) {
		unsigned bits[64], n;
		uint64_t vals[LS_MAX_CELLS], c = 0;

		if (!args[a].used)
			continue;
		n = mask_bits(args[a].mask, bits);
		if (n > 32)
			return -ENOTSUP;
		for (size_t i = 0; i < args[a].ncells; i++)
			vals[i] = compress(args[a].cell_value[i], bits, n);
		qsort(vals, args[a].ncells, sizeof(vals[0]), cmp_u64);
		for (size_t i = 0; i < args[a].ncells && vals[i] == c; i++)
			c++;
		if (c <= (1ull << n) - 1) {
			args[a].cell_value[args[a].ncells++] = deposit(c, bits, n);
			args[a].has_rest = true;
		}
	}

	return ls_split(ctx, nr, r, args, cell, 0);
}

static uint32_t
scmp_arch_of(enum scp_arch arch)
{
	return arch == SCP_X86_64 ? SCMP_ARCH_X86_64 : SCMP_ARCH_AARCH64;
}

static int
read_bpf(int fd, struct bpf_prog *out)
{
	struct stat st;
	ssize_t got;
	size_t size;

	if (fstat(fd, &st) < 0)
		return -errno;
	size = (size_t)st.st_size;
	if (size == 0 || size % sizeof(struct bpf_sim_insn) != 0)
		return -EINVAL;
	out->insns = malloc(size);
	if (out->insns == NULL)
		return -ENOMEM;
	got = pread(fd, out->insns, size, 0);
	if (got < 0 || (size_t)got != size) {
		free(out->insns);
		out->insns = NULL;
		return got < 0 ? -errno : -EIO;
	}
	out->len = size / sizeof(struct bpf_sim_insn);
	return 0;
}

int
bpf_generate_libseccomp(const struct scp_model *m, int optimize,
			struct bpf_prog *out, size_t *nskipped)
{
	scmp_filter_ctx ctx;
	size_t skipped = 0;
	int ret, fd = -1;

	memset(out, 0, sizeof(*out));
	if (m == NULL || (optimize != 1 && optimize != 2))
		return -EINVAL;
	ctx = seccomp_init(m->default_action);
	if (ctx == NULL)
		return -ENOMEM;
	ret = seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE);
	if (ret == 0)
		ret = seccomp_arch_add(ctx, scmp_arch_of(m->arch));
	if (ret == 0)
		ret = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, m->badarch_action);
	if (ret == 0)
		ret = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	if (ret == 0)
		ret = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, (uint32_t)optimize);
	if (ret < 0)
		goto out;

	for (size_t i = 0; i < m->nrules; i++) {
		/* By name, as a native (or pseudo) number: libseccomp maps it to
		 * the target arch itself. A number resolved for the target arch
		 * would be re-mapped as if it were native (the setresuid bug). */
		int nr = seccomp_syscall_resolve_name(m->rules[i].name);

		if (nr == __NR_SCMP_ERROR) {
			skipped++;
			continue;
		}
		ret = ls_rule(ctx, nr, &m->rules[i]);
		if (ret < 0)
			goto out;
	}

	fd = memfd_create("heel-bpf", MFD_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	ret = seccomp_export_bpf(ctx, fd);
	if (ret < 0)
		goto out;
	ret = read_bpf(fd, out);
	if (ret == 0)
		out->audit_arch = m->audit_arch;
	if (nskipped != NULL)
		*nskipped = skipped;
out:
	if (fd >= 0)
		close(fd);
	seccomp_release(ctx);
	return ret;
}

