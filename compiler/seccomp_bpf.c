/* SPDX-License-Identifier: MIT
 * Range-based seccomp BPF generator (see seccomp_bpf.h): ranges, a
 * balanced JGE tree, argument blocks, shared RETs, long-jump fixing; plus
 * the cost measurement. */
#include "seccomp_bpf.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf_verify.h"
#include "grow.h"
#include "ir.h"

#define X32_SYSCALL_BIT 0x40000000u
#define NO_SYSCALL 0xffffffffu
#define NEXT (-1)                    /* jump target: the next instruction */

/* ------------------------------------------------------------ assembler */

/* An instruction whose jump targets are labels, resolved at layout. */
struct item {
	uint16_t code;
	uint32_t k;
	int jt, jf;                  /* labels or NEXT (conditional jumps) */
	int ja;                      /* label (JA) */
	size_t id;                   /* stable identity; labels point at ids */
};

struct gen {
	struct item *items;
	size_t n, cap;
	size_t next_id;
	long *label_id;              /* label -> item id, -1 while unbound */
	size_t nlabels, cap_labels;
	int *pending;                /* labels bound to the next emitted item */
	size_t npending, cap_pending;
	struct ret {
		uint32_t action;
		int label;
	} *rets;                     /* one RET per distinct action */
	size_t nrets, cap_rets;
	size_t nlong;
	int err;
};

static int
new_label(struct gen *g)
{
	long *l;

	if (g->err)
		return 0;
	l = grow_array(g->label_id, &g->cap_labels, g->nlabels + 1, sizeof(*l), 0);
	if (l == NULL) {
		g->err = -ENOMEM;
		return 0;
	}
	g->label_id = l;
	g->label_id[g->nlabels] = -1;
	return (int)g->nlabels++;
}

static void
bind(struct gen *g, int label)
{
	int *p;

	if (g->err)
		return;
	p = grow_array(g->pending, &g->cap_pending, g->npending + 1, sizeof(*p), 0);
	if (p == NULL) {
		g->err = -ENOMEM;
		return;
	}
	g->pending = p;
	g->pending[g->npending++] = label;
}

static void
emit(struct gen *g, uint16_t code, uint32_t k, int jt, int jf, int ja)
{
	struct item *it;

	if (g->err)
		return;
	it = grow_array(g->items, &g->cap, g->n + 1, sizeof(*it), 0);
	if (it == NULL) {
		g->err = -ENOMEM;
		return;
	}
	g->items = it;
	g->items[g->n] = (struct item){ code, k, jt, jf, ja, g->next_id };
	for (size_t i = 0; i < g->npending; i++)
		g->label_id[g->pending[i]] = (long)g->next_id;
	g->npending = 0;
	g->next_id++;
	g->n++;
}

static void
emit_stmt(struct gen *g, uint16_t code, uint32_t k)
{
	emit(g, code, k, NEXT, NEXT, NEXT);
}

static void
emit_jump(struct gen *g, uint16_t op, uint32_t k, int jt, int jf)
{
	emit(g, (uint16_t)(BPF_JMP | op | BPF_K), k, jt, jf, NEXT);
}

static void
emit_ja(struct gen *g, int label)
{
	emit(g, BPF_JMP | BPF_JA, 0, NEXT, NEXT, label);
}

/* The label of the one RET of `action`; the RETs are emitted last. */
static int
ret_label(struct gen *g, uint32_t action)
{
	struct ret *r;

	if (g->err)
		return 0;
	for (size_t i = 0; i < g->nrets; i++)
		if (g->rets[i].action == action)
			return g->rets[i].label;
	r = grow_array(g->rets, &g->cap_rets, g->nrets + 1, sizeof(*r), 0);
	if (r == NULL) {
		g->err = -ENOMEM;
		return 0;
	}
	g->rets = r;
	g->rets[g->nrets].action = action;
	g->rets[g->nrets].label = new_label(g);
	return g->rets[g->nrets++].label;
}

