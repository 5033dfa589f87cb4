#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# make bench: every benchmark, each printing ratios against a baseline timed
# in the same run. Numbers from a shared or busy machine are noisy: compare
# ratios from one run, not absolute figures across runs.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ "$(id -u)" -ne 0 ]; then
	echo "bench: BPF_PROG_TEST_RUN needs root (run: sudo make bench)" >&2
	exit 1
fi
mount | grep -q ' /sys/fs/bpf type bpf' || mount -t bpf bpf /sys/fs/bpf

echo "== flow hash candidates (userspace, 40-byte key)"
build/bench/bench_hash
echo
echo "== queue steering (XDP program, BPF_PROG_TEST_RUN)"
build/bench/bench_prog build/bench/floor.bpf.o
echo
echo "== flow table hit and miss (XDP program, BPF_PROG_TEST_RUN)"
build/bench/bench_flows build/bench/floor.bpf.o
echo
echo "== service path (XDP program, BPF_PROG_TEST_RUN, private namespace)"
build/bench/bench_lb build/bench/floor.bpf.o
echo
echo "== many concurrent flows: 10k, 100k, 1M (XDP program, BPF_PROG_TEST_RUN, private namespace)"
build/bench/bench_scale build/bench/floor.bpf.o
echo
echo "== GUE beside ipip, and second chance on both sides (private namespace)"
build/bench/bench_gue build/bench/floor.bpf.o
echo
echo "== sim resize (1M keys, 20 -> 21) against a plain implementation"
build/bench/bench_sim
echo
# The default build stops at XS_MAX_BACKENDS 8192; the big build (make bench
# builds it in build/big) times 65536. Each prints ratios to its own N=16
# "add one", so a row is compared only with rows of the same build.
echo "== apply: time and map writes by N and by size of change (private namespace)"
build/bench/bench_apply default 16 1024 8192
build/big/bench/bench_apply big 16 65536
