/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Removal from the middle leaves a hole (a bucket with XS_NO_TARGET) instead
 * of renumbering. A key whose jump bucket is a hole draws again, from
 * mix64(h + i * XS_HOLE_GOLDEN), up to XS_HOLE_DRAWS times, then walks upward
 * to the next live bucket. The result depends only on the set of holes, so:
 *  - removing bucket k moves exactly the keys that were on k (no other key
 *    has k before its answer in its draw sequence, or k would be its answer);
 *  - they spread uniformly over the live buckets (rejection sampling);
 *  - refilling k restores the earlier mapping exactly.
 *
 * The walk takes values, not a pool: its includer reads the buckets, with
 * its own loop (bpf_loop() in the BPF program: bpf/xs_steer.h; a plain loop
 * in xs_select.h) and its own jump (a global subprogram in BPF). Step i:
 *  - below XS_HOLE_DRAWS, draws jump(xs_hole_key(h, i), n);
 *  - xs_hole_next() turns that draw, or the bucket step i - 1 tried, into
 *    the bucket step i tries;
 *  - the includer reads that bucket: a live one ends the walk.
 * After XS_HOLE_DRAWS + n steps every bucket has been tried.
 */
#ifndef XS_HOLES_H
#define XS_HOLES_H

#include "xs_common.h"
#include "xs_hash.h"

#define XS_HOLE_DRAWS 32
#define XS_HOLE_GOLDEN 0xc2b2ae3d27d4eb4fULL

/* The key draw @i (< XS_HOLE_DRAWS) of the walk from hash @h jumps from; draw 0 is h's own jump. */
XS_INLINE __u64 xs_hole_key(__u64 h, __u32 i)
{
	return i ? xs_mix64(h + (__u64)i * XS_HOLE_GOLDEN) : h;
}

/*
 * The bucket step @i of the walk over @n buckets tries: @drawn (the jump of
 * xs_hole_key(), read only below XS_HOLE_DRAWS), else the bucket after
 * @prev, the one step i - 1 tried.
 */
XS_INLINE __u32 xs_hole_next(__u32 n, __u32 i, __u32 drawn, __u32 prev)
{
	if (i < XS_HOLE_DRAWS)
		return drawn;
	return prev + 1 >= n ? 0 : prev + 1;
}

#endif /* XS_HOLES_H */