static bool
is_cond(uint16_t code)
{
	return BPF_CLASS(code) == BPF_JMP && BPF_OP(code) != BPF_JA;
}

static int
insert_after(struct gen *g, size_t p, struct item it)
{
	struct item *items = grow_array(g->items, &g->cap, g->n + 1, sizeof(*items), 0);

	if (items == NULL)
		return g->err = -ENOMEM;
	g->items = items;
	memmove(&g->items[p + 2], &g->items[p + 1], (g->n - p - 1) * sizeof(*items));
	it.id = g->next_id++;
	g->items[p + 1] = it;
	g->n++;
	return 0;
}

/* Positions of every item id in the current order. */
static long *
positions(struct gen *g)
{
	long *pos = malloc((g->next_id ? g->next_id : 1) * sizeof(*pos));

	if (pos == NULL) {
		g->err = -ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < g->next_id; i++)
		pos[i] = -1;
	for (size_t i = 0; i < g->n; i++)
		pos[g->items[i].id] = (long)i;
	return pos;
}

/* jt/jf are 8 bits. A conditional jump further than 255 instructions gets
 * a RET copy (when it goes to a RET: one instruction less at run time) or
 * a JA right after it. Inserting only lengthens other jumps, so repeating
 * until nothing changes terminates. */
static int
fix_long_jumps(struct gen *g)
{
	bool changed = true;

	while (changed && !g->err) {
		long *pos = positions(g);

		if (pos == NULL)
			return g->err;
		changed = false;
		for (size_t p = 0; p < g->n && !changed; p++) {
			struct item *it = &g->items[p];
			int *branch[2] = { &it->jt, &it->jf };

			if (!is_cond(it->code))
				continue;
			for (int b = 0; b < 2 && !changed; b++) {
				int label = *branch[b];
				long t;
				struct item copy, *target;
				size_t q;

				if (label == NEXT)
					continue;
				t = pos[g->label_id[label]];
				if (t - (long)p - 1 <= 255)
					continue;
				target = &g->items[t];
				/* A RET of the same action already in reach? */
				for (q = p + 1; q < g->n && q <= p + 256; q++) {
					if (g->items[q].code == target->code &&
					    BPF_CLASS(target->code) == BPF_RET &&
					    g->items[q].k == target->k)
						break;
				}
				if (q < g->n && q <= p + 256) {
					int l = new_label(g);

					if (g->err)
						break;
					g->label_id[l] = (long)g->items[q].id;
					*branch[b] = l;
					changed = true;
					break;
				}
				if (BPF_CLASS(target->code) == BPF_RET)
					copy = *target;
				else
					copy = (struct item){ BPF_JMP | BPF_JA, 0, NEXT, NEXT,
							      label, 0 };
				{
					int l = new_label(g), next = NEXT;

					/* NEXT means "p + 1": pin the other branch to
					 * the item that is there now, before the
					 * insertion moves it. */
					if (*branch[1 - b] == NEXT) {
						next = new_label(g);
						if (g->err)
							break;
						g->label_id[next] = (long)g->items[p + 1].id;
						*branch[1 - b] = next;
					}
					if (g->err || insert_after(g, p, copy) < 0)
						break;
					/* insert_after may have moved items. */
					g->label_id[l] = (long)g->items[p + 1].id;
					if (b == 0)
						g->items[p].jt = l;
					else
						g->items[p].jf = l;
				}
				g->nlong++;
				changed = true;
			}
		}
		free(pos);
	}
	return g->err;
}

