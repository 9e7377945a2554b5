/* SPDX-License-Identifier: MIT
 * The BPF generator against the policy model (a plain linear evaluator):
 * for several policies and both architectures, every number of the
 * table and around it, the whole x32 range near the table and far from
 * it, -1, foreign arches, and argument vectors with garbage upper halves
 * must get the model's action in the simulator, within the cost bound of
 * a balanced tree. Also: long jumps, 64-bit conditions, determinism, the
 * libseccomp builds of the same model (cross-check and the measured
 * comparison), the text output, and a live run in a forked child. */
#include <criterion/criterion.h>

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf_sim.h"
#include "bpf_verify.h"
#include "ir.h"
#include "seccomp_bpf.h"
#include "seccomp_emit.h"
#include "seccomp_policy.h"
#include "support_libseccomp.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define HI(x) ((uint64_t)(x) << 32)

/* ------------------------------------------------------------- helpers */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t
rng(void)
{
	/* xorshift64*: deterministic, so a failure reproduces. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static void
add_rule(struct ir_policy *p, const char *name, int action, uint16_t err)
{
	struct ir_seccomp_rule *r = realloc(p->seccomp, (p->nseccomp + 1) * sizeof(*r));

	cr_assert_not_null(r);
	p->seccomp = r;
	memset(&r[p->nseccomp], 0, sizeof(*r));
	r[p->nseccomp].syscall = strdup(name);
	r[p->nseccomp].action = (uint8_t)action;
	r[p->nseccomp].errno_value = err;
	p->nseccomp++;
}

static void
add_ipc(struct ir_policy *p, const char *name, uint8_t platforms)
{
	struct ir_ipc *c = realloc(p->ipc, (p->nipc + 1) * sizeof(*c));

	cr_assert_not_null(c);
	p->ipc = c;
	memset(&c[p->nipc], 0, sizeof(*c));
	c[p->nipc].name = strdup(name);
	c[p->nipc].exec = strdup("/usr/bin/true");
	c[p->nipc].platforms = platforms;
	p->nipc++;
}

enum { POL_DENY, POL_NET, POL_LIST_UNIX, POL_DENY_UNIX, POL_USER, POL_IPC, POL_IPC_ALLOW,
       POL_COUNT };

static const char *const pol_names[POL_COUNT] = {
	"network deny", "network allow-all", "allow-list + unix sockets",
	"deny + unix sockets", "user rules", "ipc", "ipc + seccomp allow ioctl",
};

static struct ir_policy *
make_policy(int which)
{
	struct ir_policy *p = ir_policy_new();
	struct ir_scalars *lx;

	cr_assert_not_null(p);
	lx = &p->scalar[IR_LINUX];
	switch (which) {
	case POL_NET:
		lx->network.value = IR_NET_ALLOW_ALL;
		break;
	case POL_LIST_UNIX:
		lx->network.value = IR_NET_ALLOW_LIST;
		lx->unix_sockets.set = true;
		lx->unix_sockets.value = 1;
		break;
	case POL_DENY_UNIX:
		lx->unix_sockets.set = true;
		lx->unix_sockets.value = 1;
		break;
	case POL_USER:
		lx->network.value = IR_NET_ALLOW_ALL;
		add_rule(p, "getpid", IR_SECCOMP_DENY, 13);
		add_rule(p, "open", IR_SECCOMP_DENY, 2);
		add_rule(p, "umount2", IR_SECCOMP_ALLOW, 0);
		add_rule(p, "personality", IR_SECCOMP_ALLOW, 0);
		add_rule(p, "sendmmsg", IR_SECCOMP_DENY, 95);
		add_rule(p, "clone3", IR_SECCOMP_DENY, 38);
		break;
	case POL_IPC:
		add_ipc(p, "web", IR_PLAT_ALL);
		break;
	case POL_IPC_ALLOW:
		add_ipc(p, "web", IR_PLAT_BIT(IR_LINUX));
		add_rule(p, "ioctl", IR_SECCOMP_ALLOW, 0);
		break;
	default:
		break;
	}
	return p;
}

static unsigned
ceil_log2(size_t n)
{
	unsigned k = 0;

	while (((size_t)1 << k) < n)
		k++;
	return k;
}

struct checker {
	const struct scp_model *m;
	const struct bpf_prog *prog;
	size_t checked;
	uint32_t bound;              /* max executed for argument-free numbers */
	bool cost;                   /* assert the bound */
	bool table_only_libseccomp;  /* libseccomp: unknown numbers differ */
};

