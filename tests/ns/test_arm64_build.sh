#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# The arm64 cross-build (make ARCH=arm64, docs/install.md) and the program's
# memory order per architecture (bpf/xs_order.h, docs/design.md "Recipes and
# the epoch"). Root for the verifier; no namespace. About a minute (the cross
# build and an x86 build of the ordered program, -j2, in a temporary
# directory).
#
#   tests/ns/test_arm64_build.sh [--list | TEST...]   (default: every t_* function, in order)
#
# cross_build: make ARCH=arm64 builds the BPF object with __TARGET_ARCH_arm64,
#   its skeleton, and a CLI that is an aarch64 ELF; the native build (its
#   program, skeleton and CLI) is not touched.
# acquire_per_arch: the arm64 program orders its later loads after each read
#   of the epoch that a recipe follows (the long way; a cached flow whose
#   recipe is out of date) and after each read of pool_base (xs_self_read(),
#   inlined twice): four exchanges. The x86 program has none (x86 loads are
#   in order), so it is the very program it was.
# arm64_program_verifies: this kernel's verifier accepts the arm64 program
#   (the exchange on a stack slot included).
# weak_order_program_runs: the program with the arm64 reader, built for x86
#   (XS_TEST_WEAK_ORDER), passes prog test_lb's cached_flow_follows_changes
#   and prog test_txn: the exchanges change no decision. (No test here can
#   fail for a missing acquire: x86 keeps loads in order by itself.)
# arch_choice: ARCH picks the triplet and the build directory; an unknown
#   ARCH, or a test target of a cross build, is refused, naming what to do.
set -euo pipefail

XS_SUITE=arm64_build
if [ -z "${XS_NS_WATCHDOG:-}" ]; then
	export XS_NS_WATCHDOG=1
	exec timeout -k 20 "${XS_NS_TIMEOUT:-240}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"

NATIVE=$XS_TOP/${XS_BUILD:-build}
ARM=""       # the cross build's directory, in XS_TMP
OBJDUMP=${OBJDUMP:-llvm-objdump}

# sums: the native build's program, skeleton and CLI, as bytes.
sums() { sha256sum "$NATIVE/xdpsteer.bpf.o" "$NATIVE/xdpsteer.skel.h" "$NATIVE/xdpsteer"; }

# xchgs OBJ: how many exchanges the XDP program of OBJ holds.
xchgs() { "$OBJDUMP" -d --section=xdp "$1" | grep -c 'xchg' || true; }

t_cross_build() {
	local before
	before=$(sums)
	make -s -j2 -C "$XS_TOP" ARCH=arm64 BUILD="$ARM" "$ARM/xdpsteer" >"$XS_TMP/build.log" 2>&1 ||
		{ tail -n 30 "$XS_TMP/build.log"; fail "make ARCH=arm64 failed"; }
	echo "ok: make ARCH=arm64 built $ARM/xdpsteer"
	grep -q -- '-D__TARGET_ARCH_arm64' <(make -s -n -C "$XS_TOP" ARCH=arm64 BUILD="$ARM" \
		-W bpf/xdpsteer.bpf.c "$ARM/xdpsteer.bpf.o") ||
		fail "the BPF object is not built with -D__TARGET_ARCH_arm64"
	echo "ok: the BPF object is built with -D__TARGET_ARCH_arm64"
	grep -q 'xdpsteer__open(void)' "$ARM/xdpsteer.skel.h" || fail "no skeleton in $ARM/xdpsteer.skel.h"
	echo "ok: its skeleton generated"
	file -b "$ARM/xdpsteer" | grep -q 'ELF 64-bit LSB .*ARM aarch64' ||
		fail "the CLI is not an aarch64 ELF: $(file -b "$ARM/xdpsteer")"
	echo "ok: the CLI: $(file -b "$ARM/xdpsteer" | cut -d, -f1-2)"
	assert_eq "the native build's program, skeleton and CLI (sha256)" "$(sums)" "$before"
}