static int
resolve(struct gen *g, struct bpf_prog *out)
{
	long *pos;
	struct bpf_sim_insn *insns;

	if (g->n > BPF_SIM_MAXINSNS)
		return -E2BIG;
	pos = positions(g);
	if (pos == NULL)
		return g->err;
	insns = calloc(g->n, sizeof(*insns));
	if (insns == NULL) {
		free(pos);
		return -ENOMEM;
	}
	for (size_t p = 0; p < g->n; p++) {
		const struct item *it = &g->items[p];
		long d;

		insns[p].code = it->code;
		insns[p].k = it->k;
		if (is_cond(it->code)) {
			d = it->jt == NEXT ? 0 : pos[g->label_id[it->jt]] - (long)p - 1;
			insns[p].jt = (uint8_t)d;
			if (d < 0 || d > 255)
				goto bad;
			d = it->jf == NEXT ? 0 : pos[g->label_id[it->jf]] - (long)p - 1;
			insns[p].jf = (uint8_t)d;
			if (d < 0 || d > 255)
				goto bad;
		} else if (it->code == (BPF_JMP | BPF_JA)) {
			d = pos[g->label_id[it->ja]] - (long)p - 1;
			if (d < 0)
				goto bad;
			insns[p].k = (uint32_t)d;
		}
	}
	free(pos);
	out->insns = insns;
	out->len = g->n;
	return 0;
bad:
	free(pos);
	free(insns);
	return -EINVAL;
}

/* ------------------------------------------------------------- the tree */

struct range {
	uint32_t lo, hi;
	uint32_t action;             /* when rule == NULL */
	const struct scp_rule *rule; /* argument-checked call */
};

struct ranges {
	struct range *r;
	size_t n, cap;
	int err;
};

static void
push_range(struct ranges *rs, uint32_t lo, uint32_t hi, uint32_t action,
	   const struct scp_rule *rule)
{
	struct range *r;

	if (rs->err)
		return;
	if (rule == NULL && rs->n > 0) {
		r = &rs->r[rs->n - 1];
		if (r->rule == NULL && r->action == action && r->hi + 1 == lo) {
			r->hi = hi;
			return;
		}
	}
	r = grow_array(rs->r, &rs->cap, rs->n + 1, sizeof(*r), 0);
	if (r == NULL) {
		rs->err = -ENOMEM;
		return;
	}
	rs->r = r;
	rs->r[rs->n++] = (struct range){ lo, hi, action, rule };
}

/* Every number of the tree's domain, in order: [0, 0x3fffffff] on x86_64
 * (the guard took the rest), [0, 0xffffffff] on aarch64. */
static int
build_ranges(const struct scp_model *m, struct ranges *rs)
{
	size_t len;
	const struct scp_syscall *t = scp_table(m->arch, &len);
	uint32_t next = 0;

	for (size_t i = 0; i < len; i++) {
		const struct scp_rule *r = scp_find(m, t[i].nr);

		if (t[i].nr > next)
			push_range(rs, next, t[i].nr - 1, m->unknown_action, NULL);
		if (r == NULL)
			push_range(rs, t[i].nr, t[i].nr, m->default_action, NULL);
		else if (r->nclauses == 0)
			push_range(rs, t[i].nr, t[i].nr, r->action, NULL);
		else
			push_range(rs, t[i].nr, t[i].nr, 0, r);
		next = t[i].nr + 1;
	}
	if (m->arch == SCP_X86_64) {
		push_range(rs, next, X32_SYSCALL_BIT - 1, m->unknown_action, NULL);
	} else {
		push_range(rs, next, NO_SYSCALL - 1, m->unknown_action, NULL);
		push_range(rs, NO_SYSCALL, NO_SYSCALL, SCP_ALLOW, NULL);
	}
	return rs->err;
}

struct tree {
	struct gen *g;
	const struct range *r;
	int *rule_label;             /* per range: block label of a rule leaf */
	unsigned depth;
};

static int
leaf_label(struct tree *t, size_t i)
{
	if (t->r[i].rule == NULL)
		return ret_label(t->g, t->r[i].action);
	if (t->rule_label[i] < 0)
		t->rule_label[i] = new_label(t->g);
	return t->rule_label[i];
}

