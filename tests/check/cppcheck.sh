#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# cppcheck over the userspace C: user/, include/ and tests/. The BPF programs
# (*.bpf.c) are left to the verifier and clang -Wall: they need the BPF
# target's headers and SEC() semantics cppcheck does not model.
# Configuration: tests/check/cppcheck.cfg (libbpf/libxdp macros, getrandom)
# and .cppcheck-suppressions (project-wide, with reasons); one-offs inline.
set -uo pipefail
cd "$(dirname "$0")/../.."

mapfile -t files < <(ls user/*/*.[ch] include/*.h tests/*.h tests/*/*.[ch] | grep -v '\.bpf\.c$')
if cppcheck --enable=warning,performance,portability --std=c11 --error-exitcode=1 \
	--inline-suppr --suppressions-list=.cppcheck-suppressions \
	--library=posix --library=tests/check/cppcheck.cfg \
	-Iinclude -Iuser/lib -Iuser/sim -Iuser/agent -Iuser/cmd -Itests -Itests/prog -Itests/fuzz -q \
	--template='{file}:{line}: {severity}: {id}: {message}' "${files[@]}"; then
	echo "cppcheck: ${#files[@]} files clean"
	echo "cppcheck: 1 passed, 0 failed"
else
	echo "cppcheck: 0 passed, 1 failed"
	exit 1
fi