t_acquire_per_arch() {
	assert_eq "exchanges in the arm64 XDP program" "$(xchgs "$ARM/xdpsteer.bpf.o")" 4
	assert_eq "exchanges in the native (x86) XDP program" "$(xchgs "$NATIVE/xdpsteer.bpf.o")" 0
}
ns_needs acquire_per_arch cross_build

t_arm64_program_verifies() {
	local pin
	pin=$(mktemp -d /sys/fs/bpf/xs_arm64_XXXXXX)
	if ! "$BPFTOOL" prog loadall "$ARM/xdpsteer.bpf.o" "$pin" >"$XS_TMP/load.log" 2>&1; then
		rm -rf "$pin"
		tail -n 20 "$XS_TMP/load.log"
		fail "the verifier refused the arm64 program"
	fi
	echo "ok: the verifier accepts the arm64 program: $(ls "$pin" | paste -sd' ' -)"
	rm -rf "$pin"
}
ns_needs arm64_program_verifies cross_build

# The ordered program's logic, run here: built for x86 with the arm64 reader
# (XS_TEST_WEAK_ORDER), a change still reaches a cached flow at its next
# packet and packets still see one generation or the other.
t_weak_order_program_runs() {
	local w=$XS_TMP/weak
	make -s -j2 -C "$XS_TOP" BUILD="$w" XS_DEFS=-DXS_TEST_WEAK_ORDER \
		"$w/tests/test_lb" "$w/tests/test_txn" >"$XS_TMP/weak.log" 2>&1 ||
		{ tail -n 30 "$XS_TMP/weak.log"; fail "cannot build the ordered program for x86"; }
	assert_eq "exchanges in the ordered x86 XDP program" "$(xchgs "$w/xdpsteer.bpf.o")" 4
	"$w/tests/test_lb" cached_flow_follows_changes || fail "prog test_lb, ordered program"
	"$w/tests/test_txn" || fail "prog test_txn, ordered program"
	echo "ok: the ordered program passes cached_flow_follows_changes and test_txn"
}

# makevar ARGS...: BUILD, CROSS and CC as make ARGS would set them.
makevar() {
	make -s -C "$XS_TOP" "$@" --eval='xs_vars: ; @echo "$(BUILD) $(CROSS) $(CC)"' xs_vars
}

t_arch_choice() {
	assert_eq "make ARCH=arm64: build directory and triplet" \
		"$(makevar ARCH=arm64 | cut -d' ' -f1-2)" "build-arm64 aarch64-linux-gnu-"
	assert_eq "make CROSS=aarch64-linux-gnu-: build directory" \
		"$(makevar CROSS=aarch64-linux-gnu- | cut -d' ' -f1)" "build-arm64"
	assert_eq "make (native): build directory and no CROSS" "$(makevar | cut -d' ' -f1-2)" "build "
	expect_error "make ARCH=sparc" "ARCH=sparc: xdpsteer builds for x86 or arm64 \(docs/install.md\)" \
		make -s -C "$XS_TOP" ARCH=sparc
	expect_error "make ARCH=arm64 prog-test" "make prog-test runs what it builds: not with ARCH=arm64" \
		make -s -C "$XS_TOP" ARCH=arm64 prog-test
	[ ! -e "$XS_TOP/build-sparc" ] || fail "make ARCH=sparc made build-sparc"
}

ns_select "$@"
install_trap
[ "$(id -u)" -eq 0 ] || fatal "$XS_SUITE" "needs root (the verifier)"
command -v "$OBJDUMP" >/dev/null || fatal "$XS_SUITE" "missing tool: $OBJDUMP (make deps)"
[ -e "$NATIVE/xdpsteer" ] || fatal "$XS_SUITE" "$NATIVE/xdpsteer is not built (run make)"
if [ "$(stat -f -c %T /sys/fs/bpf 2>/dev/null)" != bpf_fs ]; then
	mount -t bpf bpf /sys/fs/bpf
fi
XS_TMP=$(mktemp -d /tmp/xdpsteer-arm64.XXXXXX)
ARM=$XS_TMP/arm64
for t in "${NS_TESTS[@]}"; do
	run_test "$t" "t_$t"
done
finish "$XS_SUITE"
