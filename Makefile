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

# Quiet by default: one line a target (`  CC      compiler/sema.c`), as
# Linux and git print; `make V=1` prints every command in full. A failing
# command's own output (the compiler's errors) is never hidden.
V ?= 0
ifeq ($(V),1)
Q :=
quiet =
else
Q := @
quiet = @printf '  %-7s %s\n' '$(1)' '$(2)';
endif

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
# iproute2: the clients and the stand-in internet of tests/net;
# ca-certificates and openssl: its HTTPS host, example.com, with a test
# CA; cargo and openssh-client: the original README's cargo and ssh-add
# examples under heel run; zsh, bash-completion and vim: checking what
# make install puts in place; python3-venv: the venvs of tests/python,
# made with /usr/bin/python3 and the pip ensurepip gives them; groff-base:
# tests/front checks the installed man pages with groff -man -ww).
DEPS_BUILD := flex bison libjansson-dev nettle-dev pkg-config musl-tools libc-ares-dev
DEPS_CHECK := $(DEPS_BUILD) libseccomp-dev libcriterion-dev clang libclang-rt-14-dev procps \
	debian-archive-keyring curl git python3 python3-pip python3-venv iproute2 ca-certificates openssl cargo openssh-client \
	zsh bash-completion vim netcat-openbsd groff-base
# heel-observe, the privileged denial observer (docs/observe.md): libbpf
# to load it, bpftool for vmlinux.h and the skeleton, clang for the BPF
# object. Optional for the build: without them heel-observe is not built
# and heel-exec runs without it.
DEPS_OBSERVE := libbpf-dev bpftool clang libelf-dev zlib1g-dev
DEPS_CHECK += $(DEPS_OBSERVE)
# The Node and Python packages (tests/bindings): setuptools and wheel for
# pip's offline build; Debian's nodejs, npm and N-API headers
# (libnode-dev) each only where missing: a Node from elsewhere
# (NodeSource's) carries npm and the headers itself, and Debian's npm and
# libnode-dev would conflict with it.
DEPS_CHECK += python3-setuptools python3-wheel $(if $(shell command -v node),,nodejs) \
	$(if $(shell command -v npm),,npm) $(if $(wildcard /usr/include/node/node_api.h),,libnode-dev)
