#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# The BPF objects as clang 14 and clang 19 build them ($XS_BUILD/clang-NN/,
# made by `make check`): each must pass the verifier. The clang-19 objects
# are loaded by `bpftool prog loadall` into a temporary bpffs directory
# (removed after); both compilers' objects are loaded by verified_insns,
# which prints per program the object's instructions, the kernel's
# translated count and verified_insns (what the verifier walked; the limit
# is 1,000,000). Loaded with the object's default .rodata, not an attach's.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${XS_BUILD:-build}
BPFTOOL=${BPFTOOL:-bpftool}

pass=0
fail=0
pin=""
trap '[ -n "$pin" ] && rm -rf "$pin"' EXIT

if [ "$(id -u)" -ne 0 ]; then
	echo "bpf_load: needs root to load BPF programs"
	echo "bpf_load: 0 passed, 1 failed"
	exit 1
fi
if [ "$(stat -f -c %T /sys/fs/bpf 2>/dev/null)" != bpf_fs ]; then
	mount -t bpf bpf /sys/fs/bpf
fi

for obj in "$BUILD"/clang-19/*.bpf.o; do
	# No dot in the name: bpffs refuses names with one.
	pin=$(mktemp -d /sys/fs/bpf/xs_check_XXXXXX)
	if "$BPFTOOL" prog loadall "$obj" "$pin" && [ -n "$(ls "$pin")" ]; then
		echo "ok: bpftool prog loadall $obj: $(ls "$pin" | paste -sd' ' -)"
		pass=$((pass + 1))
	else
		echo "FAIL: bpftool prog loadall $obj"
		fail=$((fail + 1))
	fi
	rm -rf "$pin"
	pin=""
done

for cc in clang-14 clang-19; do
	for obj in "$BUILD/$cc"/*.bpf.o; do
		if "$BUILD"/check/verified_insns "$obj" "$cc"; then
			pass=$((pass + 1))
		else
			echo "FAIL: $cc $obj does not load"
			fail=$((fail + 1))
		fi
	done
done
echo "bpf_load: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
