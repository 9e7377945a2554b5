# SPDX-License-Identifier: MIT
# heel: heelc (policy compiler), heel-exec (launcher), heel-proxy.
# Everything is built into build/; generated sources go to build/gen.

SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c

PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
CLANG ?= clang
BISON ?= bison
FLEX ?= flex

B := build
GEN := $(B)/gen
OBJ := $(B)/obj
BIN := $(B)/bin
LIB := $(B)/lib
TBIN := $(B)/tests

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wno-unused-parameter
CSTD := -std=c17 -D_GNU_SOURCE
OPT ?= -O2 -g
HARDEN := -D_FORTIFY_SOURCE=3 -fstack-protector-strong -fPIE
CFLAGS_ALL := $(CSTD) $(OPT) $(WARN) $(HARDEN) -fvisibility=hidden \
	-Icompiler -Iruntime -I$(GEN) $(CFLAGS)
LDFLAGS_ALL := -pie $(LDFLAGS)
# The trusted base (runtime/, launcher/) sees only its own headers: the
# build, not a convention, keeps compiler headers and generated code out
# of heel-exec.
CFLAGS_TRUSTED := $(CSTD) $(OPT) $(WARN) $(HARDEN) -fvisibility=hidden -Iruntime -Ilauncher $(CFLAGS)
# Generated scanner/parser: their own warnings are not ours to fix.
GEN_CFLAGS := $(CSTD) $(OPT) $(HARDEN) -fvisibility=hidden -Icompiler -Iruntime -I$(GEN) $(CFLAGS)

# Packages from Debian, installed by `make deps` (idempotent, quiet when
# nothing is missing). Build: what heelc needs. Check: what tests need
# (debian-archive-keyring: tests/lib/debian-suite.sh checks what it
# fetches from Debian's archive against it; curl, git, python3, pip and
# iproute2: the clients and the stand-in internet of tests/net).
DEPS_BUILD := flex bison libjansson-dev nettle-dev pkg-config musl-tools libc-ares-dev
DEPS_CHECK := $(DEPS_BUILD) libseccomp-dev libcriterion-dev clang libclang-rt-14-dev procps \
	debian-archive-keyring curl git python3 python3-pip iproute2
# The demo's network part: a stand-in internet (tests/net/testhost.sh)
# and a client.
DEPS_DEMO := $(DEPS_BUILD) curl python3 iproute2
DEPS_BENCH := $(DEPS_CHECK) hyperfine bubblewrap firejail tinyproxy
# Kernel guests (tests/kernels): QEMU, a static busybox for the
# initramfs, cpio and xz to build it and unpack modules, the archive key
# to fetch Debian's kernels with.
DEPS_KERNELS := $(DEPS_CHECK) qemu-system-x86 busybox-static cpio xz-utils debian-archive-keyring

define install_missing
	@missing=""; \
	if command -v dpkg-query >/dev/null 2>&1; then \
		for p in $(1); do \
			dpkg-query -W -f='$${Status}\n' "$$p" 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
		done; \
	fi; \
	if [ -n "$$missing" ]; then \
		echo "make deps: installing$$missing"; \
		if [ "$$(id -u)" != 0 ]; then echo "make deps: need root to install:$$missing" >&2; exit 1; fi; \
		log=$$(mktemp); \
		{ apt-get update -qq && \
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; } \
			>"$$log" 2>&1 || { cat "$$log" >&2; rm -f "$$log"; echo "make deps: apt-get install failed:$$missing" >&2; exit 1; }; \
		rm -f "$$log"; \
	fi
endef

