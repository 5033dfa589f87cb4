#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# Every header stands alone: a translation unit that includes only that
# header must compile, so no header relies on what its includer happened to
# include, declare or #define before it. bpf/*.h and include/*.h are built
# for the BPF target, include/*.h also with the host compiler (userspace and
# the tests include them too). Each unit includes its header twice, which a
# missing or misspelt include guard turns into a redefinition error.
# -Werror: clang only warns about an undefined internal function or a struct
# first named in a parameter list (a missing UAPI include).
# The headers whose code is a template over the includer's pool accessors
# (XS_ENV, see include/xs_select.h) are built once more with the smallest
# includer that provides them, the only thing they may expect of one.
set -uo pipefail
cd "$(dirname "$0")/../.."

BPF_CLANG=${BPF_CLANG:-clang}
HOST_CC=${CC:-cc}
bpf=("$BPF_CLANG" -target bpf -O2 -fsyntax-only -Iinclude -Ibpf -D__TARGET_ARCH_x86
	-Wall -Wno-unused-function -Werror)
host=("$HOST_CC" -fsyntax-only -Iinclude -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Werror)
read -ra pkg <<<"$(pkg-config --cflags libbpf 2>/dev/null)"
host+=("${pkg[@]}")

env_prelude='#include <linux/types.h>
#define XS_ENV const void *
static inline __u32 xs_env_bucket(const void *env, __u32 b) { return b; }
static inline __u64 xs_env_load(const void *env, __u32 t) { return t; }'

pass=0
fail=0

# unit NAME HEADER PRELUDE COMPILER...: PRELUDE, then HEADER twice.
unit() {
	local name=$1 h=$2 prelude=$3 out
	shift 3
	if out=$(printf '%s\n#include "%s"\n#include "%s"\n' "$prelude" "$h" "$h" |
		"$@" -x c - 2>&1); then
		echo "PASS: $name $h"
		pass=$((pass + 1))
	else
		echo "FAIL: $name $h"
		head -n 20 <<<"$out" | sed 's/^/	/'
		fail=$((fail + 1))
	fi
}

for h in bpf/*.h include/*.h; do
	unit bpf "$(basename "$h")" "" "${bpf[@]}"
done
for h in include/*.h; do
	unit host "$(basename "$h")" "" "${host[@]}"
done
mapfile -t templates < <(grep -l '^#ifdef XS_ENV' include/*.h)
for h in "${templates[@]}"; do
	unit bpf+env "$(basename "$h")" "$env_prelude" "${bpf[@]}"
	unit host+env "$(basename "$h")" "$env_prelude" "${host[@]}"
done
echo "headers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
