// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Each target's buckets are a chain through link[] (unordered: a change
 * sorts the one chain it touches). Holes are a two-level bitmap: the lowest
 * hole, which xs_pool_pick_bucket scans the whole pool for, is two
 * count-trailing-zeros away after a scan of one word per 4096 buckets.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "pool_edit.h"

#define XS_WORD_BITS 64

static __u32 xs_words(__u32 bits)
{
	return (bits + XS_WORD_BITS - 1) / XS_WORD_BITS;
}

int xs_edit_init(struct xs_pool_edit *e)
{
	memset(e, 0, sizeof(*e));
	e->head = malloc(XS_MAX_TARGETS * sizeof(*e->head));
	if (!e->head)
		return -ENOMEM;
	memset(e->head, 0xff, XS_MAX_TARGETS * sizeof(*e->head)); /* XS_NO_TARGET */
	return 0;
}

static void xs_edit_drop_arrays(struct xs_pool_edit *e)
{
	free(e->link);
	free(e->scratch);
	free(e->hole_bits);
	free(e->hole_words);
	e->link = e->scratch = NULL;
	e->hole_bits = e->hole_words = NULL;
	e->cap = 0;
	e->p = NULL;
}

void xs_edit_free(struct xs_pool_edit *e)
{
	xs_edit_drop_arrays(e);
	free(e->head);
	e->head = NULL;
}

/* Grow @*arr from @old to @new elements of @size bytes, the new ones zeroed. */
static int xs_grow_zeroed(void *arr, size_t size, __u32 old, __u32 new)
{
	void **a = arr, *grown = realloc(*a, (size_t)new * size);

	if (!grown)
		return -ENOMEM;
	memset((char *)grown + (size_t)old * size, 0, (size_t)(new - old) * size);
	*a = grown;
	return 0;
}

/* Room for @need buckets, doubling so that a run of additions reallocates rarely. */
static int xs_edit_room(struct xs_pool_edit *e, __u32 need)
{
	__u32 cap = e->cap, want = cap * 2 > need ? cap * 2 : need;
	__u32 *bucket;

	if (need <= cap)
		return 0;
	bucket = realloc(e->p->bucket, (size_t)want * sizeof(*bucket));
	if (!bucket)
		return -ENOMEM;
	e->p->bucket = bucket;
	if (xs_grow_zeroed(&e->link, sizeof(*e->link), cap, want) ||
	    xs_grow_zeroed(&e->scratch, sizeof(*e->scratch), cap, want) ||
	    xs_grow_zeroed(&e->hole_bits, sizeof(*e->hole_bits), xs_words(cap), xs_words(want)) ||
	    xs_grow_zeroed(&e->hole_words, sizeof(*e->hole_words), xs_words(xs_words(cap)),
			   xs_words(xs_words(want))))
		return -ENOMEM;
	e->cap = want;
	return 0;
}

static void xs_hole_set(struct xs_pool_edit *e, __u32 b)
{
	e->hole_bits[b / XS_WORD_BITS] |= 1ULL << (b % XS_WORD_BITS);
	e->hole_words[b / XS_WORD_BITS / XS_WORD_BITS] |= 1ULL << (b / XS_WORD_BITS % XS_WORD_BITS);
	e->holes++;
}

static void xs_hole_clear(struct xs_pool_edit *e, __u32 b)
{
	__u32 w = b / XS_WORD_BITS;

	e->hole_bits[w] &= ~(1ULL << (b % XS_WORD_BITS));
	if (!e->hole_bits[w])
		e->hole_words[w / XS_WORD_BITS] &= ~(1ULL << (w % XS_WORD_BITS));
	e->holes--;
}

/* The lowest hole, or XS_NO_TARGET. Holes are kept below n_buckets only. */
static __u32 xs_hole_lowest(const struct xs_pool_edit *e)
{
	__u32 i, w, n = xs_words(xs_words(e->cap));

	for (i = 0; i < n; i++) {
		if (!e->hole_words[i])
			continue;
		w = i * XS_WORD_BITS + (__u32)__builtin_ctzll(e->hole_words[i]);
		return w * XS_WORD_BITS + (__u32)__builtin_ctzll(e->hole_bits[w]);
	}
	return XS_NO_TARGET;
}

/* Chain bucket @b into its target's buckets (targets beyond the id space are never edited). */
static void xs_edit_link(struct xs_pool_edit *e, __u32 b, __u32 id)
{
	if (id >= XS_MAX_TARGETS)
		return;
	e->link[b] = e->head[id];
	e->head[id] = b;
}

int xs_edit_begin(struct xs_pool_edit *e, struct xs_pool *p)
{
	__u32 b, n = p->hdr.n_buckets;

	e->p = p;
	e->cap = 0;
	e->holes = 0;
	if (xs_edit_room(e, n + 1))
		return -ENOMEM;
	for (b = n; b-- > 0;) {
		if (p->bucket[b] == XS_NO_TARGET)
			xs_hole_set(e, b);
		else
			xs_edit_link(e, b, p->bucket[b]);
	}
	return 0;
}

void xs_edit_end(struct xs_pool_edit *e)
{
	__u32 b;

	/* Every chain left is of a target in the pool: resetting those resets all. */
	for (b = 0; e->p && b < e->p->hdr.n_buckets; b++)
		if (e->p->bucket[b] < XS_MAX_TARGETS)
			e->head[e->p->bucket[b]] = XS_NO_TARGET;
	xs_edit_drop_arrays(e);
}

