#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# Run the test suites and print one "tests: N passed, N failed" line for the lot.
#
#   tests/run.sh [KIND...] [-t NAME]...
#   tests/run.sh --list [KIND...]
#
# KIND is unit (tests/unit/*.c), prog (tests/prog/*.c), fuzz (tests/fuzz/run.sh,
# at least 120 s) or ns (tests/ns/test_*.sh); several may be given; the
# default, all, is every kind, in that order. -t NAME runs only the test NAME
# (as --list shows it) in the suites that have it, or a whole suite if NAME is
# one (test_hash, test_lb for the prog suite, test_lb.sh for the ns one, fuzz).
# A NAME that matches nothing in the chosen kinds is a failure, never a pass.
# --list prints "KIND SUITE TEST" for every test of the chosen kinds.
#
# BPF and namespace tests need root and bpffs; where they cannot run, this
# fails loudly instead of skipping: a run without them is not a pass.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

# The build directory under test: `make test SANITIZE=1` passes build-san.
# Everything below runs from it, the namespace tests' CLI included, so a
# sanitized run never falls back to an uninstrumented binary.
XS_BUILD=${XS_BUILD:-build}
export XS_BUILD XS="$PWD/$XS_BUILD/xdpsteer"
# LeakSanitizer: suppress only the libraries' own process-lifetime caches
# (tests/lsan.supp says which and why); leaks in our code still fail.
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

ALL_KINDS=(unit prog fuzz ns)

usage() {
	echo "usage: tests/run.sh [unit|prog|fuzz|ns|all ...] [-t NAME]..." >&2
	echo "       tests/run.sh --list [unit|prog|fuzz|ns|all ...]" >&2
}

# Fail loudly, in the form the rest of the tooling reads.
die() {
	echo "FAIL: $*"
	echo "tests: 0 passed, 1 failed"
	exit 1
}

list=0
names=()
want=()
while [ $# -gt 0 ]; do
	case $1 in
	-t)
		if [ $# -lt 2 ] || [ -z "$2" ]; then
			usage
			die "-t needs a test name"
		fi
		names+=("$2")
		shift 2
		;;
	-t*) names+=("${1#-t}"); shift ;;
	--list | -l) list=1; shift ;;
	-h | --help) usage; exit 0 ;;
	all) want+=("${ALL_KINDS[@]}"); shift ;;
	unit | prog | fuzz | ns) want+=("$1"); shift ;;
	*) usage; die "unknown kind '$1' (kinds: ${ALL_KINDS[*]}, all)" ;;
	esac
done
[ ${#want[@]} -eq 0 ] && want=("${ALL_KINDS[@]}")
# The chosen kinds, in the fixed order (fast before slow), each once.
kinds=()
for k in "${ALL_KINDS[@]}"; do
	for w in "${want[@]}"; do
		[ "$w" = "$k" ] && { kinds+=("$k"); break; }
	done
done

# The suites: parallel arrays of kind, id (the name -t matches a whole suite
# by) and command. C suites are the binaries built from their source folder.
s_kind=()
s_id=()
s_cmd=()
add_suite() { s_kind+=("$1"); s_id+=("$2"); s_cmd+=("$3"); }

fuzz_secs=${XS_TEST_FUZZ_SECONDS:-120}
[ "$fuzz_secs" -lt 120 ] && fuzz_secs=120
for k in "${kinds[@]}"; do
	case $k in
	unit | prog)
		for src in tests/"$k"/test_*.c; do
			[ -e "$src" ] || continue
			b=$(basename "$src" .c)
			add_suite "$k" "$b" "$XS_BUILD/tests/$b"
		done
		;;
	fuzz) add_suite fuzz fuzz tests/fuzz/run.sh ;;
	ns)
		for t in tests/ns/test_*.sh; do
			[ -x "$t" ] && add_suite ns "$(basename "$t")" "$t"
		done
		;;
	esac