static int
subtree_label(struct tree *t, size_t lo, size_t hi)
{
	return lo == hi ? leaf_label(t, lo) : new_label(t->g);
}

/* Node for ranges [lo, hi] (lo < hi): nr >= r[mid].lo goes right. The left
 * subtree follows directly, so its first node is reached with jf = 0. */
static void
emit_subtree(struct tree *t, size_t lo, size_t hi, int label, unsigned level)
{
	size_t mid = lo + (hi - lo + 1) / 2;
	int left = subtree_label(t, lo, mid - 1);
	int right = subtree_label(t, mid, hi);

	if (level > t->depth)
		t->depth = level;
	bind(t->g, label);
	emit_jump(t->g, BPF_JGE, t->r[mid].lo, right, left);
	if (mid - 1 > lo)
		emit_subtree(t, lo, mid - 1, left, level + 1);
	if (hi > mid)
		emit_subtree(t, mid, hi, right, level + 1);
}

/* One condition: jumps to `hit` when (arg & mask) is one of the values,
 * to `miss` otherwise (swapped for a negated condition). A 32-bit
 * condition loads only the low word; a 64-bit one compares the high word,
 * then the low word, per value. */
static void
emit_cond(struct gen *g, const struct scp_cond *c, int pass, int fail)
{
	int hit = c->negate ? fail : pass;
	int miss = c->negate ? pass : fail;

	if (c->width == 32) {
		uint32_t m = (uint32_t)c->mask;
		uint8_t nv = 0;
		uint32_t vals[SCP_MAX_VALUES];

		for (uint8_t i = 0; i < c->nvalues; i++)
			if (((uint32_t)c->values[i] & ~m) == 0 && (c->values[i] >> 32) == 0)
				vals[nv++] = (uint32_t)c->values[i];
		if (nv == 0) {
			emit_ja(g, miss);
			return;
		}
		emit_stmt(g, BPF_LD | BPF_W | BPF_ABS, BPF_SIM_DATA_ARG_LO(c->arg));
		if (nv == 1 && vals[0] == 0 && m != 0xffffffffu) {
			/* (a & m) == 0: one JSET, no AND. */
			emit_jump(g, BPF_JSET, m, miss, hit);
			return;
		}
		if (m != 0xffffffffu)
			emit_stmt(g, BPF_ALU | BPF_AND | BPF_K, m);
		for (uint8_t i = 0; i < nv; i++)
			emit_jump(g, BPF_JEQ, vals[i], hit, i + 1 == nv ? miss : NEXT);
		return;
	}

	{
		uint32_t mh = (uint32_t)(c->mask >> 32), ml = (uint32_t)c->mask;
		bool any = false;

		for (uint8_t i = 0; i < c->nvalues; i++) {
			uint32_t vh = (uint32_t)(c->values[i] >> 32);
			uint32_t vl = (uint32_t)c->values[i];
			bool last = true;
			int next_value;

			if ((vh & ~mh) || (vl & ~ml))
				continue;    /* can never match */
			for (uint8_t j = i + 1; j < c->nvalues; j++)
				if (!((uint32_t)(c->values[j] >> 32) & ~mh) &&
				    !((uint32_t)c->values[j] & ~ml))
					last = false;
			next_value = last ? miss : new_label(g);
			any = true;
			if (mh != 0) {
				emit_stmt(g, BPF_LD | BPF_W | BPF_ABS, BPF_SIM_DATA_ARG_HI(c->arg));
				if (mh != 0xffffffffu)
					emit_stmt(g, BPF_ALU | BPF_AND | BPF_K, mh);
				emit_jump(g, BPF_JEQ, vh, ml != 0 ? NEXT : hit, next_value);
			}
			if (ml != 0) {
				emit_stmt(g, BPF_LD | BPF_W | BPF_ABS, BPF_SIM_DATA_ARG_LO(c->arg));
				if (ml != 0xffffffffu)
					emit_stmt(g, BPF_ALU | BPF_AND | BPF_K, ml);
				emit_jump(g, BPF_JEQ, vl, hit, next_value);
			}
			if (mh == 0 && ml == 0)
				emit_ja(g, hit);
			if (!last)
				bind(g, next_value);
		}
		if (!any)
			emit_ja(g, miss);
	}
}

