# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# The pinned state of $IF_STEER as bpftool prints it, and the check that a
# refused change left it byte-identical (source it after lib.sh).

# dump_state FILE: every map that holds the configuration, as bpftool prints it.
# xs_pools holds the inner map ids: any publish, even of an equal pool, shows;
# xs_pool_hdrs the pools' headers, both generations.
dump_state() {
	local d m
	d=$(pin_dir "$NS_STEER" "$IF_STEER")
	for m in xs_pools xs_pool_hdrs pool0 xs_targets xs_services xs_checks xs_service_by_id xs_vips xs_cpumap \
		xs_devmap xs_dev_ids xs_self; do
		echo "== $m"
		"$BPFTOOL" map dump pinned "$d/$m"
	done >"$1"
	# Service pools, through xs_pools (pins of removed services linger).
	"$BPFTOOL" -j map dump pinned "$d/xs_pools" | "$PYTHON" -c '
import json, sys
for e in json.load(sys.stdin):
    print(e.get("key"), e.get("value"))' >>"$1"
	for m in "$d"/pool*; do
		echo "== $(basename "$m")"
		"$BPFTOOL" map dump pinned "$m"
	done >>"$1"
}

assert_same_state() { # WHAT BEFORE
	dump_state "$XS_TMP/now.dump"
	cmp -s "$2" "$XS_TMP/now.dump" || {
		diff "$2" "$XS_TMP/now.dump" | head -20
		fail "$1: pinned maps changed"
	}
	echo "ok: $1: maps byte-identical"
}


# strip_places: show's text without where each object sits (id, slots,
# slot-count): the file an operator writes by hand, which leaves places to
# the commit.
strip_places() {
	sed -E -e 's/ (id [0-9]+|slots [0-9,]+|slot-count [0-9]+)//g' -e '/^slot-count /d'
}
