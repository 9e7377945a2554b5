/* SPDX-License-Identifier: MIT
 * units: sizes, durations and counts as policies write them, with the
 * 64-bit overflow checks that keep a huge limit from wrapping to a small
 * one; plus the errno and syscall name tables sema relies on. */
#include <criterion/criterion.h>

#include <stdint.h>
#include <string.h>

#include "errno_names.h"
#include "seccomp_policy.h"
#include "syscalls.h"
#include "units.h"

struct unit_case {
	const char *text;
	enum units_kind kind;
	enum units_status status;
	uint64_t value;
	size_t unit_off;
};

static const struct unit_case cases[] = {
    {"1B", UNITS_SIZE, UNITS_OK, 1, 1},
    {"512KiB", UNITS_SIZE, UNITS_OK, 512ull << 10, 3},
    {"2GiB", UNITS_SIZE, UNITS_OK, 2ull << 30, 1},
    {"3MiB", UNITS_SIZE, UNITS_OK, 3ull << 20, 1},
    {"1TiB", UNITS_SIZE, UNITS_OK, 1ull << 40, 1},
    {"5KB", UNITS_SIZE, UNITS_OK, 5000, 1},
    {"5MB", UNITS_SIZE, UNITS_OK, 5000000, 1},
    {"5GB", UNITS_SIZE, UNITS_OK, 5000000000ull, 1},
    {"0B", UNITS_SIZE, UNITS_OK, 0, 1},
    {"007MiB", UNITS_SIZE, UNITS_OK, 7ull << 20, 3},
    {"512", UNITS_SIZE, UNITS_MISSING_UNIT, 0, 3},
    {"2gib", UNITS_SIZE, UNITS_UNKNOWN_UNIT, 0, 1},
    {"2TB", UNITS_SIZE, UNITS_UNKNOWN_UNIT, 0, 1},
    {"2s", UNITS_SIZE, UNITS_UNKNOWN_UNIT, 0, 1},
    {"GiB", UNITS_SIZE, UNITS_NOT_A_NUMBER, 0, 0},
    {"", UNITS_SIZE, UNITS_NOT_A_NUMBER, 0, 0},
    /* 2^64 - 1 bytes fits; one more does not. */
    {"18446744073709551615B", UNITS_SIZE, UNITS_OK, UINT64_MAX, 20},
    {"18446744073709551616B", UNITS_SIZE, UNITS_OVERFLOW, 0, 20},
    /* 2^24 TiB = 2^64 bytes: the multiplication overflows. */
    {"16777215TiB", UNITS_SIZE, UNITS_OK, 16777215ull << 40, 8},
    {"16777216TiB", UNITS_SIZE, UNITS_OVERFLOW, 0, 8},
    {"99999999999999999999999GiB", UNITS_SIZE, UNITS_OVERFLOW, 0, 23},
    /* Even an overflowing number reports a wrong unit first. */
    {"99999999999999999999999xx", UNITS_SIZE, UNITS_UNKNOWN_UNIT, 0, 23},

    {"1ms", UNITS_DURATION, UNITS_OK, 1, 1},
    {"60s", UNITS_DURATION, UNITS_OK, 60000, 2},
    {"5m", UNITS_DURATION, UNITS_OK, 300000, 1},
    {"2h", UNITS_DURATION, UNITS_OK, 7200000, 1},
    {"60", UNITS_DURATION, UNITS_MISSING_UNIT, 0, 2},
    {"60sec", UNITS_DURATION, UNITS_UNKNOWN_UNIT, 0, 2},
    {"60MiB", UNITS_DURATION, UNITS_UNKNOWN_UNIT, 0, 2},
    {"5124095576030431h", UNITS_DURATION, UNITS_OVERFLOW, 0, 16},

    {"256", UNITS_COUNT, UNITS_OK, 256, 3},
    {"0", UNITS_COUNT, UNITS_OK, 0, 1},
    {"256k", UNITS_COUNT, UNITS_UNEXPECTED_UNIT, 0, 3},
    /* A fraction is an unknown unit here; the scanner words it. */
    {"1.5GiB", UNITS_SIZE, UNITS_UNKNOWN_UNIT, 0, 1},
    {"18446744073709551616", UNITS_COUNT, UNITS_OVERFLOW, 0, 20},
};