# ---------------------------------------------------------------- sources
RUNTIME_SRC := $(sort $(wildcard runtime/*.c))
COMPILER_SRC := $(sort $(filter-out compiler/main.c,$(wildcard compiler/*.c)))
POLICIES := $(sort $(shell find policies -name '*.heel' 2>/dev/null))
GEN_SRC := $(GEN)/parser.c $(GEN)/lexer.c $(GEN)/presets_data.c \
	$(GEN)/syscall_table_x86_64.c $(GEN)/syscall_table_aarch64.c

RUNTIME_OBJ := $(RUNTIME_SRC:%.c=$(OBJ)/%.o)
COMPILER_OBJ := $(COMPILER_SRC:%.c=$(OBJ)/%.o)
GEN_OBJ := $(GEN_SRC:$(GEN)/%.c=$(OBJ)/gen/%.o)

LIBS_HEELC := $(shell pkg-config --libs jansson nettle 2>/dev/null || echo -ljansson -lnettle)
# libseccomp only for tests and benchmarks: the comparison generator
# (tests/unit/support_libseccomp.c) and the table cross-check. heelc
# builds its BPF itself and does not link it.
LIBS_SECCOMP := $(shell pkg-config --libs libseccomp 2>/dev/null || echo -lseccomp)

.PHONY: all deps deps-check deps-bench deps-demo deps-kernels check-kernels check-kernel-no-landlock demo check fuzz bench fmt install clean \
	check-unit check-golden check-roundtrip check-asan check-fuzz-smoke \
	check-launcher check-conformance check-matrix check-container check-apparmor

all: $(BIN)/heelc $(BIN)/heel-exec $(BIN)/heel-exec-static $(BIN)/heel-exec-musl $(BIN)/heel-proxy

deps:
	$(call install_missing,$(DEPS_BUILD))
deps-check:
	$(call install_missing,$(DEPS_CHECK))
deps-bench:
	$(call install_missing,$(DEPS_BENCH))
deps-demo:
	$(call install_missing,$(DEPS_DEMO))
deps-kernels:
	$(call install_missing,$(DEPS_KERNELS))

$(GEN) $(OBJ) $(BIN) $(LIB) $(TBIN):
	@mkdir -p $@

$(GEN)/parser.c $(GEN)/parser.h: grammar/parser.y | $(GEN)
	$(BISON) -Wall -Werror --defines=$(GEN)/parser.h -o $(GEN)/parser.c $<

$(GEN)/lexer.c $(GEN)/lexer.h: grammar/lexer.l $(GEN)/parser.h | $(GEN)
	$(FLEX) --header-file=$(GEN)/lexer.h -o $(GEN)/lexer.c $<

$(GEN)/presets_data.c: compiler/embed_policies.sh $(POLICIES) | $(GEN)
	sh compiler/embed_policies.sh policies $@

# Syscall names and numbers from the kernel UAPI headers, not libseccomp
# (see the script): one table per architecture heel builds filters for.
$(GEN)/syscall_table_%.c: compiler/gen_syscall_table.sh | $(GEN)
	sh compiler/gen_syscall_table.sh $* $@

$(OBJ)/gen/%.o: $(GEN)/%.c $(GEN)/parser.h $(GEN)/lexer.h
	@mkdir -p $(dir $@)
	$(CC) $(GEN_CFLAGS) -MMD -MP -c -o $@ $<

$(OBJ)/%.o: %.c | $(GEN)/parser.h $(GEN)/lexer.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

$(LIB)/libheelrt.a: $(RUNTIME_OBJ) | $(LIB)
	@rm -f $@
	ar rcs $@ $^

$(LIB)/libheelc.a: $(COMPILER_OBJ) $(GEN_OBJ) | $(LIB)
	@rm -f $@
	ar rcs $@ $^

$(BIN)/heelc: $(OBJ)/compiler/main.o $(LIB)/libheelc.a $(LIB)/libheelrt.a | $(BIN)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS_HEELC)

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)

# ---------------------------------------------------------------- heel-exec
# libc only, statically linkable: the launcher and, from libheelrt.a, the
# runtime modules it uses; nothing from compiler/, no libseccomp, jansson
# or nettle. runtime/ and launcher/ include nothing generated, so their
# objects do not wait for the parser.
LAUNCHER_SRC := launcher/heel-exec.c launcher/linux.c launcher/linux_enforce.c \
	launcher/linux_view.c launcher/linux_idmap.c launcher/linux_net.c launcher/linux_cgroup.c \
	launcher/linux_hostenv.c launcher/linux_proxy.c launcher/linux_hostrun.c
LAUNCHER_OBJ := $(LAUNCHER_SRC:%.c=$(OBJ)/%.o)
# The test-only build without Landlock and seccomp (tests/launcher): its
# launcher objects apart, so HEEL_TEST_NO_ENFORCE never reaches bin/.
NOENFORCE_OBJ := $(LAUNCHER_SRC:%.c=$(OBJ)/noenforce/%.o)

$(LAUNCHER_OBJ) $(RUNTIME_OBJ): $(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_TRUSTED) -MMD -MP -c -o $@ $<

$(NOENFORCE_OBJ): $(OBJ)/noenforce/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_TRUSTED) -DHEEL_TEST_NO_ENFORCE -Wno-error=cpp -MMD -MP -c -o $@ $<

$(BIN)/heel-exec: $(LAUNCHER_OBJ) $(LIB)/libheelrt.a | $(BIN)
	$(CC) $(LDFLAGS_ALL) -o $@ $^

$(BIN)/heel-exec-static: $(LAUNCHER_OBJ) $(LIB)/libheelrt.a | $(BIN)
	$(CC) -static-pie $(LDFLAGS) -o $@ $^

# The smallest trusted base: heel-exec linked statically against musl
# (Debian's musl-tools). musl ships no kernel headers, so the kernel's
# UAPI headers come after musl's own (-idirafter): only linux/ and asm/
# are taken from there.
MUSL_CC ?= musl-gcc
MUSL_CFLAGS := $(CSTD) -O2 $(WARN) -fstack-protector-strong -Iruntime -Ilauncher \
	-idirafter /usr/include -idirafter /usr/include/$(shell $(CC) -print-multiarch 2>/dev/null)
MUSL_SRC := $(LAUNCHER_SRC) $(RUNTIME_SRC)
MUSL_OBJ := $(MUSL_SRC:%.c=$(OBJ)/musl/%.o)

$(MUSL_OBJ): $(OBJ)/musl/%.o: %.c
	@mkdir -p $(dir $@)
	$(MUSL_CC) $(MUSL_CFLAGS) -MMD -MP -c -o $@ $<

$(BIN)/heel-exec-musl: $(MUSL_OBJ) | $(BIN)
	$(MUSL_CC) -static -o $@ $^

# heel-exec-musl with launch phase marks (launcher/launch_timing.h), for
# `make bench` only: never installed, never tested as the launcher.
TIMING_OBJ := $(MUSL_SRC:%.c=$(OBJ)/timing/%.o)

$(TIMING_OBJ): $(OBJ)/timing/%.o: %.c
	@mkdir -p $(dir $@)
	$(MUSL_CC) $(MUSL_CFLAGS) -DHEEL_LAUNCH_TIMING -MMD -MP -c -o $@ $<

$(B)/bench/heel-exec-timing: $(TIMING_OBJ)
	@mkdir -p $(dir $@)
	$(MUSL_CC) -static -o $@ $^

$(TBIN)/heel-exec-noenforce: $(NOENFORCE_OBJ) $(LIB)/libheelrt.a | $(TBIN)
	$(CC) $(LDFLAGS_ALL) -o $@ $^

# ---------------------------------------------------------------- heel-proxy
# A program of its own that heel-exec starts, never linked into heel-exec:
# c-ares resolves names, jansson writes the audit and decider lines. Its
# modules (runtime/proxy/) go into one archive the unit tests link too.
PROXY_SRC := $(sort $(filter-out runtime/proxy/main.c,$(wildcard runtime/proxy/*.c)))
PROXY_OBJ := $(PROXY_SRC:%.c=$(OBJ)/%.o)
LIBS_PROXY := $(shell pkg-config --libs libcares jansson 2>/dev/null || echo -lcares -ljansson)

$(PROXY_OBJ) $(OBJ)/runtime/proxy/main.o: $(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_TRUSTED) -Iruntime/proxy -MMD -MP -c -o $@ $<

$(LIB)/libheelproxy.a: $(PROXY_OBJ) | $(LIB)
	@rm -f $@
	ar rcs $@ $^

# Linked statically: every launch under a proxy waits for it to start,
# and the dynamic loader's work for libc, c-ares and jansson was the
# largest part of that (it never looks up services or users, so glibc's
# NSS is never loaded at run time).
$(BIN)/heel-proxy: $(OBJ)/runtime/proxy/main.o $(LIB)/libheelproxy.a $(LIB)/libheelrt.a | $(BIN)
	$(CC) -static-pie $(LDFLAGS) -o $@ $^ -lcares -ljansson

# ---------------------------------------------------------------- tests
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(TBIN)/%)
TEST_SUPPORT := $(sort $(wildcard tests/unit/support_*.c))
TEST_SUPPORT_OBJ := $(TEST_SUPPORT:%.c=$(OBJ)/%.o)

# Test-only code (the libseccomp comparison generator), never in bin/;
# tests/bench links it too.
$(LIB)/libheeltest.a: $(TEST_SUPPORT_OBJ) | $(LIB)
	@rm -f $@
	ar rcs $@ $^

$(TBIN)/test_%: tests/unit/test_%.c $(LIB)/libheeltest.a $(LIB)/libheelc.a $(LIB)/libheelproxy.a $(LIB)/libheelrt.a | $(TBIN)
	$(CC) $(CFLAGS_ALL) -Iruntime/proxy -Itests/unit -o $@ $< $(LIB)/libheeltest.a $(LIB)/libheelc.a \
		$(LIB)/libheelproxy.a $(LIB)/libheelrt.a -lcriterion $(LIBS_HEELC) $(LIBS_SECCOMP) $(LIBS_PROXY)

# The read-only paths at launch are launcher code: the test links that
# object, and heelc's writer to make the artifacts it reads.
$(TBIN)/test_hostrun: tests/unit/test_hostrun.c $(OBJ)/launcher/linux_hostrun.o $(LIB)/libheelc.a $(LIB)/libheelrt.a | $(TBIN)
	$(CC) $(CFLAGS_ALL) -Ilauncher -Itests/unit -o $@ $< $(OBJ)/launcher/linux_hostrun.o \
		$(LIB)/libheelc.a $(LIB)/libheelrt.a -lcriterion $(LIBS_HEELC)

# The host diagnosis is launcher code: its test links that object and the
# runtime it uses (mountinfo's unescape).
$(TBIN)/test_hostenv: tests/unit/test_hostenv.c $(OBJ)/launcher/linux_hostenv.o $(LIB)/libheelrt.a | $(TBIN)
	$(CC) $(CFLAGS_ALL) -Ilauncher -Itests/unit -o $@ $< $(OBJ)/launcher/linux_hostenv.o $(LIB)/libheelrt.a -lcriterion

check-unit: $(UNIT_BIN) $(BIN)/heelc
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; HEELC=$(BIN)/heelc $$t --jobs 2; done

check-golden: $(BIN)/heelc
	@bash tests/golden/run.sh $(BIN)/heelc

check-roundtrip: $(BIN)/heelc
	@bash tests/roundtrip/run.sh $(BIN)/heelc

# heel-exec run for real, as root and as uid 65534, on artifacts heelc makes.
check-launcher: $(BIN)/heelc $(BIN)/heel-exec $(BIN)/heel-exec-static $(BIN)/heel-exec-musl $(TBIN)/heel-exec-noenforce
	@bash tests/launcher/run.sh $(B)

# The escape suite (tests/conformance): the escape catalogue run for real against
# bin/heel-exec, as root and as uid 65534. Its helpers are static so they
# run from the test's own executable directory.
CONF := $(B)/conformance
CONF_CFLAGS := $(CSTD) -O2 -Wall -Wextra -Werror
$(CONF)/try $(CONF)/ptyrun $(CONF)/serve: $(CONF)/%: tests/conformance/%.c
	@mkdir -p $(CONF)
	$(CC) $(CONF_CFLAGS) -static -o $@ $<
$(CONF)/payload: tests/conformance/payload.c
	@mkdir -p $(CONF)
	$(CC) $(CONF_CFLAGS) -o $@ $<
$(CONF)/hpolpatch: tests/conformance/hpolpatch.c runtime/crc32c.c
	@mkdir -p $(CONF)
	$(CC) $(CONF_CFLAGS) -Iruntime -o $@ $^

# Every build of the launcher: the static ones are the small trusted base
# we recommend, and their libcs differ (musl's getdents, qsort, realpath).
check-conformance: $(BIN)/heelc $(BIN)/heel-exec $(BIN)/heel-exec-static $(BIN)/heel-exec-musl \
		$(CONF)/try $(CONF)/ptyrun $(CONF)/serve $(CONF)/payload $(CONF)/hpolpatch
	@set -e; for x in heel-exec heel-exec-static heel-exec-musl; do \
		echo "== conformance: $$x"; \
		bash tests/conformance/run.sh $(BIN)/heelc $(BIN)/$$x $(CONF); \
	done

# The launcher and escape suites again in a container-like setting: a PID
# namespace of their own (few processes), a mount namespace, and /proc
# masked as Docker masks it (tests/container).
# Then heel-exec under engine profiles emulated by tests/container/dockerlike
# (Docker's default seccomp profile; docker-default's `deny mount`): it
# refuses, naming the cause and the way out, or runs weakened with
# --best-effort.
check-container: $(BIN)/heelc $(BIN)/heel-exec $(BIN)/heel-exec-static $(BIN)/heel-exec-musl $(TBIN)/heel-exec-noenforce \
		$(CONF)/try $(CONF)/ptyrun $(CONF)/serve $(CONF)/payload $(CONF)/hpolpatch $(B)/container/dockerlike
	@bash tests/container/run.sh $(B)

$(B)/container/dockerlike: tests/container/dockerlike.c
	@mkdir -p $(dir $@)
	$(CC) $(CONF_CFLAGS) -o $@ $< $(LIBS_SECCOMP)

# heel-exec's AppArmor profile (packaging/apparmor) and its installation,
# against AppArmor 4's parser: trixie's, fetched into ~/.cache/heel-debian
# by tests/lib/debian-suite.sh (Debian 12's parser predates the `userns`
# rule). Nothing is loaded into the kernel.
check-apparmor: all
	@bash tests/apparmor/run.sh

# The launcher and conformance suites inside Debian's own kernels, booted
# in QEMU (TCG) on the host's / (tests/kernels): one guest per kernel
# series, fetched once into ~/.cache/heel-kernels (HEEL_KERNEL_CACHE).
# check-kernel-6.1 is Debian 12's kernel alone; check-kernels the matrix,
# KERNELS= selects. The table: build/kernels/matrix.md.
KERNELS ?= 6.1 6.12 6.18 7.3
KERNEL_PREREQS := $(BIN)/heelc $(BIN)/heel-exec $(BIN)/heel-exec-static $(BIN)/heel-exec-musl \
	$(TBIN)/heel-exec-noenforce $(CONF)/try $(CONF)/ptyrun $(CONF)/serve $(CONF)/payload $(CONF)/hpolpatch
check-kernels: deps-kernels $(KERNEL_PREREQS)
	@bash tests/kernels/run.sh $(B) $(KERNELS)
# Debian 12's kernel booted without Landlock (lsm= leaving it out): the
# refusal, and what --best-effort keeps (tests/kernels/no-landlock.sh).
check-kernel-no-landlock: deps-kernels $(KERNEL_PREREQS)
	@bash tests/kernels/fetch.sh 6.1
	@HEEL_KERNEL_APPEND=lsm=lockdown,yama,integrity,apparmor \
		bash tests/kernels/boot.sh 6.1 $(B)/kernels/no-landlock.log -- \
		bash tests/kernels/no-landlock.sh $(B); \
		r=$$?; grep -a "passed, .* failed" $(B)/kernels/no-landlock.log | tail -1; exit $$r
check-kernel-%: deps-kernels $(KERNEL_PREREQS)
	@bash tests/kernels/run.sh $(B) $*

# Each isolation base (strict, default, permissive) against a matrix of
# places (system dirs, home, protected paths, shared temp, the working
# directory) and actions, run for real under bin/heel-exec as root and
# as uid 65534 (tests/matrix).
check-matrix: $(BIN)/heelc $(BIN)/heel-exec $(BIN)/heel-exec-static $(BIN)/heel-exec-musl
	@set -e; for x in heel-exec heel-exec-static heel-exec-musl; do \
		echo "== isolation matrix: $$x"; \
		bash tests/matrix/run.sh $(B) $$x; \
	done

# The artifact reader (and everything in runtime/) again under ASan+UBSan,
# since it is what parses untrusted bytes in heel-exec; the Landlock
# planner and the process-tree sweep, which run in every launch; and the
# proxy's protocol parsers, which read what any sandboxed process sends.
ASAN := $(B)/asan
ASAN_FLAGS := $(CSTD) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -Icompiler -Iruntime -Iruntime/proxy -I$(GEN)
ASAN_TESTS := $(sort $(wildcard tests/unit/test_artifact*.c tests/unit/test_landlock_lower.c tests/unit/test_bpf_verify.c \
	tests/unit/test_landlock_apply.c tests/unit/test_proctree.c tests/unit/test_cgroup.c \
	tests/unit/test_pathexpand.c tests/unit/test_workdir.c tests/unit/test_env.c tests/unit/test_nethost.c \
	tests/unit/test_proxy_policy.c tests/unit/test_proxy_http.c tests/unit/test_proxy_socks5.c \
	tests/unit/test_proxy_audit.c tests/unit/test_proxy_decider.c))
# The sources under ASan are compiled once into one archive, not once per
# test binary.
ASAN_LIB_SRC := $(TEST_SUPPORT) $(COMPILER_SRC) $(RUNTIME_SRC) $(PROXY_SRC) $(GEN_SRC)
ASAN_OBJ := $(ASAN_LIB_SRC:%.c=$(ASAN)/obj/%.o)
$(ASAN_OBJ): $(ASAN)/obj/%.o: %.c $(GEN)/parser.h $(GEN)/lexer.h
	@mkdir -p $(dir $@)
	$(CC) $(ASAN_FLAGS) -Wno-unused-parameter -Itests/unit -MMD -MP -c -o $@ $<
# Header dependencies too: a changed header (a constant of the Landlock
# ABI, say) must rebuild what includes it, as in the main build.
-include $(ASAN_OBJ:%.o=%.d)
$(ASAN)/libheel-asan.a: $(ASAN_OBJ)
	ar rcs $@ $^
check-asan: $(ASAN)/libheel-asan.a
	@set -e; for t in $(ASAN_TESTS); do \
		n=$$(basename $$t .c); \
		$(CC) $(ASAN_FLAGS) -Wno-unused-parameter -Itests/unit -o $(ASAN)/$$n $$t $(ASAN)/libheel-asan.a \
			-lcriterion $(LIBS_HEELC) $(LIBS_SECCOMP) $(LIBS_PROXY); \
		echo "== $(ASAN)/$$n (ASan+UBSan)"; \
		ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/unit/lsan.supp,print_suppressions=0 \
			UBSAN_OPTIONS=print_stacktrace=1 $(ASAN)/$$n --jobs 2; \
	done

# libFuzzer targets: clang only. `make check` runs each briefly; `make fuzz` long.
comma := ,
FUZZ := $(B)/fuzz
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(FUZZ)/%)
FUZZ_FLAGS := $(CSTD) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-Icompiler -Iruntime -Iruntime/proxy -I$(GEN)
FUZZ_SMOKE_SECONDS ?= 7
FUZZ_LONG_SECONDS ?= 600

# The sources are instrumented once into one archive (fuzzer-no-link), not
# once per target.
FUZZ_LIB_SRC := $(COMPILER_SRC) $(RUNTIME_SRC) $(PROXY_SRC) $(GEN_SRC)
FUZZ_OBJ := $(FUZZ_LIB_SRC:%.c=$(FUZZ)/obj/%.o)
$(FUZZ_OBJ): $(FUZZ)/obj/%.o: %.c $(GEN)/parser.h $(GEN)/lexer.h
	@mkdir -p $(dir $@)
	$(CLANG) $(subst -fsanitize=fuzzer$(comma),-fsanitize=fuzzer-no-link$(comma),$(FUZZ_FLAGS)) \
		-c -o $@ $<
$(FUZZ)/libheel-fuzz.a: $(FUZZ_OBJ)
	ar rcs $@ $^
$(FUZZ)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ)/libheel-fuzz.a
	$(CLANG) $(FUZZ_FLAGS) -o $@ $< $(FUZZ)/libheel-fuzz.a $(LIBS_HEELC) $(LIBS_PROXY)

check-fuzz-smoke: $(FUZZ_BIN)
	@set -e; for f in $(FUZZ_BIN); do \
		n=$$(basename $$f); mkdir -p $(FUZZ)/corpus-$$n; \
		echo "== $$f ($(FUZZ_SMOKE_SECONDS) s)"; \
		if ! $$f -max_total_time=$(FUZZ_SMOKE_SECONDS) -print_final_stats=1 $(FUZZ)/corpus-$$n \
			tests/fuzz/seeds/$$n >$(FUZZ)/$$n.log 2>&1; then \
			tail -60 $(FUZZ)/$$n.log; echo "$$n: the fuzzer found a crash"; exit 1; \
		fi; \
		grep -E 'stat::number_of_executed_units' $(FUZZ)/$$n.log; \
	done

fuzz: deps-check $(FUZZ_BIN)
	@set -e; for f in $(FUZZ_BIN); do \
		n=$$(basename $$f); mkdir -p $(FUZZ)/corpus-$$n; \
		echo "== $$f ($(FUZZ_LONG_SECONDS) s)"; \
		$$f -max_total_time=$(FUZZ_LONG_SECONDS) -print_final_stats=1 $(FUZZ)/corpus-$$n tests/fuzz/seeds/$$n; \
	done

check: deps-check
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory check-unit
	@$(MAKE) --no-print-directory check-golden
	@$(MAKE) --no-print-directory check-roundtrip
	@$(MAKE) --no-print-directory check-launcher
	@$(MAKE) --no-print-directory check-conformance
	@$(MAKE) --no-print-directory check-matrix
	@$(MAKE) --no-print-directory check-container
	@$(MAKE) --no-print-directory check-apparmor
	@$(MAKE) --no-print-directory check-net
	@$(MAKE) --no-print-directory check-asan
	@$(MAKE) --no-print-directory check-fuzz-smoke
	@# Debian 12's own kernel (6.1, Landlock ABI 2) in QEMU: the suites
	@# where most users run, not only on this machine's 6.18.
	@$(MAKE) --no-print-directory check-kernel-6.1
	@$(MAKE) --no-print-directory check-kernel-no-landlock
	@echo "make check: all suites passed"

demo: deps-demo
	@$(MAKE) --no-print-directory all
	@bash tests/demo.sh $(BIN)

bench: deps-bench
	@$(MAKE) --no-print-directory all $(B)/bench/heel-exec-timing $(LIB)/libheeltest.a
	@bash tests/bench/run.sh $(BIN)

fmt:
	clang-format -i $(filter-out $(GEN)/%,$(wildcard compiler/*.[ch] runtime/*.[ch] launcher/*.[ch] tests/unit/*.[ch] tests/fuzz/*.c))

# Also heel-exec's AppArmor profile, for PREFIX/bin/heel-exec: into
# DESTDIR/etc/apparmor.d, and loaded where AppArmor is enabled and no
# DESTDIR is given (packaging/apparmor/install.sh says when it is not).
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 0755 $(BIN)/heelc $(DESTDIR)$(PREFIX)/bin/heelc
	install -m 0755 $(BIN)/heel-exec $(DESTDIR)$(PREFIX)/bin/heel-exec
	install -m 0755 $(BIN)/heel-proxy $(DESTDIR)$(PREFIX)/bin/heel-proxy
	install -m 0644 docs/heel-exec.1 $(DESTDIR)$(PREFIX)/share/man/man1/heel-exec.1
	install -m 0644 docs/heelc.1 $(DESTDIR)$(PREFIX)/share/man/man1/heelc.1
	install -m 0644 docs/heel.5 $(DESTDIR)$(PREFIX)/share/man/man5/heel.5
	@sh packaging/apparmor/install.sh packaging/apparmor/heel-exec "$(PREFIX)" "$(DESTDIR)"

clean:
	rm -rf $(B)

# The live network suite (tests/net): heel-exec and heel-proxy against
# namespaces that stand in for the internet, with curl, git, urllib, pip.
.PHONY: check-net
check-net: $(BIN)/heelc $(BIN)/heel-exec $(BIN)/heel-proxy
	bash tests/net/run.sh $(B)
