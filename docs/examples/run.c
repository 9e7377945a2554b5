/* SPDX-License-Identifier: MIT
 * libheel from C: build a policy, run `echo` under it, print what it
 * said. Build and run against an installed libheel:
 *
 *   cc run.c $(pkg-config --cflags --libs heel) -o run && ./run
 *
 * HEEL_EXEC names the heel-exec to run (make check-libheel points it at
 * the build tree's); unset, libheel runs the one installed with it. */
#include <heel.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	const char *argv[] = {"echo", "hello", "from", "the", "sandbox", NULL};
	struct heel_spawn_opts opts;
	struct heel_capture cap;
	heel_error err;
	heel_policy *policy;

	/* heel run --isolation strict --max-memory 512MiB, as calls. */
	policy = heel_policy_new(&err);
	if (!policy || heel_policy_isolation(policy, "strict", &err) ||
	    heel_policy_limit(policy, "memory", "512MiB", &err)) {
		fprintf(stderr, "run: %s\n", err.message);
		return 1;
	}
	heel_spawn_opts_init(&opts);
	opts.launcher = getenv("HEEL_EXEC"); /* NULL: the installed heel-exec */
	/* At most 64 KiB of each stream, at most 10 s. */
	if (heel_run_capture(policy, argv, &opts, 64 * 1024, 10000, &cap, &err)) {
		fprintf(stderr, "run: %s\n", err.message);
		heel_policy_free(policy);
		return 1;
	}
	if (cap.status != 0)
		fprintf(stderr, "%s", cap.err); /* heel-exec says why on stderr */
	printf("captured: %.*s (exit status %d)\n", (int)strcspn(cap.out, "\n"), cap.out,
	       cap.status);
	heel_capture_free(&cap);
	heel_policy_free(policy);
	return 0;
}