static void
check_one(struct checker *c, const struct bpf_sim_data *d)
{
	struct bpf_sim_result r;
	uint32_t want = scp_eval(c->m, d);
	char a[32], b[32];

	cr_assert_eq(bpf_sim_run(c->prog->insns, c->prog->len, d, &r), 0);
	cr_assert_eq(r.action, want,
		     "%s nr %u (0x%x) arch 0x%x args %llx %llx %llx %llx %llx %llx: program %s, model %s",
		     scp_arch_name(c->m->arch), d->nr, d->nr, d->arch,
		     (unsigned long long)d->args[0], (unsigned long long)d->args[1],
		     (unsigned long long)d->args[2], (unsigned long long)d->args[3],
		     (unsigned long long)d->args[4], (unsigned long long)d->args[5],
		     bpf_sim_action_name(r.action, a, sizeof(a)),
		     bpf_sim_action_name(want, b, sizeof(b)));
	if (c->cost) {
		const struct scp_rule *rule = scp_find(c->m, d->nr);

		if (rule == NULL || rule->nclauses == 0)
			cr_assert_leq(r.executed, c->bound, "%s nr %u cost %u > bound %u",
				      scp_arch_name(c->m->arch), d->nr, r.executed, c->bound);
	}
	c->checked++;
}

static void
check_nr(struct checker *c, uint32_t nr)
{
	struct bpf_sim_data d = { .nr = nr, .arch = c->m->audit_arch };

	check_one(c, &d);
}

/* Argument vectors around every value a rule tests: the value, with
 * garbage in the upper half, off by one bit, zero, all ones; all
 * combinations over the arguments the rule looks at, plus random ones. */
static void
check_rule_args(struct checker *c, const struct scp_rule *r)
{
	uint64_t cand[6][64];
	size_t ncand[6] = { 0 };
	bool used[6] = { false };
	size_t total = 1;

	for (unsigned a = 0; a < 6; a++) {
		cand[a][ncand[a]++] = 0;
		cand[a][ncand[a]++] = UINT64_MAX;
		cand[a][ncand[a]++] = HI(0xdeadbeef);
	}
	for (uint8_t i = 0; i < r->nclauses; i++) {
		for (uint8_t j = 0; j < r->clauses[i].nconds; j++) {
			const struct scp_cond *cd = &r->clauses[i].conds[j];
			unsigned a = cd->arg;

			used[a] = true;
			for (uint8_t v = 0; v < cd->nvalues && ncand[a] + 5 <= 64; v++) {
				uint64_t x = cd->values[v];

				cand[a][ncand[a]++] = x;
				cand[a][ncand[a]++] = x | HI(0x123);
				cand[a][ncand[a]++] = x ^ 1;
				cand[a][ncand[a]++] = x | (~cd->mask & 0xffffffffu);
				cand[a][ncand[a]++] = x | 0x80000000u;
			}
		}
	}
	for (unsigned a = 0; a < 6; a++)
		if (used[a])
			total *= ncand[a];
	for (size_t k = 0; k < total; k++) {
		struct bpf_sim_data d = { .nr = r->nr, .arch = c->m->audit_arch };
		size_t rem = k;

		for (unsigned a = 0; a < 6; a++) {
			if (!used[a])
				continue;
			d.args[a] = cand[a][rem % ncand[a]];
			rem /= ncand[a];
		}
		check_one(c, &d);
	}
	for (int k = 0; k < 2000; k++) {
		struct bpf_sim_data d = { .nr = r->nr, .arch = c->m->audit_arch };

		for (unsigned a = 0; a < 6; a++) {
			uint64_t x = rng();

			/* Half the time a listed value in the low word. */
			if (used[a] && (x & 1))
				x = (x & HI(0xffffffffu)) | (uint32_t)cand[a][(x >> 8) % ncand[a]];
			d.args[a] = x;
		}
		check_one(c, &d);
	}
}

static void
check_program(const struct scp_model *m, const struct bpf_prog *prog,
	      const struct bpf_gen_info *info)
{
	struct checker c = { .m = m, .prog = prog };
	uint32_t max = scp_max_nr(m->arch);

	if (info != NULL) {
		/* ld arch, jeq, ld nr, [x32 jge], tree, ret. */
		c.cost = true;
		c.bound = 3 + (m->arch == SCP_X86_64 ? 1 : 0) + ceil_log2(info->nranges) + 1;
		cr_assert_eq(info->depth, ceil_log2(info->nranges), "balanced tree");
	}
	for (uint32_t nr = 0; nr <= max + 64; nr++)
		check_nr(&c, nr);
	/* The whole x32 range next to the table, then far numbers. */
	for (uint32_t nr = 0x40000000u; nr <= 0x40000000u + max + 64; nr++)
		check_nr(&c, nr);
	{
		const uint32_t far[] = { 0x3fffffffu, 0x40010000u, 0x4fffffffu, 0x7fffffffu,
					 0x80000000u, 0xbfffffffu, 0xc0000000u, 0xfffffffdu,
					 0xfffffffeu, 0xffffffffu, 1000, 4096, 65535, 65536 };

		for (size_t i = 0; i < N(far); i++)
			check_nr(&c, far[i]);
	}
	for (int i = 0; i < 5000; i++)
		check_nr(&c, (uint32_t)rng());
	{
		/* Foreign arches: i386 (int 0x80), the other 64-bit arch, arm. */
		const uint32_t arches[] = { BPF_SIM_AUDIT_ARCH_I386, BPF_SIM_AUDIT_ARCH_X86_64,
					    BPF_SIM_AUDIT_ARCH_AARCH64, 0x40000028u, 0 };

		for (size_t i = 0; i < N(arches); i++) {
			for (uint32_t nr = 0; nr < 16; nr++) {
				struct bpf_sim_data d = { .nr = nr * 37, .arch = arches[i] };

				check_one(&c, &d);
			}
		}
	}
	for (size_t i = 0; i < m->nrules; i++)
		if (m->rules[i].nclauses)
			check_rule_args(&c, &m->rules[i]);
	cr_assert_gt(c.checked, 1000);
}