/* First clause that holds decides; none: the rule's own action. */
static void
emit_rule_block(struct gen *g, const struct scp_rule *r, int label)
{
	bind(g, label);
	for (uint8_t i = 0; i < r->nclauses; i++) {
		const struct scp_clause *c = &r->clauses[i];
		bool last_clause = i + 1 == r->nclauses;
		int next_clause = last_clause ? ret_label(g, r->action) : new_label(g);

		for (uint8_t j = 0; j < c->nconds; j++) {
			bool last_cond = j + 1 == c->nconds;
			int pass = last_cond ? ret_label(g, c->action) : new_label(g);

			emit_cond(g, &c->conds[j], pass, next_clause);
			if (!last_cond)
				bind(g, pass);
		}
		if (c->nconds == 0)
			emit_ja(g, ret_label(g, c->action));
		if (!last_clause)
			bind(g, next_clause);
	}
}

int
bpf_generate(const struct scp_model *m, struct bpf_prog *out,
	     struct bpf_gen_info *info)
{
	struct gen g = { 0 };
	struct ranges rs = { 0 };
	struct tree t = { 0 };
	char msg[BPF_VERIFY_MSG_MAX];
	int nr_label, ret, root;

	memset(out, 0, sizeof(*out));
	if (info != NULL)
		memset(info, 0, sizeof(*info));
	if (m == NULL)
		return -EINVAL;
	ret = build_ranges(m, &rs);
	if (ret < 0)
		goto out;
	t.g = &g;
	t.r = rs.r;
	t.rule_label = malloc(rs.n * sizeof(*t.rule_label));
	if (t.rule_label == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < rs.n; i++)
		t.rule_label[i] = -1;

	/* The arch first: an i386 (int 0x80) or other foreign entry uses
	 * another numbering, so nothing below would mean anything to it. The
	 * prologue keeps its own RETs right here, so its jumps are never long
	 * and its shape is the fixed one bpf_verify() checks. */
	nr_label = new_label(&g);
	emit_stmt(&g, BPF_LD | BPF_W | BPF_ABS, BPF_SIM_DATA_ARCH);
	emit_jump(&g, BPF_JEQ, m->audit_arch, nr_label, NEXT);
	emit_stmt(&g, BPF_RET | BPF_K, m->badarch_action);
	bind(&g, nr_label);
	emit_stmt(&g, BPF_LD | BPF_W | BPF_ABS, BPF_SIM_DATA_NR);
	root = subtree_label(&t, 0, rs.n - 1);
	if (m->arch == SCP_X86_64) {
		int minus_one = new_label(&g);

		/* x32 syscalls share AUDIT_ARCH_X86_64 and carry 0x40000000:
		 * kafel and minijail deny-lists let 0x40000001 (x32 write)
		 * through; here they die. -1 is "no syscall" (tracers). */
		emit_jump(&g, BPF_JGE, X32_SYSCALL_BIT, NEXT, root);
		emit_jump(&g, BPF_JEQ, NO_SYSCALL, minus_one, NEXT);
		emit_stmt(&g, BPF_RET | BPF_K, m->badarch_action);
		bind(&g, minus_one);
		emit_stmt(&g, BPF_RET | BPF_K, SCP_ALLOW);
	}
	if (rs.n > 1)
		emit_subtree(&t, 0, rs.n - 1, root, 1);
	else if (m->arch != SCP_X86_64)
		emit_ja(&g, root);
	for (size_t i = 0; i < rs.n; i++)
		if (rs.r[i].rule != NULL)
			emit_rule_block(&g, rs.r[i].rule, t.rule_label[i]);
	for (size_t i = 0; i < g.nrets; i++) {
		bind(&g, g.rets[i].label);
		emit_stmt(&g, BPF_RET | BPF_K, g.rets[i].action);
	}
	if (g.err) {
		ret = g.err;
		goto out;
	}
	ret = fix_long_jumps(&g);
	if (ret < 0)
		goto out;
	ret = resolve(&g, out);
	if (ret < 0)
		goto out;
	out->audit_arch = m->audit_arch;
	if (bpf_verify(out->insns, out->len, m->audit_arch, msg, sizeof(msg)) < 0) {
		if (info != NULL)
			snprintf(info->error, sizeof(info->error), "%s", msg);
		bpf_prog_free(out);
		ret = -EINVAL;
		goto out;
	}
	if (info != NULL) {
		info->nranges = rs.n;
		info->depth = rs.n > 1 ? t.depth : 0;
		info->nlong_jumps = g.nlong;
	}
out:
	free(t.rule_label);
	free(rs.r);
	free(g.items);
	free(g.label_id);
	free(g.pending);
	free(g.rets);
	return ret;
}

