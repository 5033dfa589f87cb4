#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# Run every test suite and print one "N passed, N failed" line for the lot.
# BPF and namespace tests need root and bpffs; where they cannot run, this
# fails loudly instead of skipping: a run without them is not a pass.
set -uo pipefail
cd "$(dirname "$0")/.."

# The build directory under test: `make test SANITIZE=1` passes build-san.
# Everything below runs from it, the namespace tests' CLI included, so a
# sanitized run never falls back to an uninstrumented binary.
XS_BUILD=${XS_BUILD:-build}
export XS_BUILD XS="$PWD/$XS_BUILD/xdpsteer"
# LeakSanitizer: suppress only the libraries' own process-lifetime caches
# (tests/lsan.supp says which and why); leaks in our code still fail.
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

total_pass=0
total_fail=0
failed_suites=()

run_suite() {
	local name=$1 out rc line p f
	shift
	echo "== $name"
	out=$(mktemp)
	"$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^[A-Za-z_0-9-]+: [0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
	rm -f "$out"
	if [ -z "$line" ]; then
		echo "FAIL: $name printed no summary (exit $rc)"
		total_fail=$((total_fail + 1))
		failed_suites+=("$name")
		return
	fi
	p=$(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")
	f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		total_fail=$((total_fail + 1))
	fi
	if [ "$rc" -ne 0 ] || [ "$f" -ne 0 ]; then
		failed_suites+=("$name")
	fi
}

preflight() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "FAIL: BPF and namespace tests need root; refusing to skip them (run: sudo make test)"
		return 1
	fi
	if ! mount | grep -q ' /sys/fs/bpf type bpf'; then
		mount -t bpf bpf /sys/fs/bpf || {
			echo "FAIL: cannot mount bpffs at /sys/fs/bpf"
			return 1
		}
	fi
}

if ! preflight; then
	echo "tests: 0 passed, 1 failed"
	exit 1
fi

for t in "$XS_BUILD"/tests/test_*; do
	run_suite "$(basename "$t")" "$t"
done
# Differential fuzzing, bounded: at least two minutes (tests/fuzz/run.sh).
fuzz_secs=${XS_TEST_FUZZ_SECONDS:-120}
[ "$fuzz_secs" -lt 120 ] && fuzz_secs=120
run_suite fuzz tests/fuzz/run.sh "$fuzz_secs"
for t in tests/ns/test_*.sh; do
	[ -x "$t" ] && run_suite "$(basename "$t")" "$t"
done

echo
[ ${#failed_suites[@]} -gt 0 ] && echo "failed suites: ${failed_suites[*]}"
echo "tests: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