/* ------------------------------------------------------- the generator */

Test(bpf_gen, every_number_every_policy_both_arches, .timeout = 120)
{
	for (int p = 0; p < POL_COUNT; p++) {
		struct ir_policy *pol = make_policy(p);

		for (int a = 0; a < SCP_ARCH_COUNT; a++) {
			struct scp_model *m;
			struct bpf_prog prog;
			struct bpf_gen_info info;
			char msg[BPF_VERIFY_MSG_MAX];

			cr_assert_eq(scp_build(pol, (enum scp_arch)a, &m), 0, "%s", pol_names[p]);
			cr_assert_eq(bpf_generate(m, &prog, &info), 0, "%s", pol_names[p]);
			cr_assert_eq(bpf_verify(prog.insns, prog.len, m->audit_arch, msg, sizeof(msg)),
				     0, "%s", msg);
			check_program(m, &prog, &info);
			bpf_prog_free(&prog);
			scp_free(m);
		}
		ir_policy_free(pol);
	}
}

Test(bpf_gen, deterministic)
{
	struct ir_policy *pol = make_policy(POL_USER);

	for (int a = 0; a < SCP_ARCH_COUNT; a++) {
		struct bpf_prog x, y;

		cr_assert_eq(bpf_build(pol, (enum scp_arch)a, &x), 0);
		cr_assert_eq(bpf_build(pol, (enum scp_arch)a, &y), 0);
		cr_assert_eq(x.len, y.len);
		cr_assert_eq(memcmp(x.insns, y.insns, x.len * sizeof(*x.insns)), 0);
		bpf_prog_free(&x);
		bpf_prog_free(&y);
	}
	ir_policy_free(pol);
}

/* ioprio_set(which, who, ioprio) in the generated program: the priority
 * may only go down, so only the idle class, and best-effort 7 unless the
 * policy asked for idle, pass; everything else (best-effort 0..6, class
 * none, real-time, bits above the class) is EPERM. Only the low word of
 * the int counts, whatever the upper half holds. */
Test(bpf_gen, ioprio_set_cannot_raise_the_priority)
{
	static const struct {
		uint64_t ioprio;
		int none, utility, background; /* 1: allowed */
	} cases[] = {
		{0x6000, 1, 1, 1},             /* idle */
		{0x6007, 1, 1, 1},             /* idle, a level bit */
		{HI(1) | 0x6000, 1, 1, 1},     /* garbage upper half */
		{HI(0xffffffff) | 0x4007, 1, 1, 0}, /* best-effort 7 */
		{0x4007, 1, 1, 0},
		{0x4000, 0, 0, 0},             /* best-effort 0: `ionice -c2 -n0` */
		{0x4004, 0, 0, 0},
		{0x4006, 0, 0, 0},
		{0x0000, 0, 0, 0},             /* class none: from the nice value */
		{0x2000, 0, 0, 0},             /* real-time */
		{0x16000, 0, 0, 0},            /* a bit above the class */
		{0xe000, 0, 0, 0},             /* class 7 */
		{0x14007, 0, 0, 0},
	};
	static const uint64_t levels[] = {IR_IO_NONE, IR_IO_UTILITY, IR_IO_BACKGROUND};

	for (size_t l = 0; l < N(levels); l++) {
		struct ir_policy *pol = make_policy(POL_DENY);

		pol->scalar[IR_LINUX].io_priority.set = levels[l] != IR_IO_NONE;
		pol->scalar[IR_LINUX].io_priority.value = levels[l];
		for (int a = 0; a < SCP_ARCH_COUNT; a++) {
			struct bpf_prog prog;
			struct bpf_sim_data d = {.arch = scp_audit_arch((enum scp_arch)a)};

			cr_assert_eq(scp_lookup((enum scp_arch)a, "ioprio_set", &d.nr), 0);
			cr_assert_eq(bpf_build(pol, (enum scp_arch)a, &prog), 0);
			for (size_t i = 0; i < N(cases); i++) {
				int ok = l == 0 ? cases[i].none : l == 1 ? cases[i].utility : cases[i].background;
				struct bpf_sim_result r;

				d.args[0] = 1; /* IOPRIO_WHO_PROCESS */
				d.args[1] = 0;
				d.args[2] = cases[i].ioprio;
				cr_assert_eq(bpf_sim_run(prog.insns, prog.len, &d, &r), 0);
				cr_assert_eq(r.action, ok ? SECCOMP_RET_ALLOW : SECCOMP_RET_ERRNO | EPERM,
					     "%s io-priority %d ioprio 0x%llx: action 0x%x",
					     scp_arch_name((enum scp_arch)a), (int)l,
					     (unsigned long long)cases[i].ioprio, r.action);
			}
			bpf_prog_free(&prog);
		}
		ir_policy_free(pol);
	}
}