int
bpf_build(const struct ir_policy *policy, enum scp_arch arch, struct bpf_prog *out)
{
	struct scp_model *m;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = scp_build(policy, arch, &m);
	if (ret < 0)
		return ret;
	ret = bpf_generate(m, out, NULL);
	scp_free(m);
	return ret;
}

void
bpf_prog_free(struct bpf_prog *prog)
{
	if (prog == NULL)
		return;
	free(prog->insns);
	prog->insns = NULL;
	prog->len = 0;
}

/* ------------------------------------------------------------- measure */

static void
cost_add(struct bpf_cost *c, uint32_t executed)
{
	c->avg += executed;
	c->count++;
	if (executed > c->worst)
		c->worst = executed;
}

int
bpf_measure(const struct bpf_prog *prog, const struct scp_model *model,
	    struct bpf_stats *out)
{
	size_t len;
	const struct scp_syscall *t = scp_table(model->arch, &len);
	uint32_t *longest;

	memset(out, 0, sizeof(*out));
	out->insns = prog->len;
	for (size_t i = 0; i < len; i++) {
		struct bpf_sim_data d = { .nr = t[i].nr, .arch = model->audit_arch };
		struct bpf_sim_result r;

		if (bpf_sim_run(prog->insns, prog->len, &d, &r) < 0)
			return -EINVAL;
		cost_add(r.action == SCP_ALLOW ? &out->allowed : &out->denied, r.executed);
	}
	if (out->allowed.count)
		out->allowed.avg /= (double)out->allowed.count;
	if (out->denied.count)
		out->denied.avg /= (double)out->denied.count;

	/* Longest path: jumps only go forward, so one backward pass. */
	longest = calloc(prog->len, sizeof(*longest));
	if (longest == NULL)
		return -ENOMEM;
	for (size_t p = prog->len; p-- > 0;) {
		const struct bpf_sim_insn *in = &prog->insns[p];
		uint32_t best = 0;

		if (BPF_CLASS(in->code) == BPF_RET) {
			longest[p] = 1;
			continue;
		}
		if (in->code == (BPF_JMP | BPF_JA)) {
			if (p + 1 + in->k < prog->len)
				best = longest[p + 1 + in->k];
		} else if (is_cond(in->code)) {
			if (p + 1 + in->jt < prog->len)
				best = longest[p + 1 + in->jt];
			if (p + 1 + in->jf < prog->len && longest[p + 1 + in->jf] > best)
				best = longest[p + 1 + in->jf];
		} else if (p + 1 < prog->len) {
			best = longest[p + 1];
		}
		longest[p] = best + 1;
	}
	out->worst_path = longest[0];
	free(longest);
	return 0;
}