Test(units, table)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct unit_case *c = &cases[i];
		uint64_t v = 0;
		size_t off = 99;
		enum units_status st = units_parse(c->text, c->kind, &v, &off);

		cr_expect_eq(st, c->status, "%s: status %d, expected %d", c->text, st, c->status);
		cr_expect_eq(off, c->unit_off, "%s: unit offset %zu, expected %zu", c->text, off,
			     c->unit_off);
		if (c->status == UNITS_OK)
			cr_expect_eq(v, c->value, "%s: %llu, expected %llu", c->text,
				     (unsigned long long)v, (unsigned long long)c->value);
	}
}

Test(units, names)
{
	const char *const *s = units_names(UNITS_SIZE);
	const char *const *d = units_names(UNITS_DURATION);
	size_t n = 0;

	while (s[n])
		n++;
	cr_expect_eq(n, 8);
	cr_expect_str_eq(d[0], "ms");
	cr_expect_null(units_names(UNITS_COUNT)[0]);
}

Test(units, seconds_round_up)
{
	cr_expect_eq(units_ms_to_seconds_up(1000), 1);
	cr_expect_eq(units_ms_to_seconds_up(1001), 2);
	cr_expect_eq(units_ms_to_seconds_up(1999), 2);
	cr_expect_eq(units_ms_to_seconds_up(60000), 60);
	cr_expect_eq(units_ms_to_seconds_up(UINT64_MAX), UINT64_MAX / 1000 + 1);
}

Test(units, guess_a_misspelt_unit)
{
	static const struct {
		enum units_kind kind;
		const char *unit, *want, *decimal;
		unsigned times;
	} guesses[] = {
	    {UNITS_SIZE, "G", "GiB", "GB", 1},	 {UNITS_SIZE, "g", "GiB", "GB", 1},
	    {UNITS_SIZE, "gb", "GiB", "GB", 1},	 {UNITS_SIZE, "Gb", "GiB", "GB", 1},
	    {UNITS_SIZE, "M", "MiB", "MB", 1},	 {UNITS_SIZE, "k", "KiB", "KB", 1},
	    {UNITS_SIZE, "T", "TiB", "", 1},	 {UNITS_SIZE, "TB", "TiB", "", 1},
	    {UNITS_SIZE, "bytes", "B", NULL, 1}, {UNITS_DURATION, "sec", "s", NULL, 1},
	    {UNITS_DURATION, "Minutes", "m", NULL, 1}, {UNITS_DURATION, "hr", "h", NULL, 1},
	    {UNITS_DURATION, "msec", "ms", NULL, 1},   {UNITS_DURATION, "days", "h", NULL, 24},
	};
	struct units_guess g;

	for (size_t i = 0; i < sizeof(guesses) / sizeof(guesses[0]); i++) {
		cr_assert_eq(units_guess(guesses[i].kind, guesses[i].unit, &g), 0, "%s", guesses[i].unit);
		cr_expect_str_eq(g.unit, guesses[i].want, "%s", guesses[i].unit);
		if (guesses[i].decimal)
			cr_expect(g.decimal && strcmp(g.decimal, guesses[i].decimal) == 0, "%s",
				  guesses[i].unit);
		else
			cr_expect_null(g.decimal, "%s", guesses[i].unit);
		cr_expect_eq(g.times, guesses[i].times, "%s", guesses[i].unit);
	}
	/* Not a spelling of a unit: the edit-distance hint is better. */
	cr_expect_neq(units_guess(UNITS_SIZE, "parsecs", &g), 0);
	cr_expect_neq(units_guess(UNITS_SIZE, "Gib", &g), 0);
	cr_expect_neq(units_guess(UNITS_SIZE, "sec", &g), 0);
	cr_expect_neq(units_guess(UNITS_DURATION, "G", &g), 0);
	cr_expect_neq(units_guess(UNITS_COUNT, "k", &g), 0);
}