/* A host command call is ioctl(-1, HEEL_IPC_IOCTL), compared on the low
 * words only: with a Linux ipc command the program hands it to the broker
 * (USER_NOTIF), garbage in an upper half or not; a call that differs in
 * the descriptor or the request is an ordinary ioctl (TIOCSTI still
 * refused). Without ipc, or with ipc only on another platform, the call is
 * answered EBADF, so it cannot reach an outer sandbox's broker. `seccomp
 * allow "ioctl"` keeps the clause; `seccomp deny "ioctl"` beside ipc is
 * refused. */
Test(bpf_gen, host_command_call)
{
	enum { IPC, IPC_ALLOW, IPC_MACOS, NONE, NONE_ALLOW, NONE_DENY, NPOL };
	static const struct {
		uint64_t fd, cmd;
		int call; /* 1: a host command call */
		uint32_t other; /* what an ordinary ioctl gets */
	} cases[] = {
		{0xffffffffu, 0x48454c01u, 1, 0},
		{UINT64_MAX, 0x48454c01u, 1, 0},                    /* fd -1 as a long */
		{HI(0xdeadbeef) | 0xffffffffu, 0x48454c01u, 1, 0},  /* garbage above fd */
		{0xffffffffu, HI(0x1234) | 0x48454c01u, 1, 0},      /* garbage above cmd */
		{0, 0x48454c01u, 0, SECCOMP_RET_ALLOW},             /* another fd */
		{3, 0x48454c01u, 0, SECCOMP_RET_ALLOW},
		{0xfffffffeu, 0x48454c01u, 0, SECCOMP_RET_ALLOW},
		{HI(0xffffffffu), 0x48454c01u, 0, SECCOMP_RET_ALLOW}, /* -1 only above */
		{0xffffffffu, 0x48454c02u, 0, SECCOMP_RET_ALLOW},   /* another cmd */
		{0xffffffffu, HI(0x48454c01u), 0, SECCOMP_RET_ALLOW},
		{0xffffffffu, 0x5412, 0, SECCOMP_RET_ERRNO | EPERM}, /* TIOCSTI */
		{0, 0x5412, 0, SECCOMP_RET_ERRNO | EPERM},
	};

	for (int k = 0; k < NPOL; k++) {
		struct ir_policy *pol = ir_policy_new();
		uint32_t call = k <= IPC_ALLOW ? SECCOMP_RET_USER_NOTIF : SECCOMP_RET_ERRNO | EBADF;

		cr_assert_not_null(pol);
		if (k == IPC || k == IPC_ALLOW)
			add_ipc(pol, "web", k == IPC ? IR_PLAT_ALL : IR_PLAT_BIT(IR_LINUX));
		if (k == IPC_MACOS)
			add_ipc(pol, "web", IR_PLAT_BIT(IR_MACOS));
		if (k == IPC_ALLOW || k == NONE_ALLOW)
			add_rule(pol, "ioctl", IR_SECCOMP_ALLOW, 0);
		if (k == NONE_DENY)
			add_rule(pol, "ioctl", IR_SECCOMP_DENY, EACCES);
		cr_assert_eq(scp_has_ipc(pol), k <= IPC_ALLOW);
		for (int a = 0; a < SCP_ARCH_COUNT; a++) {
			struct scp_model *m;
			struct bpf_prog prog;
			struct bpf_sim_data d = {.arch = scp_audit_arch((enum scp_arch)a)};
			char msg[BPF_VERIFY_MSG_MAX];

			cr_assert_eq(scp_lookup((enum scp_arch)a, "ioctl", &d.nr), 0);
			cr_assert_eq(scp_build(pol, (enum scp_arch)a, &m), 0);
			cr_assert_eq(bpf_generate(m, &prog, NULL), 0);
			cr_assert_eq(bpf_verify(prog.insns, prog.len, m->audit_arch, msg, sizeof(msg)),
				     0, "%s", msg);
			for (size_t i = 0; i < N(cases); i++) {
				struct bpf_sim_result r;
				uint32_t want = cases[i].call ? call : cases[i].other;

				if (k == NONE_DENY)
					want = SECCOMP_RET_ERRNO | EACCES;
				else if ((k == IPC_ALLOW || k == NONE_ALLOW) && !cases[i].call)
					want = SECCOMP_RET_ALLOW;
				d.args[0] = cases[i].fd;
				d.args[1] = cases[i].cmd;
				cr_assert_eq(bpf_sim_run(prog.insns, prog.len, &d, &r), 0);
				cr_assert_eq(r.action, want,
					     "policy %d %s case %zu: action 0x%x, want 0x%x", k,
					     scp_arch_name((enum scp_arch)a), i, r.action, want);
				cr_assert_eq(scp_eval(m, &d), want, "model, policy %d case %zu", k, i);
			}
			/* Another call with the same arguments is not a host command call. */
			cr_assert_eq(scp_lookup((enum scp_arch)a, "read", &d.nr), 0);
			d.args[0] = 0xffffffffu;
			d.args[1] = 0x48454c01u;
			cr_assert_eq(scp_eval(m, &d), SECCOMP_RET_ALLOW);
			bpf_prog_free(&prog);
			scp_free(m);
		}
		ir_policy_free(pol);
	}
	{
		/* The backstop behind sema's error. */
		struct ir_policy *pol = ir_policy_new();
		struct scp_model *m = NULL;

		add_ipc(pol, "web", IR_PLAT_ALL);
		add_rule(pol, "ioctl", IR_SECCOMP_DENY, EPERM);
		cr_assert_eq(scp_build(pol, SCP_X86_64, &m), -EINVAL);
		cr_assert_null(m);
		ir_policy_free(pol);
	}
}

