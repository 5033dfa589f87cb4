/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Many changes to one pool, each as cheap as the change itself. The plain
 * pool primitives (state.h: xs_pool_find, xs_pool_pick_bucket,
 * xs_pool_remove, xs_pool_drain) each walk the whole pool, which is right
 * for one command and N^2 for an apply that touches every target of a
 * large pool. An edit keeps, beside the pool, each target's buckets and the
 * set of holes, and makes exactly the changes those primitives would, in
 * the same order, with the same result (tests/unit/test_pool_edit.c
 * compares the two on random changes).
 */
#ifndef XS_POOL_EDIT_H
#define XS_POOL_EDIT_H

#include "pool.h"

struct xs_pool_edit {
	struct xs_pool *p;	/* the pool being edited: its buckets are the result */
	__u32 cap;		/* buckets allocated in p->bucket, link and the hole bitmap */
	__u32 holes;		/* holes in [0, n_buckets): xs_pool_remove's shrink test */
	__u32 *link;		/* per bucket: another bucket of its target, or XS_NO_TARGET */
	__u32 *head;		/* per target id: one of its buckets, or XS_NO_TARGET */
	__u32 *scratch;		/* one target's buckets, while they are sorted */
	__u64 *hole_bits;	/* bit b: bucket b is a hole (b < n_buckets) */
	__u64 *hole_words;	/* bit w: hole_bits[w] has a hole */
};

/* Once per apply: room for every target id. 0 or -ENOMEM. */
int xs_edit_init(struct xs_pool_edit *e);
void xs_edit_free(struct xs_pool_edit *e);
/* Start editing @p (one pool at a time). 0 or -ENOMEM. */
int xs_edit_begin(struct xs_pool_edit *e, struct xs_pool *p);
/* Stop editing: @p is as the primitives would have left it. */
void xs_edit_end(struct xs_pool_edit *e);

/* Lowest bucket of target @id (xs_pool_find), or XS_NO_TARGET. */
__u32 xs_edit_first(const struct xs_pool_edit *e, __u32 id);
/* Give @id @n more buckets, each where xs_pool_pick_bucket(@old) puts it. */
int xs_edit_grow(struct xs_pool_edit *e, const struct xs_target *old, __u32 id, __u32 n);
/* Take @n buckets from @id, highest first, each by xs_pool_remove. */
void xs_edit_shrink(struct xs_pool_edit *e, __u32 id, __u32 n);
/* xs_pool_drain(@t, @id, @drain): empty its buckets, or refill weight of them. */
int xs_edit_drain(struct xs_pool_edit *e, const struct xs_target *t, __u32 id, bool drain);

/* @t->bucket = the lowest bucket of @id, if it holds any. */
void xs_edit_first_bucket(const struct xs_pool_edit *e, struct xs_target *t, __u32 id);
/*
 * A desired drain state and weight for existing target @id: drain empties
 * its buckets, undrain refills them, a weight change adds or takes buckets.
 * @cur is its descriptor, changed to match.
 */
int xs_edit_existing(struct xs_pool_edit *e, struct xs_target *cur, __u32 id, bool drain,
		     __u16 weight);

#endif /* XS_POOL_EDIT_H */