done

# suite_tests I: the test names of suite I (none for the fuzzer).
suite_tests() {
	local cmd=${s_cmd[$1]}
	case ${s_kind[$1]} in
	fuzz) return 0 ;;
	unit | prog)
		if [ ! -x "$cmd" ]; then
			echo "FAIL: ${s_kind[$1]} suite ${s_id[$1]}: $cmd is not built (make ${s_kind[$1]/prog/prog-test})" >&2
			return 1
		fi
		;;
	esac
	"$cmd" --list
}

if [ "$list" = 1 ]; then
	[ ${#names[@]} -eq 0 ] || die "--list takes kinds, not -t"
	rc=0
	for i in "${!s_id[@]}"; do
		if [ "${s_kind[$i]}" = fuzz ]; then
			echo "fuzz fuzz -"
			continue
		fi
		out=$(suite_tests "$i") || { rc=1; continue; }
		while read -r t; do
			echo "${s_kind[$i]} ${s_id[$i]} $t"
		done <<<"$out"
	done
	exit "$rc"
fi

# Which suites run, and which of their tests: sel[i] is "*" for the whole
# suite, else the names to pass it (a suite named whole stays whole); unset,
# the suite does not run.
declare -A sel=()
if [ ${#names[@]} -eq 0 ]; then
	for i in "${!s_id[@]}"; do sel[$i]="*"; done
else
	declare -A tests_of=()
	for i in "${!s_id[@]}"; do
		out=$(suite_tests "$i") || die "cannot list the tests of ${s_id[$i]}"
		tests_of[$i]=" $(tr '\n' ' ' <<<"$out") "
	done
	unmatched=()
	for n in "${names[@]}"; do
		hit=0
		for i in "${!s_id[@]}"; do
			if [ "$n" = "${s_id[$i]}" ]; then
				sel[$i]="*"
				hit=1
			elif [[ ${tests_of[$i]} == *" $n "* ]]; then
				[ "${sel[$i]:-}" = "*" ] || sel[$i]="${sel[$i]:-}${sel[$i]:+ }$n"
				hit=1
			fi
		done
		[ "$hit" = 1 ] || unmatched+=("$n")
	done
	if [ ${#unmatched[@]} -gt 0 ]; then
		for n in "${unmatched[@]}"; do
			echo "FAIL: no test or suite named '$n' in: ${kinds[*]} (tests/run.sh --list ${kinds[*]} shows them)"
		done
		echo "tests: 0 passed, ${#unmatched[@]} failed"
		exit 1
	fi
fi

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

# Root and bpffs are needed by everything but the unit tests.
for i in "${!sel[@]}"; do
	if [ "${s_kind[$i]}" != unit ]; then
		if ! preflight; then
			echo "tests: 0 passed, 1 failed"
			exit 1
		fi
		break
	fi
done

for i in "${!s_id[@]}"; do
	[ -n "${sel[$i]:-}" ] || continue
	case ${s_kind[$i]} in
	unit | prog)
		if [ ! -x "${s_cmd[$i]}" ]; then
			echo "== ${s_id[$i]}"
			echo "FAIL: ${s_cmd[$i]} is not built"
			total_fail=$((total_fail + 1))
			failed_suites+=("${s_id[$i]}")
			continue
		fi
		;;
	esac
	if [ "${s_kind[$i]}" = fuzz ]; then
		run_suite fuzz "${s_cmd[$i]}" "$fuzz_secs"
	elif [ "${sel[$i]}" = "*" ]; then
		run_suite "${s_id[$i]}" "${s_cmd[$i]}"
	else
		read -ra only <<<"${sel[$i]}"
		run_suite "${s_id[$i]} ${sel[$i]}" "${s_cmd[$i]}" "${only[@]}"
	fi
done

echo
[ ${#failed_suites[@]} -gt 0 ] && echo "failed suites: ${failed_suites[*]}"
echo "tests: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
