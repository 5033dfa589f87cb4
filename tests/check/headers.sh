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
# One header is a template over its includer's pool accessors (XS_ENV, see
# include/xs_select.h): it is built once more with the smallest includer
# that provides them, the only thing it may expect of one. No other header
# reads a name its includer defines: each preprocesses alike with and
# without such names defined before it. Such a name is one a header tests
# (#if, #ifdef, #ifndef) and a file other than those testing it #defines;
# a build-wide -D or a header's own fallback is none. Last, no #include
# leads back to the file it is in (tsort finds the circle).
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
templates=(include/xs_select.h)
for h in "${templates[@]}"; do
	unit bpf+env "$(basename "$h")" "$env_prelude" "${bpf[@]}"
	unit host+env "$(basename "$h")" "$env_prelude" "${host[@]}"
done

# The names includers define for a header to read, one a line.
cond='^\s*#\s*(if|ifdef|ifndef|elif)\b'
includer_names() {
	local n testers definers
	grep -hE "$cond" include/*.h bpf/*.h | grep -oE '\b[A-Z][A-Z0-9_]*\b' | grep -v '_H$' |
		sort -u | while read -r n; do
		testers=$(grep -lE "$cond.*\b$n\b" include/*.h bpf/*.h | sort)
		definers=$(grep -rlE "^\s*#\s*define\s+$n\b" --include='*.[ch]' \
			include bpf user tests | sort)
		comm -13 <(echo "$testers") <(echo "$definers") | grep -q . && echo "$n"
	done
}

# preprocess PRELUDE HEADER: HEADER's text and macros as the BPF build sees
# them after PRELUDE (whose own lines are dropped), so that a fallback
# (#ifndef NAME, #define NAME) an includer would override counts too.
preprocess() {
	printf '%s\n#include "%s"\n' "$1" "$2" |
		"$BPF_CLANG" -target bpf -E -P -dD -w -Iinclude -Ibpf -D__TARGET_ARCH_x86 -x c - |
		grep -v '^[[:space:]]*$' | grep -vxF -f <(printf '%s\n' "$1")
}

mapfile -t names < <(includer_names)
echo "pure: the names includers define: ${names[*]}"
defs=$(for n in "${names[@]}"; do echo "#define $n xs_includer_$n"; done)
for h in bpf/*.h include/*.h; do
	[[ " ${templates[*]} " == *" $h "* ]] && continue
	if [ "$(preprocess "" "$h")" == "$(preprocess "$defs" "$h")" ]; then
		echo "PASS: pure $(basename "$h")"
		pass=$((pass + 1))
		continue
	fi
	read_names=()
	for n in "${names[@]}"; do
		[ "$(preprocess "" "$h")" == "$(preprocess "#define $n xs_includer_$n" "$h")" ] ||
			read_names+=("$n")
	done
	echo "FAIL: pure $(basename "$h") reads ${read_names[*]} from its includer:" \
		"only ${templates[*]} may (pass values instead)"
	fail=$((fail + 1))
done

# Each file's quoted includes as "includer included" pairs, by base name (they are unique).
if out=$(grep -rHoE '^\s*#\s*include\s+"[^"]+"' --include='*.[ch]' include bpf user tests |
	sed -E 's|^([^:]*/)?([^/:]+):.*"([^"]*/)?([^"/]+)"$|\2 \4|' | tsort 2>&1 >/dev/null); then
	echo "PASS: no include circle"
	pass=$((pass + 1))
else
	echo "FAIL: an include circle:"
	head -n 20 <<<"$out" | sed 's/^/	/'
	fail=$((fail + 1))
fi
echo "headers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
