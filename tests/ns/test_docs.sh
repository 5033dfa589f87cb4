#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# The docs against the binary: the synopses of docs/usage.md and
# xdpsteer(8) and docs/install.md's tree are what `xdpsteer help --doc` and
# make install print (tests/ns/docs.py compares every region between its
# markers, and prints the diff and "run make docs" when one differs); the
# keys of xdpsteer.conf(5) are the parser's key tables, no more, no fewer;
# every option is described somewhere in docs/;
# and help --doc refuses a format it does not know. No namespace; about 5 s.
#
#   tests/ns/test_docs.sh [--list | TEST...]   (default: every t_* function, in order)
set -euo pipefail

XS_SUITE=docs
if [ -z "${XS_NS_WATCHDOG:-}" ]; then
	export XS_NS_WATCHDOG=1
	exec timeout -k 20 "${XS_NS_TIMEOUT:-120}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"

DOCS_PY=$XS_TOP/tests/ns/docs.py
STAGE="" # make install DESTDIR=$STAGE: the tree the docs must list

# stage: install into $XS_TMP/stage with the paths the docs show.
stage() {
	STAGE=$XS_TMP/stage
	make -s -C "$XS_TOP" BUILD="${XS_BUILD:-build}" install DESTDIR="$STAGE" PREFIX=/usr/local \
		SYSCONFDIR=/etc >"$XS_TMP/install.log" 2>&1 ||
		{ tail -n 20 "$XS_TMP/install.log"; return 1; }
}

# Every synopsis region of docs/usage.md and man/xdpsteer.8.scd, and the
# install tree of docs/install.md, is what the binary and make install print.
t_generated_regions() {
	"$PYTHON" "$DOCS_PY" check --what regions --cli "$XS" --stage "$STAGE" ||
		fail "the docs differ from the binary (the diff is above)"
	echo "ok: every synopsis and the install tree are as generated"
}

# Every key of the file's parser is on its object's line in
# xdpsteer.conf(5)'s FORMAT, and no key is there that the parser refuses.
t_conf_keys() {
	"$PYTHON" "$DOCS_PY" check --what keys --cli "$XS" --stage "$STAGE" ||
		fail "xdpsteer.conf(5) and the key tables differ (above)"
	echo "ok: xdpsteer.conf(5) documents exactly the parser's keys"
}

# Every option of the command table is described in docs/*.md beyond the
# synopses (a new option with no words about it fails).
t_options_described() {
	"$PYTHON" "$DOCS_PY" check --what options --cli "$XS" --stage "$STAGE" ||
		fail "options the docs do not describe (above)"
	echo "ok: every option is described in docs/"
}

# help --doc: each format prints a line per command, and a bad one is a usage error.
t_help_doc() {
	local n
	n=$("$XS" help --doc markdown target | grep -c '^xdpsteer target ')
	assert_eq "markdown lines of target's commands" "$n" \
		"$("$XS" target help | grep -c '^  xdpsteer target ')"
	"$XS" help --doc scdoc service add | grep -q '^\*service add\* _IFACE_ ' ||
		fail "help --doc scdoc service add: $("$XS" help --doc scdoc service add)"
	echo "ok: help --doc scdoc service add"
	local rc=0
	"$XS" help --doc html >"$XS_TMP/o" 2>"$XS_TMP/e" || rc=$?
	assert_eq "help --doc html: exit status" "$rc" 2
	[ ! -s "$XS_TMP/o" ] || fail "help --doc html printed on stdout: $(cat "$XS_TMP/o")"
	grep -q "help: --doc 'html': want markdown, scdoc or keys" "$XS_TMP/e" ||
		fail "help --doc html: $(cat "$XS_TMP/e")"
	echo "ok: help --doc html refused: $(head -n 1 "$XS_TMP/e")"
}

ns_select "$@"
install_trap
command -v "$PYTHON" >/dev/null || fatal docs "missing tool: $PYTHON"
command -v scdoc >/dev/null || fatal docs "missing tool: scdoc (make deps)"
[ -x "$XS" ] || fatal docs "$XS is not built (run make)"
xs_tmp docs || fatal docs "cannot make a temporary directory"
stage || fatal docs "make install DESTDIR=$STAGE failed"

for t in "${NS_TESTS[@]}"; do
	run_test "$t" "t_$t"
done
finish docs
