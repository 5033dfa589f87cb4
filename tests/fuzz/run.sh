#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# Differential fuzzing of the packet path (tests/fuzz/fuzz_xdp.c).
#   tests/fuzz/run.sh [SECONDS]   SECONDS unset or 0: until interrupted
# First replays every reproducer in tests/fuzz/repro/ (a directory is one
# sequence of frames, run in order in one process: some findings need the
# flow table's state), then fuzzes from the committed seed corpus. A new
# disagreement is saved to tests/fuzz/repro/crash-* by libFuzzer.
# Prints "fuzz: N passed, N failed" for tests/run.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."

FUZZ=${XS_BUILD:-build}/fuzz/fuzz_xdp
secs=${1:-0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

for r in tests/fuzz/repro/*; do
	[ -e "$r" ] || continue
	if [ -d "$r" ]; then files=("$r"/*); else files=("$r"); fi
	if "$FUZZ" "${files[@]}" >"$work/replay" 2>&1; then
		echo "fuzz: reproducer $r: agrees"
	else
		echo "fuzz: reproducer $r: disagrees again"
		grep -A4 '^fuzz:' "$work/replay"
		failed=1
	fi
done

mkdir -p "$work/corpus"
args=(-max_len=1600 -timeout=10 -print_final_stats=1 -artifact_prefix=tests/fuzz/repro/)
[ "$secs" -gt 0 ] && args+=(-max_total_time="$secs")
start=$(date +%s)
"$FUZZ" "${args[@]}" "$work/corpus" tests/fuzz/corpus >"$work/log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid"; rm -rf "$work"' INT TERM
# Only libFuzzer's periodic and final lines, not one per new input.
tail -n +1 -f "$work/log" --pid "$pid" | grep --line-buffered -E '^#[0-9]+\s+(pulse|DONE)|^fuzz:|SUMMARY'
wait "$pid"
rc=$?
trap 'rm -rf "$work"' EXIT
elapsed=$(($(date +%s) - start))
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
cov=$(grep -oE 'cov: [0-9]+' "$work/log" | tail -n 1)
if [ "$rc" -ne 0 ] && [ "$rc" -ne 130 ]; then
	echo "fuzz: the fuzzer stopped with exit $rc; the reproducer is in tests/fuzz/repro/"
	grep -A8 -E '^fuzz:|ERROR: ' "$work/log" | head -n 40
	failed=1
fi
if [ -n "$execs" ] && [ "$elapsed" -gt 0 ]; then
	echo "fuzz: $execs executions in ${elapsed}s ($((execs / elapsed)) per second), $cov"
fi
echo "fuzz: $((1 - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