/* A synthetic model big enough that jumps pass 255 instructions: argument
 * blocks for half the table, many distinct actions, 64-bit conditions. */
static struct scp_model *
big_model(enum scp_arch arch, bool wide)
{
	size_t len;
	const struct scp_syscall *t = scp_table(arch, &len);
	struct scp_model *m = calloc(1, sizeof(*m));

	cr_assert_not_null(m);
	m->arch = arch;
	m->audit_arch = scp_audit_arch(arch);
	m->default_action = SCP_ALLOW;
	m->unknown_action = SCP_ERRNO(38);
	m->badarch_action = SCP_KILL;
	m->rules = calloc(len, sizeof(*m->rules));
	cr_assert_not_null(m->rules);
	for (size_t i = 0; i < len; i++) {
		struct scp_rule *r = &m->rules[m->nrules];
		uint32_t nr = t[i].nr;

		if (nr % 3 == 2 || (wide && nr % 6 == 4))
			continue;    /* fewer blocks when wide: 64-bit tests are longer */
		r->nr = nr;
		r->name = t[i].name;
		if (nr % 3 == 0) {
			r->action = SCP_ERRNO(1 + nr % 200);
		} else {
			struct scp_cond *c = &r->clauses[0].conds[0];

			r->action = SCP_ALLOW;
			r->nclauses = 2;
			r->clauses[0].nconds = 2;
			r->clauses[0].action = SCP_ERRNO(nr);
			c[0].arg = (uint8_t)(nr % 6);
			c[0].width = wide ? 64 : 32;
			c[0].mask = wide ? 0x0000ffff0000ffffull : 0xffffu;
			c[0].nvalues = 2;
			c[0].values[0] = wide ? HI(nr) | nr : nr;
			c[0].values[1] = wide ? HI(7) : 7;
			c[1].arg = (uint8_t)((nr + 1) % 6);
			c[1].width = wide ? 64 : 32;
			c[1].negate = true;
			c[1].mask = wide ? HI(1) | 1 : 1;
			c[1].nvalues = 1;
			c[1].values[0] = 0;
			r->clauses[1].nconds = 1;
			r->clauses[1].action = SCP_KILL;
			r->clauses[1].conds[0].arg = 5;
			r->clauses[1].conds[0].width = wide ? 64 : 32;
			r->clauses[1].conds[0].mask = wide ? UINT64_MAX : 0xffffffffu;
			r->clauses[1].conds[0].nvalues = 1;
			r->clauses[1].conds[0].values[0] = wide ? HI(0xdead) | 0xbeef : 0xbeef;
		}
		m->nrules++;
	}
	return m;
}

