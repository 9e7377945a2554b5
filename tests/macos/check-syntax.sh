#!/bin/bash
# SPDX-License-Identifier: MIT
# Compiles the macOS launcher and the runtime files it links with
# __APPLE__ defined, against glibc plus the few Darwin declarations of
# darwin_stub.h: the code behind #ifdef __APPLE__ is type-checked on
# every `make check` although no Mac is available. Nothing is linked or
# run. Usage: check-syntax.sh [CC]
set -u
cd "$(dirname "$0")/../.."
cc=${1:-cc}
pass=0 fail=0
for f in launcher/macos.c runtime/rlimits.c runtime/sbpl_params.c runtime/workdir.c runtime/env.c runtime/ptrack.c \
	runtime/artifact_read.c; do
	if "$cc" -std=c17 -D_GNU_SOURCE -D__APPLE__ -Wall -Wextra -Werror -Wno-unused-parameter \
		-include tests/macos/darwin_stub.h -Iruntime -Ilauncher -fsyntax-only "$f"; then
		echo "ok   $f"; pass=$((pass + 1))
	else
		echo "FAIL $f"; fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
