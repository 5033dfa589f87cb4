#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# `make check`: every static and dynamic check, one summary line for the lot,
# "check: N passed, N failed". Each script prints its own "NAME: N passed,
# N failed" line; a script that prints none, or exits non-zero with no
# failure counted, counts as one failure. XS_BUILD names the build to check.
set -uo pipefail
cd "$(dirname "$0")/../.."
export XS_BUILD=${XS_BUILD:-build}

pass=0
fail=0
failed=()
for s in headers.sh cppcheck.sh tidy.sh valgrind.sh bpf_load.sh; do
	echo "== $s"
	out=$(mktemp)
	tests/check/$s 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^[A-Za-z_0-9-]+: [0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
	rm -f "$out"
	if [ -z "$line" ]; then
		echo "FAIL: $s printed no summary (exit $rc)"
		fail=$((fail + 1))
		failed+=("$s")
		continue
	fi
	p=$(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")
	f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	pass=$((pass + p))
	fail=$((fail + f))
	[ "$f" -ne 0 ] && failed+=("$s")
done
echo
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "check: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
