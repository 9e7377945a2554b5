/* SPDX-License-Identifier: MIT
 * `make bench`: the seccomp filter's cost per syscall, from the cBPF
 * simulator, for heel's own range-tree generator against libseccomp
 * 2.5.x's binary tree and its default linear output, on the same model
 * (docs/seccomp.md). Prints a markdown table for BENCHMARKS.md. */
#include <stdio.h>
#include <string.h>

#include "bpf_sim.h"
#include "diag.h"
#include "ir.h"
#include "seccomp_bpf.h"
#include "seccomp_policy.h"
#include "sema.h"
#include "support_libseccomp.h"

static const struct {
	const char *name;
	const char *text;
} policies[] = {
	{ "network deny", "heel 1\nnetwork deny\n" },
	{ "network allow-all", "heel 1\nnetwork allow-all\n" },
	{ "allow-list + unix sockets",
	  "heel 1\nnetwork allow {\n    \"example.com\"\n}\non linux {\n    allow unix-sockets\n}\n" },
};

static void
row(const char *pol, const char *arch, const char *gen, const struct bpf_stats *s)
{
	printf("| %s | %s | %s | %zu | %.2f / %u | %.2f / %u | %u |\n", pol, arch, gen, s->insns,
	       s->allowed.avg, s->allowed.worst, s->denied.avg, s->denied.worst, s->worst_path);
}

int
main(void)
{
	printf("| policy | arch | generator | instructions | allowed avg / worst | "
	       "denied avg / worst | worst path |\n|---|---|---|---:|---:|---:|---:|\n");
	for (size_t p = 0; p < sizeof(policies) / sizeof(policies[0]); p++) {
		struct diag_ctx *ctx = diag_new();
		struct sema_options o = { .path = "bench.heel", .text = policies[p].text,
					  .len = strlen(policies[p].text) };
		struct ir_policy *ir = NULL;

		if (!ctx || sema_compile(ctx, &o, &ir) != 0) {
			diag_render(ctx, stderr);
			return 1;
		}
		for (int a = 0; a < SCP_ARCH_COUNT; a++) {
			struct scp_model *m;
			struct bpf_prog own, ls;
			struct bpf_gen_info info;
			struct bpf_stats s;

			if (scp_build(ir, (enum scp_arch)a, &m) != 0 || bpf_generate(m, &own, &info) != 0 ||
			    bpf_measure(&own, m, &s) != 0)
				return 1;
			row(policies[p].name, scp_arch_name(a), "heel range tree", &s);
			bpf_prog_free(&own);
			for (int opt = 2; opt >= 1; opt--) {
				const char *gen = opt == 2 ? "libseccomp tree" : "libseccomp linear";

				if (bpf_generate_libseccomp(m, opt, &ls, NULL) != 0)
					return 1;
				if (ls.len > BPF_SIM_MAXINSNS)
					printf("| %s | %s | %s | %zu | over the kernel's 4096 limit | | |\n",
					       policies[p].name, scp_arch_name(a), gen, ls.len);
				else if (bpf_measure(&ls, m, &s) == 0)
					row(policies[p].name, scp_arch_name(a), gen, &s);
				bpf_prog_free(&ls);
			}
			scp_free(m);
		}
		ir_policy_free(ir);
		diag_free(ctx);
	}
	return 0;
}