Test(bpf_gen, long_jumps_and_wide_conditions, .timeout = 120)
{
	for (int wide = 0; wide < 2; wide++) {
		for (int a = 0; a < SCP_ARCH_COUNT; a++) {
			struct scp_model *m = big_model((enum scp_arch)a, wide);
			struct bpf_prog prog;
			struct bpf_gen_info info;

			int ret = bpf_generate(m, &prog, &info);

			cr_assert_eq(ret, 0, "%s wide %d: %d %s", scp_arch_name(a), wide, ret, info.error);
			cr_assert_gt(prog.len, 600);
			cr_assert_gt(info.nlong_jumps, 0, "no long jump exercised (%zu insns)", prog.len);
			check_program(m, &prog, NULL);
			/* Cost bound still holds for argument-free numbers. */
			{
				struct checker c = { .m = m, .prog = &prog, .cost = true };

				c.bound = 3 + (a == SCP_X86_64) + ceil_log2(info.nranges) + 1 + 1;
				for (uint32_t nr = 0; nr <= scp_max_nr(m->arch); nr++)
					check_nr(&c, nr);
			}
			bpf_prog_free(&prog);
			free(m->rules);
			free(m);
		}
	}
}

Test(bpf_gen, too_big_is_refused)
{
	/* Every syscall with 4 clauses of 3 four-value conditions: >4096. */
	size_t len;
	const struct scp_syscall *t = scp_table(SCP_X86_64, &len);
	struct scp_model *m = calloc(1, sizeof(*m));
	struct bpf_prog prog;

	m->arch = SCP_X86_64;
	m->audit_arch = scp_audit_arch(SCP_X86_64);
	m->default_action = SCP_ALLOW;
	m->unknown_action = SCP_ERRNO(38);
	m->badarch_action = SCP_KILL;
	m->rules = calloc(len, sizeof(*m->rules));
	for (size_t i = 0; i < len; i++) {
		struct scp_rule *r = &m->rules[m->nrules++];

		r->nr = t[i].nr;
		r->name = t[i].name;
		r->action = SCP_ERRNO(1);
		r->nclauses = SCP_MAX_CLAUSES;
		for (int k = 0; k < SCP_MAX_CLAUSES; k++) {
			r->clauses[k].nconds = SCP_MAX_CONDS;
			r->clauses[k].action = SCP_ALLOW;
			for (int j = 0; j < SCP_MAX_CONDS; j++) {
				struct scp_cond *c = &r->clauses[k].conds[j];

				c->arg = (uint8_t)j;
				c->width = 32;
				c->mask = 0xffffffffu;
				c->nvalues = SCP_MAX_VALUES;
				for (int v = 0; v < SCP_MAX_VALUES; v++)
					c->values[v] = (uint64_t)(k * 16 + v);
			}
		}
	}
	cr_assert_eq(bpf_generate(m, &prog, NULL), -E2BIG);
	cr_assert_null(prog.insns);
	free(m->rules);
	free(m);
}

/* ---------------------------------------------------------- libseccomp */

/* libseccomp gets the same model; where its program fits in the kernel's
 * limit it must agree with the model on every syscall of the table (heel
 * gives numbers it does not know ENOSYS, libseccomp its default ALLOW, so
 * those are left out) and on the argument vectors. This is also the check
 * that names were resolved for the right arch (setresuid has another
 * number on each arch, and a number passed for the wrong one is
 * re-mapped by libseccomp to a different call). */
Test(bpf_gen, libseccomp_builds_agree, .timeout = 120)
{
	const int pols[] = { POL_DENY, POL_DENY_UNIX, POL_USER, POL_IPC };
	size_t compared = 0;

	for (size_t p = 0; p < N(pols); p++) {
		struct ir_policy *pol = make_policy(pols[p]);

		for (int a = 0; a < SCP_ARCH_COUNT; a++) {
			struct scp_model *m;

			cr_assert_eq(scp_build(pol, (enum scp_arch)a, &m), 0);
			for (int opt = 1; opt <= 2; opt++) {
				struct bpf_prog prog;
				size_t skipped = 0, len;
				const struct scp_syscall *t = scp_table(m->arch, &len);
				int ret = bpf_generate_libseccomp(m, opt, &prog, &skipped);
				struct checker c = { .m = m, .prog = &prog };

				cr_assert_eq(ret, 0, "%s %s opt %d: %d", pol_names[pols[p]],
					     scp_arch_name(a), opt, ret);
				if (prog.len > BPF_SIM_MAXINSNS) {
					/* libseccomp's expansion of argument
					 * filters (user rules: 4.3k with the host
					 * command call's two-word clause): nothing
					 * to compare. An info, since a warning
					 * makes Criterion exit 1. */
					cr_log_info("%s %s optimize=%d: %zu instructions, over the limit",
						    pol_names[pols[p]], scp_arch_name(a), opt, prog.len);
					bpf_prog_free(&prog);
					continue;
				}
				compared++;
				cr_assert_leq(skipped, 1, "open_tree_attr is the only unknown name");
				for (size_t i = 0; i < len; i++) {
					const struct scp_rule *r = scp_find(m, t[i].nr);

					if (r != NULL && seccomp_syscall_resolve_name(r->name) < 0)
						continue;
					check_nr(&c, t[i].nr);
					if (r != NULL && r->nclauses)
						check_rule_args(&c, r);
				}
				check_nr(&c, 0xffffffffu);
				if (a == SCP_X86_64)
					check_nr(&c, 0x40000001u);
				bpf_prog_free(&prog);
			}
			scp_free(m);
		}
		ir_policy_free(pol);
	}
	/* network deny, + unix sockets and ipc fit on both arches, with both
	 * optimisations: the host command call's clause is cross-checked. */
	cr_assert_geq(compared, 3 * 2 * 2, "only %zu libseccomp programs compared", compared);
}

