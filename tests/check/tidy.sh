#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# clang-tidy (.clang-tidy) on each user/*/*.c, two at a time. The CLI's sources
# include the generated skeletons, so this runs after the build (make check).
# One diagnostic is dropped, narrowly: the analyzer's "potential leak" on the
# error path of bpftool's generated $XS_BUILD/*.skel.h, which it reports
# whatever the header filter says. bpf_object__destroy_skeleton() frees that
# memory; the analyzer cannot see into libbpf. Not our code to annotate.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${XS_BUILD:-build}
TIDY=${CLANG_TIDY:-clang-tidy-14}

flags=(-O2 -g -Wall -Wextra -Wno-unused-parameter -std=gnu11 -Iinclude -Iuser/lib -Iuser/sim -Iuser/agent "-I$BUILD")
read -ra pkg <<<"$(pkg-config --cflags libbpf libxdp 2>/dev/null)"
flags+=("${pkg[@]}")
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

pass=0
fail=0
# Each file's log ends with "rc=N": a crash or a missing log is a failure too.
# shellcheck disable=SC2016 # expanded by the inner shell
ls user/*/*.c | xargs -P2 -I{} bash -c '"$0" --quiet "$1" -- "${@:3}" \
	>"$2/$(basename "$1").log" 2>&1; echo "rc=$?" >>"$2/$(basename "$1").log"' \
	"$TIDY" {} "$log" "${flags[@]}"
skel_fp="^$BUILD/[a-z_]+\\.skel\\.h:[0-9]+:[0-9]+: (warning|error): Potential leak of memory pointed to by 's' \\[clang-analyzer-unix\\.Malloc"
for f in user/*/*.c; do
	l=$log/$(basename "$f").log
	# Exit status: 0, or 1 when the only diagnostics are the skeleton's.
	if [ -f "$l" ] && tail -n 1 "$l" | grep -qx 'rc=[01]' &&
	   ! grep -E '(warning|error): ' "$l" | grep -qvE "$skel_fp"; then
		pass=$((pass + 1))
	else
		echo "FAIL: clang-tidy $f"
		[ -f "$l" ] && grep -E -A3 '(warning|error): |^rc=' "$l"
		fail=$((fail + 1))
	fi
done
echo "clang-tidy: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
