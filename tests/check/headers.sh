#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# Every header stands alone: a translation unit that includes only that
# header must compile, so no header relies on what its includer happened to
# include, declare or #define before it. bpf/*.h and include/*.h are built
# for the BPF target, include/*.h also with the host compiler (userspace and
# the tests include them too). Each unit includes its header twice, which a
# missing or misspelt include guard turns into a redefinition error.
# -Werror: a struct first named in a parameter list (a missing UAPI include)
# is only a warning, and it would leave that parameter's type unusable.
set -uo pipefail
cd "$(dirname "$0")/../.."

BPF_CLANG=${BPF_CLANG:-clang}
HOST_CC=${CC:-cc}
bpf_flags=(-target bpf -O2 -fsyntax-only -Iinclude -Ibpf -D__TARGET_ARCH_x86
	-Wall -Wno-unused-function -Werror)
host_flags=(-fsyntax-only -Iinclude -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Werror)
read -ra pkg <<<"$(pkg-config --cflags libbpf 2>/dev/null)"
host_flags+=("${pkg[@]}")

pass=0
fail=0

# check NAME COMPILER FLAGS... -- HEADER
check() {
	local name=$1 h=${*: -1} out
	shift
	out=$(printf '#include "%s"\n#include "%s"\n' "$h" "$h" |
		"${@:1:$#-2}" -x c - 2>&1)
	if [ $? -eq 0 ]; then
		echo "PASS: $name $h"
		pass=$((pass + 1))
	else
		echo "FAIL: $name $h"
		sed 's/^/	/' <<<"$out" | head -n 20
		fail=$((fail + 1))
	fi
}

for h in bpf/*.h include/*.h; do
	check bpf "$BPF_CLANG" "${bpf_flags[@]}" -- "$(basename "$h")"
done
for h in include/*.h; do
	check host "$HOST_CC" "${host_flags[@]}" -- "$(basename "$h")"
done
echo "headers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