__u32 xs_edit_first(const struct xs_pool_edit *e, __u32 id)
{
	__u32 b, low = XS_NO_TARGET;

	if (id >= XS_MAX_TARGETS)
		return XS_NO_TARGET;
	for (b = e->head[id]; b != XS_NO_TARGET; b = e->link[b])
		if (b < low)
			low = b;
	return low;
}

/* xs_pool_pick_bucket: the bucket @old held if it is a hole, else the lowest hole, else a new one. */
static __u32 xs_edit_pick(const struct xs_pool_edit *e, const struct xs_target *old)
{
	const struct xs_pool *p = e->p;
	__u32 low;

	if (old->kind && old->bucket < p->hdr.n_buckets && p->bucket[old->bucket] == XS_NO_TARGET)
		return old->bucket;
	low = xs_hole_lowest(e);
	return low != XS_NO_TARGET ? low : p->hdr.n_buckets;
}

/* Give bucket @b (a hole, or n_buckets: a new one) to @id. Room is the caller's. */
static void xs_edit_fill(struct xs_pool_edit *e, __u32 b, __u32 id)
{
	if (b == e->p->hdr.n_buckets)
		e->p->hdr.n_buckets++;
	else
		xs_hole_clear(e, b);
	e->p->bucket[b] = id;
	xs_edit_link(e, b, id);
}

/* xs_pool_remove: bucket @b (already out of its chain) becomes a hole; a last one
 * with no other hole is dropped instead. */
static void xs_edit_remove(struct xs_pool_edit *e, __u32 b)
{
	struct xs_pool *p = e->p;

	p->bucket[b] = XS_NO_TARGET;
	xs_hole_set(e, b);
	if (b + 1 == p->hdr.n_buckets && e->holes == 1) {
		xs_hole_clear(e, b);
		p->hdr.n_buckets--;
	}
}

int xs_edit_grow(struct xs_pool_edit *e, const struct xs_target *old, __u32 id, __u32 n)
{
	if (xs_edit_room(e, e->p->hdr.n_buckets + n + 1))
		return -ENOMEM;
	while (n--)
		xs_edit_fill(e, xs_edit_pick(e, old), id);
	return 0;
}

/* Move @id's chain into scratch, leaving it empty; returns its length. */
static __u32 xs_edit_unchain(struct xs_pool_edit *e, __u32 id)
{
	__u32 b, k = 0;

	if (id >= XS_MAX_TARGETS)
		return 0;
	for (b = e->head[id]; b != XS_NO_TARGET; b = e->link[b])
		e->scratch[k++] = b;
	e->head[id] = XS_NO_TARGET;
	return k;
}

static int xs_cmp_desc(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return (x < y) - (x > y);
}

void xs_edit_shrink(struct xs_pool_edit *e, __u32 id, __u32 n)
{
	__u32 i, k = xs_edit_unchain(e, id);

	qsort(e->scratch, k, sizeof(*e->scratch), xs_cmp_desc);
	for (i = 0; i < k; i++) {
		if (i < n)
			xs_edit_remove(e, e->scratch[i]);
		else
			xs_edit_link(e, e->scratch[i], id);
	}
}

int xs_edit_drain(struct xs_pool_edit *e, const struct xs_target *t, __u32 id, bool drain)
{
	__u32 i, k, want = t->weight ? t->weight : 1;

	if (drain) {
		/* Holes only, never a shrink: undraining must find the same buckets. */
		k = xs_edit_unchain(e, id);
		for (i = 0; i < k; i++) {
			e->p->bucket[e->scratch[i]] = XS_NO_TARGET;
			xs_hole_set(e, e->scratch[i]);
		}
		return (int)k;
	}
	if (xs_edit_grow(e, t, id, want))
		return -ENOMEM;
	return (int)want;
}

void xs_edit_first_bucket(const struct xs_pool_edit *e, struct xs_target *t, __u32 id)
{
	__u32 b = xs_edit_first(e, id);

	if (b != XS_NO_TARGET)
		t->bucket = b;
}

/*
 * Drain empties the buckets of existing target @id, undrain refills them, a
 * weight change adds or takes buckets. @cur is its descriptor, changed to
 * match.
 */
int xs_edit_existing(struct xs_pool_edit *e, struct xs_target *cur, __u32 id, bool drain,
			    __u16 weight)
{
	bool was = cur->drain;
	__u32 wo = cur->weight ? cur->weight : 1, wn = weight ? weight : 1;
	int err = 0;

	if (drain && !was) {
		xs_edit_drain(e, cur, id, true);
		cur->drain = true;
	} else if (!drain && was) {
		cur->weight = weight;
		err = xs_edit_drain(e, cur, id, false);
		cur->drain = false;
		xs_edit_first_bucket(e, cur, id);
		return err < 0 ? err : 0;
	}
	cur->weight = weight;
	if (!drain && wn > wo)
		err = xs_edit_grow(e, cur, id, wn - wo);
	else if (!drain && wn < wo)
		xs_edit_shrink(e, id, wo - wn);
	if (!drain)
		xs_edit_first_bucket(e, cur, id);
	return err;
}