static void
print_row(const char *pol, const char *arch, const char *gen, const struct bpf_stats *s)
{
	fprintf(stderr, "| %-26s | %-7s | %-22s | %5zu | %5.2f / %3u | %5.2f / %3u | %4u |\n",
		pol, arch, gen, s->insns, s->allowed.avg, s->allowed.worst, s->denied.avg,
		s->denied.worst, s->worst_path);
}

/* The measured comparison (docs/seccomp.md, BENCHMARKS.md): heel's own
 * generator against libseccomp's tree and linear output for the same
 * model. Costs over every syscall of the table with zero arguments. The
 * generator that measures better is heel's own; this keeps it so. */
Test(bpf_gen, measured_comparison, .timeout = 120)
{
	const int pols[] = { POL_DENY, POL_NET, POL_LIST_UNIX };

	fprintf(stderr, "| policy | arch | generator | insns | allowed avg / worst | "
			"denied avg / worst | worst path |\n");
	for (size_t p = 0; p <= N(pols); p++) {
		/* The last row: dispatch only (argument rules made unconditional),
		 * to compare the search trees alone. */
		bool dispatch = p == N(pols);
		struct ir_policy *pol = make_policy(dispatch ? POL_NET : pols[p]);
		const char *name = dispatch ? "dispatch only" : pol_names[pols[p]];

		for (int a = 0; a < SCP_ARCH_COUNT; a++) {
			struct scp_model *m;
			struct bpf_prog own, ls;
			struct bpf_gen_info info;
			struct bpf_stats so, sl;

			cr_assert_eq(scp_build(pol, (enum scp_arch)a, &m), 0);
			if (dispatch)
				for (size_t i = 0; i < m->nrules; i++)
					m->rules[i].nclauses = 0;
			cr_assert_eq(bpf_generate(m, &own, &info), 0);
			cr_assert_eq(bpf_measure(&own, m, &so), 0);
			print_row(name, scp_arch_name(a), "heel (range tree)", &so);
			for (int opt = 2; opt >= 1; opt--) {
				cr_assert_eq(bpf_generate_libseccomp(m, opt, &ls, NULL), 0);
				if (ls.len > BPF_SIM_MAXINSNS) {
					fprintf(stderr, "| %-26s | %-7s | libseccomp %-11s | %5zu | over the 4096 limit |\n",
						name, scp_arch_name(a), opt == 2 ? "tree" : "linear", ls.len);
					bpf_prog_free(&ls);
					continue;
				}
				cr_assert_eq(bpf_measure(&ls, m, &sl), 0);
				print_row(name, scp_arch_name(a),
					  opt == 2 ? "libseccomp tree" : "libseccomp linear", &sl);
				if (opt == 2) {
					cr_assert_leq(so.allowed.avg, sl.allowed.avg);
					cr_assert_leq(so.denied.avg, sl.denied.avg);
					cr_assert_leq(so.allowed.worst, sl.allowed.worst);
					cr_assert_leq(so.worst_path, sl.worst_path);
				}
				bpf_prog_free(&ls);
			}
			bpf_prog_free(&own);
			scp_free(m);
		}
		ir_policy_free(pol);
	}
}

/* ----------------------------------------------------------------- emit */

Test(bpf_gen, emit_text)
{
	struct ir_policy *pol = make_policy(POL_NET);
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	cr_assert_not_null(f);
	cr_assert_eq(seccomp_emit_text(pol, f), 0);
	fclose(f);
	cr_assert(strstr(buf, "# seccomp program for x86_64") != NULL);
	cr_assert(strstr(buf, "# seccomp program for aarch64") != NULL);
	cr_assert(strstr(buf, "/* AUDIT_ARCH_X86_64 */") != NULL);
	cr_assert(strstr(buf, "/* AUDIT_ARCH_AARCH64 */") != NULL);
	cr_assert(strstr(buf, "jge #0x40000000 /* x32 */, L5, L8") != NULL);
	cr_assert(strstr(buf, "jeq #0xffffffff /* -1: no syscall */, L7, L6") != NULL);
	cr_assert(strstr(buf, "/* ptrace */") != NULL);
	cr_assert(strstr(buf, "#   ptrace (101): ERRNO(1)") != NULL);
	cr_assert(strstr(buf, "#   ptrace (117): ERRNO(1)") != NULL);
	cr_assert(strstr(buf, "args[1] (low)") != NULL);
	cr_assert(strstr(buf, "ret #0x80000000\t\t/* KILL_PROCESS */") != NULL);
	free(buf);
	ir_policy_free(pol);
}