# heel-exec.exe: cross-built with mingw-w64 and smoke-tested under Wine
# (make check-windows).
DEPS_CHECK += gcc-mingw-w64-x86-64 wine64
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
# heel's front end (compiler/heel/; its rules are near the end).
# doctor.c is heel's alone (it links jansson; libheel does not).
FRONT_SRC := $(sort $(filter-out compiler/heel/main.c compiler/heel/doctor.c,$(wildcard compiler/heel/*.c)))
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

.PHONY: uninstall install-apparmor uninstall-apparmor all deps deps-check deps-observe deps-bench deps-demo deps-kernels check-kernels check-kernel-no-landlock demo check fuzz bench fmt install clean \
	check-unit check-golden check-roundtrip check-asan check-fuzz-smoke \
	check-launcher check-conformance check-matrix check-container check-apparmor check-why

# The empty recipe keeps make from saying "Nothing to be done" when all
# is built (make demo, make check).
all: $(BIN)/heelc $(BIN)/heel-exec $(BIN)/heel-exec-static $(BIN)/heel-exec-musl $(BIN)/heel-proxy $(BIN)/heel-broker $(BIN)/heel-ipc $(BIN)/heel-why $(BIN)/heel
	@:

deps:
	$(call install_missing,$(DEPS_BUILD))
# And AppArmor 4's parser for check-apparmor, from trixie, unpacked into a
# cache (never installed): the suites fetch nothing at test time.
deps-check:
	$(call install_missing,$(DEPS_CHECK))
	@bash tests/apparmor/run.sh --fetch || { echo "make deps-check: cannot fetch trixie's apparmor_parser for check-apparmor" >&2; exit 1; }
deps-bench:
	$(call install_missing,$(DEPS_BENCH))
deps-demo:
	$(call install_missing,$(DEPS_DEMO))
deps-kernels:
	$(call install_missing,$(DEPS_KERNELS))
deps-observe:
	$(call install_missing,$(DEPS_OBSERVE))

$(GEN) $(OBJ) $(BIN) $(LIB) $(TBIN):
	$(Q)mkdir -p $@

# Grouped targets (&:): one bison or flex run makes both files, never two
# runs racing under -j.
$(GEN)/parser.c $(GEN)/parser.h &: grammar/parser.y | $(GEN)
	$(call quiet,GEN,$(GEN)/parser.c)$(BISON) -Wall -Werror --defines=$(GEN)/parser.h -o $(GEN)/parser.c $<

$(GEN)/lexer.c $(GEN)/lexer.h &: grammar/lexer.l $(GEN)/parser.h | $(GEN)
	$(call quiet,GEN,$(GEN)/lexer.c)$(FLEX) --header-file=$(GEN)/lexer.h -o $(GEN)/lexer.c $<

$(GEN)/presets_data.c: compiler/embed_policies.sh $(POLICIES) | $(GEN)
	$(call quiet,GEN,$@)sh compiler/embed_policies.sh policies $@

# Syscall names and numbers from the kernel UAPI headers, not libseccomp
# (see the script): one table per architecture heel builds filters for. A
# static pattern, so no other name (a dependency file's) can match it.
$(GEN)/syscall_table_x86_64.c $(GEN)/syscall_table_aarch64.c: $(GEN)/syscall_table_%.c: \
		compiler/gen_syscall_table.sh | $(GEN)
	$(call quiet,GEN,$@)sh compiler/gen_syscall_table.sh $* $@

$(OBJ)/gen/%.o: $(GEN)/%.c $(GEN)/parser.h $(GEN)/lexer.h
	$(Q)mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(GEN_CFLAGS) -MMD -MP -c -o $@ $<

$(OBJ)/%.o: %.c | $(GEN)/parser.h $(GEN)/lexer.h
	$(Q)mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

$(LIB)/libheelrt.a: $(RUNTIME_OBJ) | $(LIB)
	$(Q)rm -f $@
	$(call quiet,AR,$@)ar rcs $@ $^

# `include <name>` also finds presets a site put beside the installed
# stock policies (compiler/load.c).
# The object is rebuilt when PREFIX changes ($(B)/prefix holds the last).
# The file is brought up to date while the Makefile is read, not by a
# rule: a rule that runs on every make (a FORCE prerequisite) makes
# `make -q` and `make -n` take everything that depends on it for out of
# date, though a run then rebuilds nothing.
$(shell mkdir -p $(B) && { [ "$$(cat $(B)/prefix 2>/dev/null)" = "$(PREFIX)" ] || echo "$(PREFIX)" >$(B)/prefix; })
$(OBJ)/compiler/load.o $(OBJ)/pic/compiler/load.o: CFLAGS_ALL += -DHEEL_POLICY_DIR='"$(PREFIX)/share/heel/policies"'
$(OBJ)/compiler/load.o $(OBJ)/pic/compiler/load.o: $(B)/prefix
$(B)/prefix: ;

$(LIB)/libheelc.a: $(COMPILER_OBJ) $(GEN_OBJ) | $(LIB)
	$(Q)rm -f $@
	$(call quiet,AR,$@)ar rcs $@ $^

$(BIN)/heelc: $(OBJ)/compiler/main.o $(LIB)/libheelc.a $(LIB)/libheelrt.a | $(BIN)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS_HEELC)

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)

# ---------------------------------------------------------------- heel-exec
# libc only, statically linkable: the launcher and, from libheelrt.a, the
# runtime modules it uses; nothing from compiler/, no libseccomp, jansson
# or nettle. runtime/ and launcher/ include nothing generated, so their
# objects do not wait for the parser.
LAUNCHER_SRC := launcher/heel-exec.c launcher/linux.c launcher/linux_enforce.c \
	launcher/linux_view.c launcher/linux_idmap.c launcher/linux_net.c launcher/linux_cgroup.c \
	launcher/linux_hostenv.c launcher/linux_proxy.c launcher/linux_hostrun.c launcher/linux_gitscan.c \
	launcher/linux_helper.c launcher/linux_broker.c launcher/linux_execwhy.c launcher/linux_why.c \
	launcher/linux_observe.c launcher/linux_walls.c
LAUNCHER_OBJ := $(LAUNCHER_SRC:%.c=$(OBJ)/%.o)
# The test-only build without Landlock and seccomp (tests/launcher): its
# launcher objects apart, so HEEL_TEST_NO_ENFORCE never reaches bin/.
NOENFORCE_OBJ := $(LAUNCHER_SRC:%.c=$(OBJ)/noenforce/%.o)

$(LAUNCHER_OBJ) $(RUNTIME_OBJ): $(OBJ)/%.o: %.c
	$(Q)mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(CFLAGS_TRUSTED) -MMD -MP -c -o $@ $<

$(NOENFORCE_OBJ): $(OBJ)/noenforce/%.o: %.c
	$(Q)mkdir -p $(dir $@)
	$(call quiet,CC,$< [noenforce])$(CC) $(CFLAGS_TRUSTED) -DHEEL_TEST_NO_ENFORCE -Wno-error=cpp -MMD -MP -c -o $@ $<

$(BIN)/heel-exec: $(LAUNCHER_OBJ) $(LIB)/libheelrt.a | $(BIN)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS_ALL) -o $@ $^

$(BIN)/heel-exec-static: $(LAUNCHER_OBJ) $(LIB)/libheelrt.a | $(BIN)
	$(call quiet,LD,$@)$(CC) -static-pie $(LDFLAGS) -o $@ $^

# The smallest trusted base: heel-exec linked statically against musl
# (Debian's musl-tools). musl ships no kernel headers, so the kernel's
# UAPI headers come after musl's own (-idirafter): only linux/ and asm/
# are taken from there.
MUSL_CC ?= musl-gcc
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
MUSL_BASE_CFLAGS := $(CSTD) -O2 -fstack-protector-strong \
	-idirafter /usr/include -idirafter /usr/include/$(MULTIARCH)
MUSL_CFLAGS := $(MUSL_BASE_CFLAGS) $(WARN) -Iruntime -Ilauncher
MUSL_SRC := $(LAUNCHER_SRC) $(RUNTIME_SRC)
MUSL_OBJ := $(MUSL_SRC:%.c=$(OBJ)/musl/%.o)
# The other platforms' runtime parts (win_*, sbpl_params, ptrack) stay out of the
# Linux launcher: its trusted base holds only what it runs. (The heel
# front end's library, which reads every platform's part, links them.)
MUSL_EXEC_OBJ := $(filter-out $(OBJ)/musl/runtime/win_%.o $(OBJ)/musl/runtime/sbpl_params.o $(OBJ)/musl/runtime/ptrack.o,$(MUSL_OBJ))

$(MUSL_OBJ): $(OBJ)/musl/%.o: %.c
	$(Q)mkdir -p $(dir $@)
	$(call quiet,CC,$< [musl])$(MUSL_CC) $(MUSL_CFLAGS) -MMD -MP -c -o $@ $<

$(BIN)/heel-exec-musl: $(MUSL_EXEC_OBJ) | $(BIN)
	$(call quiet,LD,$@)$(MUSL_CC) -static -o $@ $^

# heel-exec-musl with launch phase marks (launcher/launch_timing.h), for
# `make bench` only: never installed, never tested as the launcher.
TIMING_OBJ := $(MUSL_SRC:%.c=$(OBJ)/timing/%.o)

$(TIMING_OBJ): $(OBJ)/timing/%.o: %.c
	$(Q)mkdir -p $(dir $@)
	$(call quiet,CC,$< [timing])$(MUSL_CC) $(MUSL_CFLAGS) -DHEEL_LAUNCH_TIMING -MMD -MP -c -o $@ $<

$(B)/bench/heel-exec-timing: $(TIMING_OBJ)
	$(Q)mkdir -p $(dir $@)
	$(call quiet,LD,$@)$(MUSL_CC) -static -o $@ $^

$(TBIN)/heel-exec-noenforce: $(NOENFORCE_OBJ) $(LIB)/libheelrt.a | $(TBIN)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS_ALL) -o $@ $^

# ---------------------------------------------------------------- heel-proxy
# A program of its own that heel-exec starts, never linked into heel-exec:
# c-ares resolves names, jansson writes the audit and decider lines. Its
# modules (runtime/proxy/) go into one archive the unit tests link too.
PROXY_SRC := $(sort $(filter-out runtime/proxy/main.c,$(wildcard runtime/proxy/*.c)))
PROXY_OBJ := $(PROXY_SRC:%.c=$(OBJ)/%.o)
LIBS_PROXY := $(shell pkg-config --libs libcares jansson 2>/dev/null || echo -lcares -ljansson)

$(PROXY_OBJ) $(OBJ)/runtime/proxy/main.o: $(OBJ)/%.o: %.c
	$(Q)mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(CFLAGS_TRUSTED) -Iruntime/proxy -MMD -MP -c -o $@ $<

$(LIB)/libheelproxy.a: $(PROXY_OBJ) | $(LIB)
	$(Q)rm -f $@
	$(call quiet,AR,$@)ar rcs $@ $^

# Linked statically: every launch under a proxy waits for it to start,
# and the dynamic loader's work for libc, c-ares and jansson was the
# largest part of that (it never looks up services or users, so glibc's
# NSS is never loaded at run time). For that reason the linker's warning
# that c-ares's getservbyname and getservbyport_r would need NSS (two
# lines each) is dropped; anything else it prints is shown.
NSS_WARNING := in statically linked applications requires at runtime the shared libraries
$(BIN)/heel-proxy: $(OBJ)/runtime/proxy/main.o $(LIB)/libheelproxy.a $(LIB)/libheelrt.a | $(BIN)
	$(call quiet,LD,$@)$(CC) -static-pie $(LDFLAGS) -o $@ $^ -lcares -ljansson 2>&1 >/dev/null | \
		awk 'index($$0, "$(NSS_WARNING)") { held = ""; next } \
			held != "" { print held } { held = $$0 } END { if (held != "") print held }' >&2

# ---------------------------------------------------------------- heel-observe
# The privileged denial observer (docs/observe.md): a program of its own
# that heel-exec starts where it may load BPF, never linked into
# heel-exec. Built only where its tools are (libbpf, bpftool, clang) and
# this machine's kernel has BTF to make vmlinux.h from, on x86-64 (the
# program reads x86-64 system call registers); elsewhere heel-exec runs
# without it, as it does where the kernel refuses it.
OBS := $(B)/observe
OBSERVE_OK := $(shell command -v bpftool >/dev/null 2>&1 && command -v $(CLANG) >/dev/null 2>&1 && \
	pkg-config --exists libbpf 2>/dev/null && [ -r /sys/kernel/btf/vmlinux ] && \
	[ "$(MULTIARCH)" = x86_64-linux-gnu ] && echo yes)
ifeq ($(OBSERVE_OK),yes)
all: $(BIN)/heel-observe
endif

# CO-RE: the types of the kernel it was built on, relocated at load time
# to the kernel it runs on.
$(OBS)/vmlinux.h:
	$(Q)mkdir -p $(dir $@)
	$(call quiet,GEN,$@)bpftool btf dump file /sys/kernel/btf/vmlinux format c >$@.tmp && mv $@.tmp $@

$(OBS)/observe.bpf.o: runtime/observe/observe.bpf.c runtime/observe/observe_event.h $(OBS)/vmlinux.h
	$(call quiet,CLANG,$<)$(CLANG) -target bpf -g -O2 -Wall -Werror -D__TARGET_ARCH_x86 \
		-I$(OBS) -Iruntime/observe -c -o $@ $<

$(OBS)/observe.skel.h: $(OBS)/observe.bpf.o
	$(call quiet,GEN,$@)bpftool gen skeleton $< name observe_bpf >$@.tmp && mv $@.tmp $@

# The CO-RE relocations' search through the kernel's 5 MB of BTF was most
# of the observer's start-up (80 of its ~150 ms): on the kernel it was
# built on, heel-observe uses the minimal BTF made here for this program
# instead, recognised by the size and CRC-32C of that kernel's BTF; any
# other kernel takes the full search.
$(OBS)/observe_btfsum: runtime/observe/observe_btfsum.c runtime/crc32c.c
	$(call quiet,CC,$@)$(CC) $(CSTD) -O2 -Iruntime -o $@ $^

$(OBS)/observe_minbtf.c: $(OBS)/observe.bpf.o $(OBS)/observe_btfsum
	$(call quiet,GEN,$@)bpftool gen min_core_btf /sys/kernel/btf/vmlinux $(OBS)/observe.min.btf $< && \
	{ set -- $$($(OBS)/observe_btfsum /sys/kernel/btf/vmlinux); \
	  echo "/* Generated by the Makefile: the minimal BTF of observe.bpf.o. Do not edit. */"; \
	  echo "#include <stddef.h>"; echo "#include <stdint.h>"; \
	  echo "const unsigned long long obs_min_btf_for_size = $$1ULL;"; \
	  echo "const uint32_t obs_min_btf_for_crc = $$2;"; \
	  echo "const unsigned char obs_min_btf[] = {"; \
	  od -An -v -tx1 $(OBS)/observe.min.btf | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo "};"; echo "const size_t obs_min_btf_len = sizeof(obs_min_btf);"; } >$@.tmp && mv $@.tmp $@

$(OBJ)/runtime/observe/observe_minbtf.o: $(OBS)/observe_minbtf.c
	$(Q)mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(CSTD) -O2 -c -o $@ $<

# The system call names come from heelc's own table.
$(OBJ)/runtime/observe/observe_main.o: runtime/observe/observe_main.c $(OBS)/observe.skel.h
	$(Q)mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(CFLAGS_TRUSTED) -Icompiler -I$(OBS) -Iruntime/observe -MMD -MP -c -o $@ $<

$(BIN)/heel-observe: $(OBJ)/runtime/observe/observe_main.o $(OBJ)/runtime/proxyctl.o \
		$(OBJ)/runtime/observe/observe_minbtf.o $(OBJ)/runtime/crc32c.o \
		$(OBJ)/gen/syscall_table_x86_64.o | $(BIN)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf) -ljansson

# The observer's suite (tests/observe): as root, one refusal per wall.
.PHONY: check-observe
check-observe: $(BIN)/heelc $(BIN)/heel-exec $(BIN)/heel-why $(if $(filter yes,$(OBSERVE_OK)),$(BIN)/heel-observe)
	@bash tests/observe/run.sh $(B)

# ---------------------------------------------------------------- heel-broker, heel-ipc
# heel-broker runs a sandbox's host commands (`ipc`): a program of its
# own that heel-exec starts, like heel-proxy; jansson reads the calls'
# requests. Its modules (runtime/broker/) go into one archive the unit
# tests and the fuzzers link too. heel-ipc is the client inside the
# sandbox, bound into it from beside heel-exec: static, so that it runs
# whatever the sandbox's view holds of libc.
BROKER_MAINS := runtime/broker/main.c runtime/broker/client.c
BROKER_SRC := $(sort $(filter-out $(BROKER_MAINS),$(wildcard runtime/broker/*.c)))
BROKER_OBJ := $(BROKER_SRC:%.c=$(OBJ)/%.o)

$(BROKER_OBJ) $(BROKER_MAINS:%.c=$(OBJ)/%.o): $(OBJ)/%.o: %.c
	$(Q)mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(CFLAGS_TRUSTED) -Iruntime/broker -MMD -MP -c -o $@ $<

$(LIB)/libheelbroker.a: $(BROKER_OBJ) | $(LIB)
	$(Q)rm -f $@
	$(call quiet,AR,$@)ar rcs $@ $^

# Static like heel-proxy: every call a sandbox makes waits for it.
$(BIN)/heel-broker: $(OBJ)/runtime/broker/main.o $(LIB)/libheelbroker.a $(LIB)/libheelrt.a | $(BIN)
	$(call quiet,LD,$@)$(CC) -static-pie $(LDFLAGS) -o $@ $^ -ljansson

# heel-ipc is copied into every sandbox with host commands: linked
# statically against musl (a seventh of glibc's static size), with
# Debian's libjansson.a and the shim of its checked printf calls.
JANSSON_A := /usr/lib/$(MULTIARCH)/libjansson.a
$(OBJ)/musl/runtime/broker/client.o: runtime/broker/client.c
	$(Q)mkdir -p $(dir $@)
	$(call quiet,CC,$< [musl])$(MUSL_CC) $(MUSL_CFLAGS) -MMD -MP -c -o $@ $<
$(OBJ)/musl/runtime/musl/fortify_shim.o: runtime/musl/fortify_shim.c
	$(Q)mkdir -p $(dir $@)
	$(call quiet,CC,$< [musl])$(MUSL_CC) $(MUSL_CFLAGS) -MMD -MP -c -o $@ $<
$(BIN)/heel-ipc: $(OBJ)/musl/runtime/broker/client.o $(OBJ)/musl/runtime/musl/fortify_shim.o | $(BIN)
	$(call quiet,LD,$@)$(MUSL_CC) -static -s -o $@ $^ $(JANSSON_A)

# ---------------------------------------------------------------- heel-why
# The --why observer (compiler/why/): a program of its own that heel-exec
# starts, like heel-broker; it links the compiler library for the
# explainer (compiler/why.c) and the artifact reader. Static like the
# other helpers: every launch under --why waits for it to start.
WHY_SRC := $(sort $(wildcard compiler/why/*.c))
WHY_OBJ := $(WHY_SRC:%.c=$(OBJ)/%.o)

$(WHY_OBJ): $(OBJ)/%.o: %.c | $(GEN)/parser.h $(GEN)/lexer.h
	$(Q)mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(CFLAGS_ALL) -Icompiler/why -MMD -MP -c -o $@ $<

$(BIN)/heel-why: $(WHY_OBJ) $(LIB)/libheelc.a $(LIB)/libheelrt.a | $(BIN)
	$(call quiet,LD,$@)$(CC) -static-pie $(LDFLAGS) -o $@ $^ -ljansson -lnettle

# ---------------------------------------------------------------- tests
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(TBIN)/%)
TEST_SUPPORT := $(sort $(wildcard tests/unit/support_*.c))
TEST_SUPPORT_OBJ := $(TEST_SUPPORT:%.c=$(OBJ)/%.o)

# Test-only code (the libseccomp comparison generator), never in bin/;
# tests/bench links it too.
$(LIB)/libheeltest.a: $(TEST_SUPPORT_OBJ) | $(LIB)
	$(Q)rm -f $@
	$(call quiet,AR,$@)ar rcs $@ $^

$(TBIN)/test_%: tests/unit/test_%.c $(LIB)/libheeltest.a $(LIB)/libheelc.a $(LIB)/libheelproxy.a $(LIB)/libheelbroker.a \
		$(LIB)/libheelrt.a | $(TBIN)
	$(call quiet,CCLD,$<)$(CC) $(CFLAGS_ALL) -Iruntime/proxy -Iruntime/broker -Itests/unit -o $@ $< $(LIB)/libheeltest.a \
		$(LIB)/libheelc.a $(LIB)/libheelproxy.a $(LIB)/libheelbroker.a $(LIB)/libheelrt.a -lcriterion $(LIBS_HEELC) $(LIBS_SECCOMP) $(LIBS_PROXY)

# The read-only paths at launch are launcher code: the test links that
# object, and heelc's writer to make the artifacts it reads.
$(TBIN)/test_hostrun: tests/unit/test_hostrun.c $(OBJ)/launcher/linux_hostrun.o $(OBJ)/launcher/linux_gitscan.o \
		$(LIB)/libheelc.a $(LIB)/libheelrt.a | $(TBIN)
	$(CC) $(CFLAGS_ALL) -Ilauncher -Itests/unit -o $@ $< $(OBJ)/launcher/linux_hostrun.o $(OBJ)/launcher/linux_gitscan.o \
		$(LIB)/libheelc.a $(LIB)/libheelrt.a -lcriterion $(LIBS_HEELC)

# The words of a refused exec are launcher code: the test links that
# object, and heelc's compiler to make the artifacts and read the presets.
$(TBIN)/test_execwhy: tests/unit/test_execwhy.c $(OBJ)/launcher/linux_execwhy.o \
		$(LIB)/libheelc.a $(LIB)/libheelrt.a | $(TBIN)
	$(call quiet,CCLD,$<)$(CC) $(CFLAGS_ALL) -Ilauncher -Itests/unit -o $@ $< $(OBJ)/launcher/linux_execwhy.o \
		$(LIB)/libheelc.a $(LIB)/libheelrt.a -lcriterion $(LIBS_HEELC)

# The host diagnosis is launcher code: its test links that object and the
# runtime it uses (mountinfo's unescape).
$(TBIN)/test_hostenv: tests/unit/test_hostenv.c $(OBJ)/launcher/linux_hostenv.o $(LIB)/libheelrt.a | $(TBIN)
	$(call quiet,CCLD,$<)$(CC) $(CFLAGS_ALL) -Ilauncher -Itests/unit -o $@ $< $(OBJ)/launcher/linux_hostenv.o $(LIB)/libheelrt.a -lcriterion

# The view's covers are launcher code: the test links that object and
# the runtime it uses.
$(TBIN)/test_view: tests/unit/test_view.c $(OBJ)/launcher/linux_view.o $(LIB)/libheelrt.a | $(TBIN)
	$(call quiet,CCLD,$<)$(CC) $(CFLAGS_ALL) -Ilauncher -Itests/unit -o $@ $< $(OBJ)/launcher/linux_view.o $(LIB)/libheelrt.a -lcriterion

check-unit: $(UNIT_BIN) $(BIN)/heelc
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; HEELC=$(BIN)/heelc bash tests/lib/own-state.sh $$t --jobs 2; done

check-golden: $(BIN)/heelc
	@bash tests/golden/run.sh $(BIN)/heelc

check-roundtrip: $(BIN)/heelc
	@bash tests/roundtrip/run.sh $(BIN)/heelc

# heel-exec run for real, as root and as uid 65534, on artifacts heelc makes.
check-launcher: $(BIN)/heelc $(BIN)/heel-exec $(BIN)/heel-exec-static $(BIN)/heel-exec-musl $(TBIN)/heel-exec-noenforce
	@bash tests/lib/own-state.sh bash tests/launcher/run.sh $(B)

# The escape suite (tests/conformance): the escape catalogue run for real against
# bin/heel-exec, as root and as uid 65534. Its helpers are static so they
# run from the test's own executable directory.
CONF := $(B)/conformance
CONF_CFLAGS := $(CSTD) -O2 -Wall -Wextra -Werror
$(CONF)/try $(CONF)/ptyrun $(CONF)/serve: $(CONF)/%: tests/conformance/%.c runtime/ipc_abi.h
	$(Q)mkdir -p $(CONF)
	$(call quiet,CCLD,$<)$(CC) $(CONF_CFLAGS) -Iruntime -static -o $@ $<
$(CONF)/payload: tests/conformance/payload.c
	$(Q)mkdir -p $(CONF)
	$(call quiet,CCLD,$<)$(CC) $(CONF_CFLAGS) -o $@ $<
$(CONF)/hpolpatch: tests/conformance/hpolpatch.c runtime/crc32c.c
	$(Q)mkdir -p $(CONF)
	$(call quiet,CCLD,$<)$(CC) $(CONF_CFLAGS) -Iruntime -o $@ $^

# Every build of the launcher: the static ones are the small trusted base
# we recommend, and their libcs differ (musl's getdents, qsort, realpath).
check-conformance: $(BIN)/heelc $(BIN)/heel-exec $(BIN)/heel-exec-static $(BIN)/heel-exec-musl \
		$(CONF)/try $(CONF)/ptyrun $(CONF)/serve $(CONF)/payload $(CONF)/hpolpatch
	@set -e; for x in heel-exec heel-exec-static heel-exec-musl; do \
		echo "== conformance: $$x"; \
		bash tests/lib/own-state.sh bash tests/conformance/run.sh $(BIN)/heelc $(BIN)/$$x $(CONF); \
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
	@bash tests/lib/own-state.sh bash tests/container/run.sh $(B)

# heel doctor and heel-exec check's walls report (tests/doctor): as root
# and as uid 65534, on this machine and with a masked /proc, Docker's
# default profile, no Landlock (dockerlike --no-landlock); each report
# checked against what heel run then does.
.PHONY: check-doctor
check-doctor: all $(B)/container/dockerlike
	@bash tests/lib/own-state.sh bash tests/doctor/run.sh $(B)

$(B)/container/dockerlike: tests/container/dockerlike.c
	$(Q)mkdir -p $(dir $@)
	$(call quiet,CCLD,$<)$(CC) $(CONF_CFLAGS) -o $@ $< $(LIBS_SECCOMP)

# heel-exec's AppArmor profile (packaging/apparmor) and its installation,
# against AppArmor 4's parser: trixie's, fetched into ~/.cache/heel-debian
# by tests/lib/debian-suite.sh (Debian 12's parser predates the `userns`
# rule). Nothing is loaded into the kernel.
check-apparmor: all
	@bash tests/lib/own-state.sh bash tests/apparmor/run.sh

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
# The three builds side by side (tests/lib/lanes.sh): the matrix makes no
# git repository and shares nothing between runs, so a permissive run's
# scan of what changed during it finds nothing of another's.
check-matrix: $(BIN)/heelc $(BIN)/heel-exec $(BIN)/heel-exec-static $(BIN)/heel-exec-musl
	@bash tests/lib/lanes.sh \
		$(foreach x,heel-exec heel-exec-static heel-exec-musl,'echo "== isolation matrix: $(x)"; bash tests/lib/own-state.sh bash tests/matrix/run.sh $(B) $(x)')

# The artifact reader (and everything in runtime/) again under ASan+UBSan,
# since it is what parses untrusted bytes in heel-exec; the Landlock
# planner and the process-tree sweep, which run in every launch; and the
# proxy's protocol parsers, which read what any sandboxed process sends.
ASAN := $(B)/asan
ASAN_FLAGS := $(CSTD) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -Icompiler -Iruntime -Iruntime/proxy -Iruntime/broker -Icompiler/heel -I$(GEN)
ASAN_TESTS := $(sort $(wildcard tests/unit/test_front_*.c tests/unit/test_artifact*.c tests/unit/test_landlock_lower.c tests/unit/test_bpf_verify.c \
	tests/unit/test_landlock_apply.c tests/unit/test_proctree.c tests/unit/test_cgroup.c \
	tests/unit/test_pathexpand.c tests/unit/test_workdir.c tests/unit/test_env.c tests/unit/test_nethost.c \
	tests/unit/test_proxy_policy.c tests/unit/test_proxy_http.c tests/unit/test_proxy_socks5.c \
	tests/unit/test_proxy_capture.c \
	tests/unit/test_proxy_audit.c tests/unit/test_proxy_decider.c tests/unit/test_ipcargs.c \
	tests/unit/test_ipc_request.c))
# The macOS launcher's parameter decoder reads the artifact's SBPL table.
ASAN_TESTS += tests/unit/test_sbpl_params.c tests/unit/test_sbpl_emit.c
# heel-exec.exe's portable parts: the SDDL and journal parsers read files
# on disk.
ASAN_TESTS += $(wildcard tests/unit/test_win_acl.c tests/unit/test_win_plan.c tests/unit/test_win_journal.c)
# The sources under ASan are compiled once into one archive, not once per
# test binary.
ASAN_LIB_SRC := $(TEST_SUPPORT) $(COMPILER_SRC) $(RUNTIME_SRC) $(PROXY_SRC) $(BROKER_SRC) $(GEN_SRC) $(FRONT_SRC) \
	$(GEN)/toml_parser.c $(GEN)/toml_lexer.c
ASAN_OBJ := $(ASAN_LIB_SRC:%.c=$(ASAN)/obj/%.o)
$(ASAN_OBJ): $(ASAN)/obj/%.o: %.c $(GEN)/parser.h $(GEN)/lexer.h $(GEN)/toml_parser.h $(GEN)/toml_lexer.h
	$(Q)mkdir -p $(dir $@)
	$(call quiet,CC,$< [asan])$(CC) $(ASAN_FLAGS) -Wno-unused-parameter -Itests/unit -MMD -MP -c -o $@ $<
# Header dependencies too: a changed header (a constant of the Landlock
# ABI, say) must rebuild what includes it, as in the main build.
-include $(ASAN_OBJ:%.o=%.d)
$(ASAN)/libheel-asan.a: $(ASAN_OBJ)
	$(call quiet,AR,$@)ar rcs $@ $^
check-asan: $(ASAN)/libheel-asan.a
	@set -e; for t in $(ASAN_TESTS); do \
		n=$$(basename $$t .c); \
		$(CC) $(ASAN_FLAGS) -Wno-unused-parameter -Itests/unit -o $(ASAN)/$$n $$t $(ASAN)/libheel-asan.a \
			-lcriterion $(LIBS_HEELC) $(LIBS_SECCOMP) $(LIBS_PROXY); \
		echo "== $(ASAN)/$$n (ASan+UBSan)"; \
		ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/unit/lsan.supp,print_suppressions=0 \
			UBSAN_OPTIONS=print_stacktrace=1 $(ASAN)/$$n --jobs 2; \
	done

# ---------------------------------------------------------------- SBPL checker
# The SBPL checker (compiler/sbpl_check.c) over a corpus of good and
# broken macOS profiles: sbpl-check is its command-line driver, a test
# tool, never installed.
.PHONY: check-sbpl
$(TBIN)/bin/sbpl-check: tests/sbpl/sbpl-check.c $(LIB)/libheelc.a $(LIB)/libheelrt.a
	@mkdir -p $(dir $@)
	$(call quiet,CCLD,$<)$(CC) $(CFLAGS_ALL) -o $@ $< $(LIB)/libheelc.a $(LIB)/libheelrt.a $(LIBS_HEELC)
check-sbpl: $(TBIN)/bin/sbpl-check $(BIN)/heelc
	@bash tests/sbpl/run.sh $(TBIN)/bin/sbpl-check $(BIN)/heelc
# Its reader and checker run under ASan+UBSan too.
ASAN_TESTS += tests/unit/test_sbpl_read.c tests/unit/test_sbpl_check.c

# macOS, without a Mac: launcher/macos.c and the runtime it links,
# compiled with __APPLE__ against Darwin's prototypes (nothing linked or
# run), and tests/macos/smoke.sh in its dry run (every parameter of the
# profiles it would run has a value; each profile passes the checker).
# On a Mac, tests/macos/smoke.sh runs the cases for real.
.PHONY: check-macos
check-macos: $(TBIN)/bin/sbpl-check $(BIN)/heelc
	@bash tests/macos/check-syntax.sh $(CC)
	@SMOKE_DRY_RUN=1 SBPL_CHECK=$(TBIN)/bin/sbpl-check HEELC=$(BIN)/heelc bash tests/macos/smoke.sh

# libFuzzer targets: clang only. `make check` runs each briefly; `make fuzz` long.
# The smoke runs each target from its seeds (tests/fuzz/seeds/NAME/, in a
# fresh corpus) with every fixed seed of FUZZ_SMOKE_SEEDS, so that each
# run replays the same exploration (as far as the time lets it go), and
# then with a random seed, printed (FUZZ_RANDOM_SEED=N replays it), for
# ground no run has covered yet; about 8 s a target in all, as before
# (libFuzzer stops a second after -max_total_time). 3074799327 is the
# seed that met fuzz_ipc_request's stale free (issue 20), which the
# random smoke of the day had missed. A crash's input goes to
# build/fuzz/crashes/NAME-crash-SHA1 (`make fuzz` puts its own there
# too): add it, with the fix, as a file under tests/fuzz/seeds/NAME/, so
# that every later run starts from it.
comma := ,
FUZZ := $(B)/fuzz
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(FUZZ)/%)
FUZZ_FLAGS := $(CSTD) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-Icompiler -Iruntime -Iruntime/proxy -Iruntime/broker -Icompiler/heel -I$(GEN)
FUZZ_SMOKE_SEEDS ?= 1 3074799327
FUZZ_SMOKE_FIXED_SECONDS ?= 1
FUZZ_SMOKE_RANDOM_SECONDS ?= 3
FUZZ_LONG_SECONDS ?= 600

# The sources are instrumented once into one archive (fuzzer-no-link), not
# once per target.
FUZZ_LIB_SRC = $(COMPILER_SRC) $(RUNTIME_SRC) $(PROXY_SRC) $(BROKER_SRC) $(GEN_SRC) $(FRONT_SRC) \
	$(GEN)/toml_parser.c $(GEN)/toml_lexer.c
FUZZ_OBJ = $(FUZZ_LIB_SRC:%.c=$(FUZZ)/obj/%.o)
$(FUZZ)/obj/%.o: %.c $(GEN)/parser.h $(GEN)/lexer.h $(GEN)/toml_parser.h $(GEN)/toml_lexer.h
	$(Q)mkdir -p $(dir $@)
	$(call quiet,CC,$< [fuzz])$(CLANG) $(subst -fsanitize=fuzzer$(comma),-fsanitize=fuzzer-no-link$(comma),$(FUZZ_FLAGS)) \
		-c -o $@ $<
$(FUZZ)/libheel-fuzz.a: $(FUZZ_OBJ)
	$(call quiet,AR,$@)ar rcs $@ $^
$(FUZZ)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ)/libheel-fuzz.a
	$(call quiet,CCLD,$<)$(CLANG) $(FUZZ_FLAGS) -o $@ $< $(FUZZ)/libheel-fuzz.a $(LIBS_HEELC) $(LIBS_PROXY)

check-fuzz-smoke: $(FUZZ_BIN)
	@set -e; rm -rf $(FUZZ)/smoke; mkdir -p $(FUZZ)/crashes; \
	random=$${FUZZ_RANDOM_SEED:-$$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}; \
	echo "== fuzz smoke: fixed seeds $(FUZZ_SMOKE_SEEDS) ($(FUZZ_SMOKE_FIXED_SECONDS) s each), random seed $$random ($(FUZZ_SMOKE_RANDOM_SECONDS) s)"; \
	for f in $(FUZZ_BIN); do \
		n=$$(basename $$f); \
		for seed in $(FUZZ_SMOKE_SEEDS) random; do \
			secs=$(FUZZ_SMOKE_FIXED_SECONDS); \
			if [ $$seed = random ]; then seed=$$random secs=$(FUZZ_SMOKE_RANDOM_SECONDS); fi; \
			c=$(FUZZ)/smoke/$$n-$$seed; mkdir -p $$c; \
			if ! $$f -seed=$$seed -max_total_time=$$secs -print_final_stats=1 \
				-artifact_prefix=$(FUZZ)/crashes/$$n- $$c tests/fuzz/seeds/$$n >$$c.log 2>&1; then \
				tail -60 $$c.log; \
				echo "$$n: the fuzzer found a crash with -seed=$$seed: $$(sed -n 's/.*Test unit written to //p' $$c.log)"; \
				echo "again: $$f -seed=$$seed -max_total_time=$$secs NEWDIR tests/fuzz/seeds/$$n"; \
				echo "with the fix, add that input as a file under tests/fuzz/seeds/$$n/"; \
				exit 1; \
			fi; \
			echo "$$n -seed=$$seed: $$(grep -Eo 'number_of_executed_units: *[0-9]+' $$c.log | grep -Eo '[0-9]+$$') runs in $$secs s"; \
		done; \
	done

fuzz: deps-check $(FUZZ_BIN)
	@set -e; mkdir -p $(FUZZ)/crashes; for f in $(FUZZ_BIN); do \
		n=$$(basename $$f); mkdir -p $(FUZZ)/corpus-$$n; \
		echo "== $$f ($(FUZZ_LONG_SECONDS) s)"; \
		$$f -max_total_time=$(FUZZ_LONG_SECONDS) -print_final_stats=1 -artifact_prefix=$(FUZZ)/crashes/$$n- \
			$(FUZZ)/corpus-$$n tests/fuzz/seeds/$$n; \
	done

check: deps-check
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory check-unit
	@$(MAKE) --no-print-directory check-golden
	@$(MAKE) --no-print-directory check-sbpl
	@$(MAKE) --no-print-directory check-macos
	@$(MAKE) --no-print-directory check-windows
	@$(MAKE) --no-print-directory check-roundtrip
	@$(MAKE) --no-print-directory check-launcher
	@$(MAKE) --no-print-directory check-conformance
	@$(MAKE) --no-print-directory check-matrix
	@$(MAKE) --no-print-directory check-container
	@$(MAKE) --no-print-directory check-doctor
	@$(MAKE) --no-print-directory check-apparmor
	@$(MAKE) --no-print-directory check-net
	@$(MAKE) --no-print-directory check-front
	@$(MAKE) --no-print-directory check-libheel
	@$(MAKE) --no-print-directory check-bindings
	@$(MAKE) --no-print-directory check-broker
	@$(MAKE) --no-print-directory check-ipc
	@$(MAKE) --no-print-directory check-python
	@$(MAKE) --no-print-directory check-hostside
	@$(MAKE) --no-print-directory check-why
	@$(MAKE) --no-print-directory check-observe
	@$(MAKE) --no-print-directory check-workflow
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
	@# What --why costs: a launch, and each watched call (round-robin).
	@bash tests/why/bench.sh $(B)
	@# The same with heel-observe as --why's source, where it loads.
	@[ "$$(id -u)" != 0 ] || ! [ -x $(BIN)/heel-observe ] || bash tests/observe/bench.sh $(B) 20

fmt:
	$(call quiet,FMT,compiler runtime launcher tests)clang-format -i $(filter-out $(GEN)/%,$(wildcard compiler/*.[ch] runtime/*.[ch] launcher/*.[ch] tests/unit/*.[ch] tests/fuzz/*.c))

# What `make install` puts where: SOURCE:DESTINATION:MODE, DESTINATION
# under DESTDIR/PREFIX. `make uninstall` removes exactly these (and the
# AppArmor profile install.sh put in place), then the directories of
# heel's own that are left empty.
STOCK_POLICIES := $(sort $(wildcard policies/*.heel policies/protect/*.heel policies/devices/*.heel))
EXAMPLE_POLICIES := $(sort $(wildcard policies/examples/*.heel))
INSTALL_MAP = \
	$(BIN)/heel:bin/heel:0755 $(BIN)/heelc:bin/heelc:0755 \
	$(BIN)/heel-exec:bin/heel-exec:0755 $(BIN)/heel-proxy:bin/heel-proxy:0755 \
	$(BIN)/heel-broker:bin/heel-broker:0755 $(BIN)/heel-ipc:bin/heel-ipc:0755 \
	$(BIN)/heel-why:bin/heel-why:0755 \
	docs/heel.1:share/man/man1/heel.1:0644 docs/heelc.1:share/man/man1/heelc.1:0644 \
	docs/heel-exec.1:share/man/man1/heel-exec.1:0644 docs/heel.5:share/man/man5/heel.5:0644 \
	$(foreach f,$(STOCK_POLICIES),$(f):share/heel/$(f):0644) \
	$(foreach f,$(EXAMPLE_POLICIES),$(f):share/doc/heel/examples/$(notdir $(f)):0644) \
	packaging/completion/heel.bash:share/bash-completion/completions/heel:0644 \
	packaging/completion/heel.bash:share/bash-completion/completions/heelc:0644 \
	packaging/completion/heel.bash:share/bash-completion/completions/heel-exec:0644 \
	packaging/completion/_heel:share/zsh/site-functions/_heel:0644 \
	packaging/vim/syntax/heel.vim:share/vim/vimfiles/syntax/heel.vim:0644 \
	packaging/vim/ftdetect/heel.vim:share/vim/vimfiles/ftdetect/heel.vim:0644 \
	$(LIBHEEL_INSTALL_MAP)
# heel-observe where it was built (heel-exec runs without it elsewhere).
ifeq ($(OBSERVE_OK),yes)
INSTALL_MAP += $(BIN)/heel-observe:bin/heel-observe:0755
endif
# Directories only heel uses: removed by uninstall once empty.
INSTALL_OWN_DIRS := share/heel/policies/protect share/heel/policies/devices share/heel/policies \
	share/heel/apparmor share/heel share/doc/heel/examples share/doc/heel

# Also heel-exec's AppArmor profile, for PREFIX/bin/heel-exec, into
# PREFIX/share/heel/apparmor (and, with DESTDIR, DESTDIR/etc/apparmor.d,
# for a package). Nothing outside PREFIX or DESTDIR is written unless
# asked for by name: `make install-apparmor` puts the profile into
# /etc/apparmor.d and loads it where AppArmor is enabled, never replacing
# another PREFIX's profile without APPARMOR_REPLACE=1
# (packaging/apparmor/install.sh says what it does and when).
install: all
	$(call quiet,INSTALL,$(DESTDIR)$(PREFIX))set -e; for e in $(INSTALL_MAP); do \
		src=$${e%%:*}; rest=$${e#*:}; dst=$${rest%%:*}; mode=$${rest##*:}; \
		install -D -m $$mode "$$src" "$(DESTDIR)$(PREFIX)/$$dst"; \
	done; \
	ln -sf libheel.so.0 "$(DESTDIR)$(PREFIX)/lib/libheel.so"
	$(Q)sh packaging/apparmor/install.sh --staged packaging/apparmor/heel-exec "$(PREFIX)" "$(DESTDIR)"

install-apparmor:
	$(Q)sh packaging/apparmor/install.sh packaging/apparmor/heel-exec "$(PREFIX)" "$(DESTDIR)"

uninstall-apparmor:
	$(Q)sh packaging/apparmor/install.sh --remove packaging/apparmor/heel-exec "$(PREFIX)" "$(DESTDIR)"

uninstall:
	$(Q)sh packaging/apparmor/install.sh --remove --staged packaging/apparmor/heel-exec "$(PREFIX)" "$(DESTDIR)"
	$(call quiet,RM,$(DESTDIR)$(PREFIX))set -e; for e in $(INSTALL_MAP); do \
		rest=$${e#*:}; dst=$${rest%%:*}; rm -f "$(DESTDIR)$(PREFIX)/$$dst"; \
	done; \
	rm -f "$(DESTDIR)$(PREFIX)/lib/libheel.so"; \
	for d in $(INSTALL_OWN_DIRS); do rmdir "$(DESTDIR)$(PREFIX)/$$d" 2>/dev/null || true; done

clean:
	$(call quiet,CLEAN,$(B))rm -rf $(B)

# The live network suite (tests/net): heel-exec and heel-proxy against
# namespaces that stand in for the internet, with curl, git, urllib, pip.
# The broker's live suite (tests/broker): heel-broker and heel-ipc with a
# test program in heel-exec's place (control socket, seccomp listener),
# as root and as uid 65534.
.PHONY: check-broker
check-broker: $(BIN)/heel-broker $(BIN)/heel-ipc $(TBIN)/broker_live
	@bash tests/lib/own-state.sh bash tests/broker/run.sh $(B)

$(TBIN)/broker_live: tests/broker/broker_live.c $(LIB)/libheelrt.a | $(TBIN)
	$(call quiet,CCLD,$<)$(CC) $(CFLAGS_TRUSTED) -o $@ $< $(LIB)/libheelrt.a

# Host commands end to end (tests/ipc): heel-exec starts heel-broker, the
# sandbox calls the commands by name, as root and as uid 65534.
.PHONY: check-ipc
check-ipc: $(BIN)/heelc $(BIN)/heel-exec $(BIN)/heel-broker $(BIN)/heel-ipc $(BIN)/heel-proxy
	@bash tests/lib/own-state.sh bash tests/ipc/run.sh $(B)

# The host side's escape suite (tests/hostside): nothing a sandbox can
# write steers the host across runs (a rewritten host command or decider,
# a planted link, a pip.py), as root and as uid 65534; and the table of
# every place the host side runs, opens or makes a name, checked against
# the code (callers.py), so a new helper cannot skip the one check.
.PHONY: check-hostside
check-hostside: all
	@python3 tests/hostside/callers.py
	@bash tests/hostside/run.sh $(B)

# --why for real (tests/why): each wall and protection set refused and
# explained, each with its control, no false positives across a make and
# a Python test run, as root and as uid 65534 (about 15 s).
check-why: all
	@bash tests/why/run.sh $(B)

# An agent's ordinary day (tests/workflow): a real user with a real home
# (made by the suite), a git project with Python tests, a Makefile and C,
# node, a local server, under heel run; the same again as root.
.PHONY: check-workflow
check-workflow: all
	@bash tests/workflow/run.sh $(B)

# A policy's Python venv end to end (tests/python): made on the host by
# heel-exec and heel python --prepare from a package index the test
# serves on 127.0.0.1, read-only or writable inside, as root and as uid
# 65534.
.PHONY: check-python
check-python: $(BIN)/heelc $(BIN)/heel-exec $(BIN)/heel
	@bash tests/lib/own-state.sh bash tests/python/run.sh $(B)

.PHONY: check-net
check-net: $(BIN)/heelc $(BIN)/heel-exec $(BIN)/heel-proxy
	@bash tests/lib/own-state.sh bash tests/net/run.sh $(B)

# ---------------------------------------------------------------- heel
# The front end (compiler/heel/): `heel run|shell|python` turns options
# and a configuration file into one policy, compiles it with the compiler
# library and hands the artifact to heel-exec by descriptor. Its TOML
# reader is a grammar of its own (grammar/toml_*), since Debian packages
# no TOML library for C.
FRONT_OBJ := $(FRONT_SRC:%.c=$(OBJ)/%.o)
TOML_GEN_OBJ := $(OBJ)/gen/toml_parser.o $(OBJ)/gen/toml_lexer.o
FRONT_CFLAGS := $(CFLAGS_ALL) -Icompiler/heel

# One run makes both files: a grouped target, as for the policy grammar.
# (A header made by an empty rule from its .c is older than the .c, since
# bison and flex write it first: make then took it for out of date on
# every run, and `make -q` never said the build was current.)
$(GEN)/toml_parser.c $(GEN)/toml_parser.h &: grammar/toml_parser.y | $(GEN)
	$(call quiet,GEN,$(GEN)/toml_parser.c)$(BISON) -Wall -Werror --defines=$(GEN)/toml_parser.h -o $(GEN)/toml_parser.c $<

$(GEN)/toml_lexer.c $(GEN)/toml_lexer.h &: grammar/toml_lexer.l $(GEN)/toml_parser.h | $(GEN)
	$(call quiet,GEN,$(GEN)/toml_lexer.c)$(FLEX) --header-file=$(GEN)/toml_lexer.h -o $(GEN)/toml_lexer.c $<

$(TOML_GEN_OBJ): $(OBJ)/gen/%.o: $(GEN)/%.c $(GEN)/toml_parser.h $(GEN)/toml_lexer.h
	$(Q)mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(GEN_CFLAGS) -Icompiler/heel -MMD -MP -c -o $@ $<

$(FRONT_OBJ): $(OBJ)/%.o: %.c | $(GEN)/parser.h $(GEN)/lexer.h $(GEN)/toml_parser.h $(GEN)/toml_lexer.h
	$(Q)mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(FRONT_CFLAGS) -MMD -MP -c -o $@ $<

$(LIB)/libheelfront.a: $(FRONT_OBJ) $(TOML_GEN_OBJ) | $(LIB)
	$(Q)rm -f $@
	$(call quiet,AR,$@)ar rcs $@ $^

# Unit tests of the front end link its archive too (the shorter stem
# makes this rule win over the general test_% one).
$(TBIN)/test_front_%: tests/unit/test_front_%.c $(LIB)/libheelfront.a $(LIB)/libheelc.a $(LIB)/libheelrt.a | $(TBIN)
	$(call quiet,CCLD,$<)$(CC) $(FRONT_CFLAGS) -Itests/unit -o $@ $< $(LIB)/libheelfront.a $(LIB)/libheelc.a \
		$(LIB)/libheelrt.a -lcriterion $(LIBS_HEELC)

# The denial explainer (compiler/why.c): its test compiles heel run's own
# text too, whose rules carry the options that made them.
$(TBIN)/test_why: tests/unit/test_why.c $(LIB)/libheelfront.a $(LIB)/libheelc.a $(LIB)/libheelrt.a | $(TBIN)
	$(call quiet,CCLD,$<)$(CC) $(FRONT_CFLAGS) -Itests/unit -o $@ $< $(LIB)/libheelfront.a $(LIB)/libheelc.a \
		$(LIB)/libheelrt.a -lcriterion $(LIBS_HEELC)

# Linked statically against musl, like heel-exec-musl: `heel run` starts
# before every sandboxed command and then execs heel-exec, so its own
# start-up is all it adds to a launch. glibc's start-up was most of that:
# dynamically, the loader's work for libc and nettle; statically, still
# its CPU-feature probing (cpuid, which traps to the hypervisor on a VM)
# and relocations, about 2 ms a launch on this project's VMs
# (BENCHMARKS.md, "heel run"). musl does neither. heel needs nothing of
# glibc: it never looks up users or hosts (no NSS), and of its libraries
# only nettle's SHA-256 (the compile cache's key), whose static archive
# links under musl with one shim (runtime/musl/fortify_shim.c).
# The same sources build libheel and the unit tests against glibc.
HEEL_MUSL_SRC := compiler/heel/main.c compiler/heel/doctor.c runtime/musl/fortify_shim.c $(FRONT_SRC) $(COMPILER_SRC)
HEEL_MUSL_OBJ := $(HEEL_MUSL_SRC:%.c=$(OBJ)/musl-heel/%.o)
HEEL_MUSL_GEN_OBJ := $(patsubst $(GEN)/%.c,$(OBJ)/musl-heel/gen/%.o,$(GEN_SRC) $(GEN)/toml_parser.c $(GEN)/toml_lexer.c)
HEEL_MUSL_CFLAGS := $(MUSL_BASE_CFLAGS) -Icompiler -Icompiler/heel -Iruntime -I$(GEN)
NETTLE_A := /usr/lib/$(MULTIARCH)/libnettle.a

$(OBJ)/musl-heel/compiler/load.o: HEEL_MUSL_CFLAGS += -DHEEL_POLICY_DIR='"$(PREFIX)/share/heel/policies"'
$(OBJ)/musl-heel/compiler/load.o: $(B)/prefix

$(HEEL_MUSL_OBJ): $(OBJ)/musl-heel/%.o: %.c | $(GEN)/parser.h $(GEN)/lexer.h $(GEN)/toml_parser.h $(GEN)/toml_lexer.h
	$(Q)mkdir -p $(dir $@)
	$(call quiet,CC,$< [musl])$(MUSL_CC) $(HEEL_MUSL_CFLAGS) $(WARN) -MMD -MP -c -o $@ $<

# Generated scanners and parsers: their own warnings are not ours to fix.
$(HEEL_MUSL_GEN_OBJ): $(OBJ)/musl-heel/gen/%.o: $(GEN)/%.c | $(GEN)/parser.h $(GEN)/lexer.h $(GEN)/toml_parser.h $(GEN)/toml_lexer.h
	$(Q)mkdir -p $(dir $@)
	$(call quiet,CC,$< [musl])$(MUSL_CC) $(HEEL_MUSL_CFLAGS) -MMD -MP -c -o $@ $<

# An archive, so that only what heel calls is linked (not heelc's
# explain, which needs jansson).
$(LIB)/libheel-musl.a: $(filter-out $(OBJ)/musl-heel/compiler/heel/main.o $(OBJ)/musl-heel/compiler/heel/doctor.o $(OBJ)/musl-heel/runtime/musl/%,$(HEEL_MUSL_OBJ)) \
		$(HEEL_MUSL_GEN_OBJ) $(RUNTIME_SRC:%.c=$(OBJ)/musl/%.o) | $(LIB)
	$(Q)rm -f $@
	$(call quiet,AR,$@)ar rcs $@ $^

# jansson (Debian's static archive, as heel-ipc links it) writes heel
# doctor --json.
$(BIN)/heel: $(OBJ)/musl-heel/compiler/heel/main.o $(OBJ)/musl-heel/compiler/heel/doctor.o \
		$(LIB)/libheel-musl.a $(OBJ)/musl-heel/runtime/musl/fortify_shim.o | $(BIN)
	$(call quiet,LD,$@)$(MUSL_CC) -static -o $@ $^ $(NETTLE_A) $(JANSSON_A)

# heel run|shell|python for real, as root and as uid 65534 (tests/front),
# the README's first commands among them.
.PHONY: check-front
check-front: all
	@bash tests/lib/own-state.sh bash tests/front/run.sh $(B)

# ---------------------------------------------------------------- libheel
# libheel (compiler/libheel/, libheel(3)): policies from files, text or
# builder calls, spawned through heel-exec. The shared library needs PIC
# objects, so its sources and those of the libraries it uses (libheelc,
# libheelfront, libheelrt) are compiled again under build/obj/pic. Both
# libheel.so and libheel.a are made from one relocatable object whose
# hidden symbols are made local: a program linking either sees heel_*
# and nothing of the compiler (no clash with its own diag_new, say).
PIC := $(OBJ)/pic
LIBHEEL_SRC := $(sort $(wildcard compiler/libheel/*.c))
HEEL_LIB_VERSION := $(shell sed -n 's/.*define HEEL_VERSION "\(.*\)".*/\1/p' runtime/heel_version.h)
LIBS_LIBHEEL := $(shell pkg-config --libs nettle 2>/dev/null || echo -lnettle)
PIC_CFLAGS = $(filter-out -fPIE,$(1)) -fPIC

PIC_COMPILER_OBJ := $(COMPILER_SRC:%.c=$(PIC)/%.o)
PIC_FRONT_OBJ := $(FRONT_SRC:%.c=$(PIC)/%.o)
PIC_RUNTIME_OBJ := $(RUNTIME_SRC:%.c=$(PIC)/%.o)
PIC_GEN_OBJ := $(GEN_SRC:$(GEN)/%.c=$(PIC)/gen/%.o) $(PIC)/gen/toml_parser.o $(PIC)/gen/toml_lexer.o
PIC_LIBHEEL_OBJ := $(LIBHEEL_SRC:%.c=$(PIC)/%.o)

# Where libheel looks for heel-exec when the caller names none: fixed at
# build time from PREFIX (never from the caller's environment, which
# would let it swap the launcher), and rewritten only when PREFIX changes
# ($(B)/prefix, which is brought up to date as the Makefile is read).
$(GEN)/libheel_prefix.h: $(B)/prefix | $(GEN)
	$(Q)printf '#define HEEL_EXEC_PATH "%s/bin/heel-exec"\n' '$(PREFIX)' >$@

$(PIC_COMPILER_OBJ): $(PIC)/%.o: %.c | $(GEN)/parser.h $(GEN)/lexer.h
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(call PIC_CFLAGS,$(CFLAGS_ALL)) -MMD -MP -c -o $@ $<
$(PIC_FRONT_OBJ): $(PIC)/%.o: %.c | $(GEN)/parser.h $(GEN)/lexer.h $(GEN)/toml_parser.h $(GEN)/toml_lexer.h
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(call PIC_CFLAGS,$(FRONT_CFLAGS)) -MMD -MP -c -o $@ $<
$(PIC_RUNTIME_OBJ): $(PIC)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(call PIC_CFLAGS,$(CFLAGS_TRUSTED)) -MMD -MP -c -o $@ $<
$(PIC_GEN_OBJ): $(PIC)/gen/%.o: $(GEN)/%.c $(GEN)/parser.h $(GEN)/lexer.h $(GEN)/toml_parser.h $(GEN)/toml_lexer.h
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(call PIC_CFLAGS,$(GEN_CFLAGS)) -Icompiler/heel -MMD -MP -c -o $@ $<
$(PIC_LIBHEEL_OBJ): $(PIC)/%.o: %.c $(GEN)/libheel_prefix.h | $(GEN)/parser.h $(GEN)/lexer.h $(GEN)/toml_parser.h $(GEN)/toml_lexer.h
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(call PIC_CFLAGS,$(FRONT_CFLAGS)) -Icompiler/libheel -include $(GEN)/libheel_prefix.h \
		-MMD -MP -c -o $@ $<

$(PIC)/libheelc.a: $(PIC_COMPILER_OBJ) $(filter-out $(PIC)/gen/toml_%,$(PIC_GEN_OBJ))
	@rm -f $@
	$(call quiet,AR,$@)ar rcs $@ $^
$(PIC)/libheelfront.a: $(PIC_FRONT_OBJ) $(PIC)/gen/toml_parser.o $(PIC)/gen/toml_lexer.o
	@rm -f $@
	$(call quiet,AR,$@)ar rcs $@ $^
$(PIC)/libheelrt.a: $(PIC_RUNTIME_OBJ)
	@rm -f $@
	$(call quiet,AR,$@)ar rcs $@ $^

# One object: libheel's own and the archive members they need (ld -r
# pulls members as a final link would), hidden symbols then made local.
$(PIC)/libheel.o: $(PIC_LIBHEEL_OBJ) $(PIC)/libheelfront.a $(PIC)/libheelc.a $(PIC)/libheelrt.a
	$(call quiet,LD,$@)$(LD) -r -o $@.tmp $(PIC_LIBHEEL_OBJ) --start-group $(PIC)/libheelfront.a $(PIC)/libheelc.a \
		$(PIC)/libheelrt.a --end-group
	$(Q)objcopy --localize-hidden $@.tmp $@
	@rm -f $@.tmp

$(LIB)/libheel.a: $(PIC)/libheel.o | $(LIB)
	@rm -f $@
	$(call quiet,AR,$@)ar rcs $@ $^

$(LIB)/libheel.so.0: $(PIC)/libheel.o compiler/libheel/libheel.map | $(LIB)
	$(call quiet,CC,$@)$(CC) -shared -Wl,-soname,libheel.so.0 -Wl,--version-script=compiler/libheel/libheel.map \
		-Wl,-z,relro,-z,now,-z,noexecstack -Wl,--as-needed $(LDFLAGS) -o $@ $(PIC)/libheel.o $(LIBS_LIBHEEL)
$(LIB)/libheel.so: $(LIB)/libheel.so.0
	$(call quiet,LN,$@)ln -sf libheel.so.0 $@

# pkg-config's file, for the PREFIX given (also in the build tree, for
# the examples).
$(LIB)/heel.pc: compiler/libheel/heel.pc.in runtime/heel_version.h $(B)/prefix | $(LIB)
	@sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(HEEL_LIB_VERSION)|g' \
		-e 's|@LIBS_PRIVATE@|$(LIBS_LIBHEEL)|g' $< >$@

LIBHEEL_OUT := $(LIB)/libheel.a $(LIB)/libheel.so.0 $(LIB)/libheel.so $(LIB)/heel.pc
all: $(LIBHEEL_OUT)

# Unit tests of libheel (tests/unit/test_libheel*.c) see heel.h only and
# link the library as a user does.
LIBHEEL_TEST_CFLAGS := $(CSTD) $(OPT) $(WARN) -Icompiler/libheel -Itests/unit
LIBHEEL_UNIT_BIN := $(patsubst tests/unit/%.c,$(TBIN)/%,$(wildcard tests/unit/test_libheel*.c))
$(LIBHEEL_UNIT_BIN): $(TBIN)/%: tests/unit/%.c $(LIB)/libheel.a | $(TBIN)
	$(call quiet,CC,$@)$(CC) $(LIBHEEL_TEST_CFLAGS) -o $@ $< $(LIB)/libheel.a -lcriterion $(LIBS_LIBHEEL) -lpthread

# The live tests (tests/libheel) and the examples (docs/examples), run by
# check-libheel as root and as uid 65534.
$(TBIN)/libheel_live: tests/libheel/live.c $(LIB)/libheel.a | $(TBIN)
	$(call quiet,CC,$@)$(CC) $(LIBHEEL_TEST_CFLAGS) -o $@ $< $(LIB)/libheel.a -lcriterion $(LIBS_LIBHEEL) -lpthread
$(B)/examples/run: docs/examples/run.c compiler/libheel/heel.h $(LIB)/libheel.so
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CSTD) $(OPT) $(WARN) -Icompiler/libheel -o $@ $< -L$(LIB) -lheel -Wl,-rpath,$(CURDIR)/$(LIB)

$(TBIN)/libheel_threads: tests/libheel/threads.c $(LIB)/libheel.a | $(TBIN)
	$(call quiet,CC,$@)$(CC) $(LIBHEEL_TEST_CFLAGS) -o $@ $< $(LIB)/libheel.a $(LIBS_LIBHEEL) -lpthread

# The threads test again with libheel and everything it uses built under
# ThreadSanitizer (Criterion's runner does not run under it, hence a
# driver of its own).
LH_TSAN := $(B)/tsan
LH_TSAN_FLAGS := $(CSTD) -O1 -g -fsanitize=thread -fno-omit-frame-pointer -Icompiler -Iruntime -I$(GEN)
LH_TSAN_SRC := $(LIBHEEL_SRC) $(COMPILER_SRC) $(FRONT_SRC) $(RUNTIME_SRC)
LH_TSAN_OBJ := $(LH_TSAN_SRC:%.c=$(LH_TSAN)/obj/%.o) \
	$(patsubst $(GEN)/%.c,$(LH_TSAN)/obj/gen/%.o,$(GEN_SRC) $(GEN)/toml_parser.c $(GEN)/toml_lexer.c)
$(filter-out $(LH_TSAN)/obj/gen/%,$(LH_TSAN_OBJ)): $(LH_TSAN)/obj/%.o: %.c $(GEN)/libheel_prefix.h | $(GEN)/parser.h $(GEN)/lexer.h $(GEN)/toml_parser.h $(GEN)/toml_lexer.h
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(LH_TSAN_FLAGS) -Icompiler/heel -Icompiler/libheel -include $(GEN)/libheel_prefix.h -MMD -MP -c -o $@ $<
$(filter $(LH_TSAN)/obj/gen/%,$(LH_TSAN_OBJ)): $(LH_TSAN)/obj/gen/%.o: $(GEN)/%.c $(GEN)/parser.h $(GEN)/lexer.h $(GEN)/toml_parser.h $(GEN)/toml_lexer.h
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(LH_TSAN_FLAGS) -Icompiler/heel -MMD -MP -c -o $@ $<
-include $(LH_TSAN_OBJ:%.o=%.d)
$(LH_TSAN)/libheel-tsan.a: $(LH_TSAN_OBJ)
	@rm -f $@
	$(call quiet,AR,$@)ar rcs $@ $^
$(LH_TSAN)/libheel_threads: tests/libheel/threads.c $(LH_TSAN)/libheel-tsan.a
	$(call quiet,CC,$@)$(CC) $(LH_TSAN_FLAGS) -Icompiler/libheel -o $@ $^ $(LIBS_LIBHEEL)

.PHONY: check-libheel check-libheel-tsan
check-libheel: $(LIBHEEL_OUT) $(BIN)/heel-exec $(BIN)/heelc $(TBIN)/libheel_live $(TBIN)/libheel_threads \
		$(B)/examples/run $(LH_TSAN)/libheel_threads
	@bash tests/lib/own-state.sh bash tests/libheel/run.sh $(B)
check-libheel-tsan: $(BIN)/heel-exec $(LH_TSAN)/libheel_threads
	@TSAN_OPTIONS=halt_on_error=1 $(LH_TSAN)/libheel_threads $(CURDIR)/$(BIN)/heel-exec 2

# The Node and Python packages over libheel (packaging/node,
# packaging/python): built by their own commands against a staged make
# install, found through pkg-config heel, and run as root and as uid
# 65534 (tests/bindings/run.sh).
BINDINGS_STAGE := $(B)/bindings-stage
.PHONY: check-bindings
check-bindings: all
	$(Q)rm -rf $(BINDINGS_STAGE)
	$(Q)$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/$(BINDINGS_STAGE) >/dev/null
	@bash tests/lib/own-state.sh bash tests/bindings/run.sh $(B) $(BINDINGS_STAGE)

# What make install adds for libheel (see INSTALL_MAP); the libheel.so
# link is made and removed by the install and uninstall recipes.
LIBHEEL_INSTALL_MAP := compiler/libheel/heel.h:include/heel.h:0644 $(LIB)/libheel.a:lib/libheel.a:0644 \
	$(LIB)/libheel.so.0:lib/libheel.so.0:0755 $(LIB)/heel.pc:lib/pkgconfig/heel.pc:0644 \
	docs/libheel.3:share/man/man3/libheel.3:0644

# ---------------------------------------------------------------- windows
# heel-exec.exe, cross-built with mingw-w64 from Debian: the launcher's
# Windows files and the portable runtime it shares with Linux (the same
# artifact reader), nothing of the compiler. C99 printf from mingw's own
# stdio (%zu), Windows 10 API level, wide entry point (wmain), libgcc
# and winpthreads (crc32c's pthread_once) linked statically, so that the
# .exe needs no DLL beside it, only Windows' own. The AppContainer
# functions are looked up at run time (launcher/windows_container.c).
MINGW_CC ?= x86_64-w64-mingw32-gcc
WINB := $(B)/win
WIN_CFLAGS := -std=c17 $(OPT) $(WARN) -D__USE_MINGW_ANSI_STDIO=1 -D_WIN32_WINNT=0x0A00 \
	-DUNICODE -D_UNICODE -municode -D_FORTIFY_SOURCE=2 -fstack-protector-strong -Iruntime -Ilauncher
WIN_RUNTIME := artifact_read crc32c errmsg bpf_verify bpf_sim landlock_table win_manifest \
	win_acl win_plan win_cmdline win_journal
WIN_LAUNCHER := windows_text windows_read windows_container windows_job windows_acl windows_journal windows_fresh
WIN_OBJ := $(WIN_RUNTIME:%=$(WINB)/obj/runtime/%.o) $(WIN_LAUNCHER:%=$(WINB)/obj/launcher/%.o)
# ASLR (64-bit), DEP; libssp for the stack protector and the checked
# string functions.
WIN_LIBS := -static -Wl,--dynamicbase,--high-entropy-va,--nxcompat -luserenv -ladvapi32 -lpthread -lssp

$(WINB)/obj/%.o: %.c
	$(Q)mkdir -p $(dir $@)
	$(call quiet,CC,$< [mingw])$(MINGW_CC) $(WIN_CFLAGS) -MMD -MP -c -o $@ $<
-include $(shell find $(WINB)/obj -name '*.d' 2>/dev/null)

$(BIN)/heel-exec.exe: $(WINB)/obj/launcher/windows.o $(WIN_OBJ) | $(BIN)
	$(call quiet,LD,$@)$(MINGW_CC) -municode -o $@ $^ $(WIN_LIBS)

# Test-only: the job's kill-on-close and a journal left by a dead run,
# with the launcher's own code (tests/windows/wintest.c).
$(WINB)/wintest.exe: tests/windows/wintest.c $(WIN_OBJ)
	$(call quiet,CCLD,$<)$(MINGW_CC) $(WIN_CFLAGS) -o $@ $^ $(WIN_LIBS)

.PHONY: windows check-windows
windows: $(BIN)/heel-exec.exe
	@:

# Under Wine, in a prefix of its own under build/ (see the script's header
# for what Wine does and does not exercise).
# As root, again as uid 65534 with a prefix of its own (Wine refuses a
# prefix its user does not own).
check-windows: $(BIN)/heel-exec.exe $(WINB)/wintest.exe $(BIN)/heelc
	@HEELC=$(BIN)/heelc HEEL_EXEC_EXE=$(BIN)/heel-exec.exe WINTEST=$(WINB)/wintest.exe \
		WINEPREFIX=$(abspath $(WINB))/wineprefix bash tests/windows/smoke.sh
	@if [ "$$(id -u)" = 0 ]; then \
		mkdir -p $(WINB)/u65534 && chown 65534:65534 $(WINB)/u65534 && \
		setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=$(abspath $(WINB))/u65534 \
			HEELC=$(BIN)/heelc HEEL_EXEC_EXE=$(BIN)/heel-exec.exe WINTEST=$(WINB)/wintest.exe \
			WINEPREFIX=$(abspath $(WINB))/u65534/wineprefix bash tests/windows/smoke.sh; \
	fi
