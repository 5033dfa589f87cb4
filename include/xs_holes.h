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
 * One step of that walk, apart from xs_select.h so that a side can drive the
 * steps its own way before xs_select() is defined (the BPF side drives them
 * with bpf_loop(): bpf/xs_steer.h). Like xs_select.h, it reads buckets
 * through the side's accessor, so the step is only defined where the side
 * has defined XS_ENV and xs_env_bucket() (see xs_select.h) before including
 * this file.
 */
#ifndef XS_HOLES_H
#define XS_HOLES_H

#include "xdpsteer.h"
#include "xs_hash.h"
#include "xs_jump.h"

#define XS_HOLE_DRAWS 32
#define XS_HOLE_GOLDEN 0xc2b2ae3d27d4eb4fULL

#ifdef XS_ENV
/* Step @i of the walk from hash @h over @n buckets; returns 1 when *b is live. */
XS_INLINE int xs_live_step(XS_ENV env, __u64 h, __u32 n, __u32 i, __u32 *b)
{
	if (i == 0)
		*b = XS_JUMP_FN(h, n);
	else if (i < XS_HOLE_DRAWS)
		*b = XS_JUMP_FN(xs_mix64(h + (__u64)i * XS_HOLE_GOLDEN), n);
	else
		*b = *b + 1 >= n ? 0 : *b + 1;
	return xs_env_bucket(env, *b) != XS_NO_TARGET;
}
#endif /* XS_ENV */

#endif /* XS_HOLES_H */