/* ----------------------------------------------------------------- live */

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008u
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif

/* Runs in the forked child only: returns 0 or the number of the first
 * check that failed. Raw syscalls, so libc wrappers cannot mask errno or
 * truncate arguments. */
static int
live_checks(void)
{
	int sv[2];
	long r;
	char io_params[120] = { 0 };
	char c = 'x';

	errno = 0;
	if (syscall(SYS_ptrace, PTRACE_TRACEME, 0, 0, 0) != -1 || errno != EPERM)
		return 1;
	if (syscall(__NR_io_uring_setup, 1, io_params) != -1 || errno != EPERM)
		return 2;
	if (syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0) != -1 || errno != EPERM)
		return 3;
	/* socket(0x1_00000001, ...): still AF_UNIX to the kernel. */
	if (syscall(SYS_socket, 0x100000001ull, SOCK_STREAM, 0) != -1 || errno != EPERM)
		return 4;
	if (syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return 5;
	if (syscall(SYS_socketpair, AF_UNIX, SOCK_DGRAM, 0, sv) != -1 || errno != EPERM)
		return 6;
	if (syscall(__NR_clone3, NULL, 0) != -1 || errno != ENOSYS)
		return 7;
	if (syscall(SYS_memfd_create, "x", 0) != -1 || errno != EPERM)
		return 8;
	r = syscall(SYS_memfd_create, "x", MFD_NOEXEC_SEAL);
	if (r < 0 && errno != EINVAL)   /* EINVAL: kernel before 6.3 */
		return 9;
	if (syscall(SYS_getpid) != getpid())
		return 10;
	if (syscall(SYS_ioctl, 0, (0x123ull << 32) | 0x5412 /* TIOCSTI */, &c) != -1 ||
	    errno != EPERM)
		return 11;
	if (syscall(SYS_unshare, 0x10000000 /* CLONE_NEWUSER */) != -1 || errno != EPERM)
		return 12;
	if (syscall(SYS_personality, 0xffffffffu) < 0)
		return 13;
	if (syscall(SYS_personality, 0x0040000 /* ADDR_NO_RANDOMIZE */) != -1 || errno != EPERM)
		return 14;
	if (syscall(SYS_socket, AF_INET, SOCK_DGRAM, 0) != -1 || errno != EPERM)
		return 15;
	/* TCP under network deny too: the sandbox's own loopback (heel-exec
	 * stacks its refusal where there is no network namespace). */
	if ((r = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0)) < 0)
		return 16;
	close((int)r);
	return 0;
}

static int
install(const struct bpf_prog *prog)
{
	struct sock_fprog fp = { .len = (unsigned short)prog->len,
				 .filter = (struct sock_filter *)prog->insns };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp);
}

/* Forks; the child installs `prog` and runs `body`; returns the wait
 * status. The Criterion worker itself never gets a filter. */
static int
run_filtered(const struct bpf_prog *prog, int (*body)(void))
{
	pid_t pid = fork();
	int status = 0;

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (install(prog) != 0)
			_exit(77);
		_exit(body());
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	return status;
}

static int
x32_call(void)
{
	/* x32 getpid: must be killed, never reach the kernel's x32 table. */
	syscall(0x40000000 | 39);
	return 100;
}

Test(bpf_gen, live_enforcement, .timeout = 60)
{
#if defined(__x86_64__)
	enum scp_arch native = SCP_X86_64;
#elif defined(__aarch64__)
	enum scp_arch native = SCP_AARCH64;
#else
	cr_skip_test("no heel seccomp target for this architecture");
#endif
	struct ir_policy *pol;
	struct bpf_prog prog;
	int status;

	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
		cr_skip_test("seccomp unavailable (PR_GET_SECCOMP: %s)", strerror(errno));
	pol = make_policy(POL_DENY);
	cr_assert_eq(bpf_build(pol, native, &prog), 0);
	status = run_filtered(&prog, live_checks);
	cr_assert(WIFEXITED(status), "child died: status 0x%x", status);
	if (WEXITSTATUS(status) == 77)
		cr_skip_test("seccomp(SET_MODE_FILTER) refused");
	cr_assert_eq(WEXITSTATUS(status), 0, "live check %d failed", WEXITSTATUS(status));
	if (native == SCP_X86_64) {
		status = run_filtered(&prog, x32_call);
		cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
			  "x32 call not killed: status 0x%x", status);
	}
	bpf_prog_free(&prog);
	ir_policy_free(pol);
}