Test(units, fractions_written_whole)
{
	static const struct {
		const char *text, *want;
	} ok[] = {
	    {"1.5GiB", "1536MiB"}, {"0.5GiB", "512MiB"}, {"2.25KiB", "2304B"},
	    {"0.5GB", "500MB"},	   {"1.5MB", "1500KB"},	 {"1.0GiB", "1GiB"},
	    {"0.25s", "250ms"},	   {"1.5h", "90m"},	 {"2.5m", "150s"},
	    {"0.001s", "1ms"},
	};
	static const char *const bad[] = {
	    "1.3GiB", /* not a whole number of bytes */
	    "0.5ms",  "1.5",   "1.5xyz", "1.GiB", ".5GiB", "1.5.5GiB", "GiB",
	    "99999999999999999999.5GiB", "0.0000000000001GiB",
	};
	char out[64];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		cr_assert_eq(units_whole(ok[i].text, out, sizeof(out)), 0, "%s", ok[i].text);
		cr_expect_str_eq(out, ok[i].want, "%s", ok[i].text);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_neq(units_whole(bad[i], out, sizeof(out)), 0, "%s", bad[i]);
}

Test(errno_names, values_are_linux_generic)
{
	cr_expect_eq(errno_value("EPERM"), 1);
	cr_expect_eq(errno_value("ENOSYS"), 38);
	cr_expect_eq(errno_value("EACCES"), 13);
	cr_expect_eq(errno_value("EWOULDBLOCK"), 11);
	cr_expect_eq(errno_value("EHWPOISON"), 133);
	cr_expect_eq(errno_value("eperm"), -1);
	cr_expect_eq(errno_value("EBANANA"), -1);
	cr_expect_str_eq(errno_name(11), "EAGAIN");
	cr_expect_str_eq(errno_name(35), "EDEADLK");
	cr_expect_null(errno_name(0));
	cr_expect_null(errno_name(4096));
}

Test(errno_names, list_matches_lookup)
{
	const char *const *v = errno_names();
	size_t n = 0;

	for (; v[n]; n++)
		cr_expect_geq(errno_value(v[n]), 1, "%s", v[n]);
	cr_expect_geq(n, 130);
}

Test(syscalls, known_on_either_architecture)
{
	cr_expect(syscalls_known("personality"));
	cr_expect(syscalls_known("openat"));
	/* x86_64 only */
	cr_expect(syscalls_known("open"));
	cr_expect(syscalls_known("arch_prctl"));
	/* neither x86_64 nor aarch64: i386's multiplexer */
	cr_expect_not(syscalls_known("socketcall"));
	cr_expect_not(syscalls_known("frobnicate"));
	cr_expect_not(syscalls_known(""));
}

/* sema answers from the seccomp backend's tables: every name the backend
 * can put in a filter is accepted, including calls newer than libseccomp
 * 2.5 (open_tree_attr must be deniable along with the mount API). */
Test(syscalls, agrees_with_the_backend)
{
	for (int a = 0; a < SCP_ARCH_COUNT; a++) {
		size_t len;
		const struct scp_syscall *t = scp_table((enum scp_arch)a, &len);

		for (size_t i = 0; i < len; i++) {
			cr_expect(syscalls_known(t[i].name), "%s", t[i].name);
			cr_expect_eq(syscalls_never_allowable(t[i].name),
				     scp_never_allowable(t[i].name), "%s", t[i].name);
		}
	}
	cr_expect(syscalls_known("open_tree_attr"));
	cr_expect(syscalls_known("mseal"));
	cr_expect(syscalls_known("uretprobe")); /* x86_64 only */
	cr_expect_not(syscalls_known(NULL));
}

Test(syscalls, never_allowable)
{
	static const char *const never[] = {
	    "io_uring_setup",
	    "io_uring_enter",
	    "io_uring_register",
	    "ptrace",
	    "process_vm_readv",
	    "process_vm_writev",
	    "bpf",
	    "perf_event_open",
	    "kexec_load",
	    "kexec_file_load",
	    "init_module",
	    "finit_module",
	    "delete_module",
	};

	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++) {
		cr_expect(syscalls_never_allowable(never[i]), "%s", never[i]);
		cr_expect(syscalls_known(never[i]), "%s", never[i]);
	}
	cr_expect_not(syscalls_never_allowable("personality"));
	cr_expect_not(syscalls_never_allowable("execve"));
}

Test(syscalls, names_sorted_unique)
{
	const char *const *v = syscalls_names();
	size_t n = 0;

	cr_assert_not_null(v);
	for (; v[n]; n++) {
		if (n)
			cr_expect_lt(strcmp(v[n - 1], v[n]), 0, "%s then %s", v[n - 1], v[n]);
		cr_expect(syscalls_known(v[n]), "%s", v[n]);
	}
	cr_expect_gt(n, 300);
	/* Cached: the same array every time. */
	cr_expect_eq(syscalls_names(), v);
}
