/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A hash index from a fixed-size key to a __u32 (open addressing, linear
 * probing, doubled when half full). apply and the configuration parser look
 * up backends by (service, address) with it: one lookup per backend instead
 * of a walk over every target, which made both grow as N^2.
 *
 * Keys are compared as bytes: zero a key struct before filling it, so that
 * padding never makes two equal keys differ.
 */
#ifndef XS_INDEX_H
#define XS_INDEX_H

#include <linux/types.h>

#define XS_INDEX_NONE 0xffffffffu

struct xs_index {
	unsigned char *keys;	/* cap keys of key_size bytes */
	__u32 *vals;		/* value + 1 per slot; 0: empty slot */
	__u32 key_size, cap, count;
};

/* An empty index of @key_size-byte keys. 0 or -ENOMEM. */
int xs_index_init(struct xs_index *ix, __u32 key_size);
void xs_index_free(struct xs_index *ix);
/* The value of @key, or XS_INDEX_NONE. */
__u32 xs_index_get(const struct xs_index *ix, const void *key);
/* Add @key with @val, or replace its value. 0, -ENOMEM, or -EINVAL for XS_INDEX_NONE. */
int xs_index_set(struct xs_index *ix, const void *key, __u32 val);

/*
 * Items grouped by a small key (a counting sort), each group in the items'
 * order: group g is item[start[g]] .. item[start[g + 1] - 1].
 */
struct xs_groups {
	__u32 *start, *item;
	__u32 n_groups;
};

/* Group items 0..n-1 by key[item] (XS_NO_TARGET, or n_groups and above: in no group). */
int xs_groups_build(struct xs_groups *g, __u32 n_groups, const __u32 *key, __u32 n);
void xs_groups_free(struct xs_groups *g);
/* Items of group @k: *first, and the count. */
__u32 xs_group(const struct xs_groups *g, __u32 k, const __u32 **first);

#endif /* XS_INDEX_H */
