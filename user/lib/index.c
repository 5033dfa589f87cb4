// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "index.h"
#include "xs_hash.h"

#define XS_INDEX_MIN_CAP 64

/*
 * SipHash-1-3 of the key bytes (the flow hash's own rounds), so addresses
 * that differ in a few bits still spread over the table. The key is fixed:
 * the keys come from root's configuration file and the pinned maps, and a
 * table that collides only gets slower, never wrong.
 */
static __u64 xs_index_hash(const void *key, __u32 len)
{
	const unsigned char *b = key;
	struct xs_sip_state s;
	__u64 w, last = (__u64)len << 56;
	__u32 i;

	xs_sip_init(&s, 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL);
	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, b + i, sizeof(w));
		xs_sip_word(&s, w);
	}
	for (; i < len; i++)
		last |= (__u64)b[i] << (8 * (i & 7));
	xs_sip_word(&s, last);
	return xs_sip_final(&s);
}

/* The slot holding @key, or the empty slot where it would go. */
static __u32 xs_index_slot(const struct xs_index *ix, const void *key)
{
	__u32 mask = ix->cap - 1, i = (__u32)xs_index_hash(key, ix->key_size) & mask;

	while (ix->vals[i] && memcmp(ix->keys + (size_t)i * ix->key_size, key, ix->key_size))
		i = (i + 1) & mask;
	return i;
}

static int xs_index_alloc(struct xs_index *ix, __u32 cap)
{
	ix->keys = malloc((size_t)cap * ix->key_size);
	ix->vals = calloc(cap, sizeof(*ix->vals));
	ix->cap = cap;
	ix->count = 0;
	if (ix->keys && ix->vals)
		return 0;
	free(ix->keys);
	free(ix->vals);
	ix->keys = NULL;
	ix->vals = NULL;
	return -ENOMEM;
}

int xs_index_init(struct xs_index *ix, __u32 key_size)
{
	memset(ix, 0, sizeof(*ix));
	ix->key_size = key_size;
	return xs_index_alloc(ix, XS_INDEX_MIN_CAP);
}

void xs_index_free(struct xs_index *ix)
{
	free(ix->keys);
	free(ix->vals);
	memset(ix, 0, sizeof(*ix));
}

/* Twice the slots, every key moved to its new place. */
static int xs_index_grow(struct xs_index *ix)
{
	struct xs_index old = *ix;
	__u32 i, slot;

	if (old.cap > 0x40000000u || xs_index_alloc(ix, 2 * old.cap)) {
		*ix = old;
		return -ENOMEM;
	}
	for (i = 0; i < old.cap; i++) {
		if (!old.vals[i])
			continue;
		slot = xs_index_slot(ix, old.keys + (size_t)i * old.key_size);
		memcpy(ix->keys + (size_t)slot * ix->key_size, old.keys + (size_t)i * old.key_size,
		       ix->key_size);
		ix->vals[slot] = old.vals[i];
		ix->count++;
	}
	free(old.keys);
	free(old.vals);
	return 0;
}

__u32 xs_index_get(const struct xs_index *ix, const void *key)
{
	__u32 slot;

	if (!ix->cap)
		return XS_INDEX_NONE;
	slot = xs_index_slot(ix, key);
	return ix->vals[slot] ? ix->vals[slot] - 1 : XS_INDEX_NONE;
}

int xs_index_set(struct xs_index *ix, const void *key, __u32 val)
{
	__u32 slot;

	if (val == XS_INDEX_NONE || !ix->cap)
		return -EINVAL;
	slot = xs_index_slot(ix, key);
	if (!ix->vals[slot]) {
		/* At most half full: a probe for a missing key stays short. */
		if (2 * (ix->count + 1) > ix->cap) {
			if (xs_index_grow(ix))
				return -ENOMEM;
			slot = xs_index_slot(ix, key);
		}
		memcpy(ix->keys + (size_t)slot * ix->key_size, key, ix->key_size);
		ix->count++;
	}
	ix->vals[slot] = val + 1;
	return 0;
}

void xs_groups_free(struct xs_groups *g)
{
	free(g->start);
	free(g->item);
	memset(g, 0, sizeof(*g));
}

int xs_groups_build(struct xs_groups *g, __u32 n_groups, const __u32 *key, __u32 n)
{
	__u32 i, *fill;

	g->n_groups = n_groups;
	g->start = calloc(n_groups + 1, sizeof(*g->start));
	g->item = calloc(n ? n : 1, sizeof(*g->item));
	fill = calloc(n_groups + 1, sizeof(*fill));
	if (!g->start || !g->item || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		if (key[i] < n_groups)
			g->start[key[i] + 1]++;
	for (i = 0; i < n_groups; i++)
		g->start[i + 1] += g->start[i];
	memcpy(fill, g->start, (n_groups + 1) * sizeof(*fill));
	for (i = 0; i < n; i++)
		if (key[i] < n_groups)
			g->item[fill[key[i]]++] = i;
	free(fill);
	return 0;
}

__u32 xs_group(const struct xs_groups *g, __u32 k, const __u32 **first)
{
	*first = g->item;
	if (k >= g->n_groups)
		return 0;
	*first = g->item + g->start[k];
	return g->start[k + 1] - g->start[k];
}
