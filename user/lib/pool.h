/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Pools as userspace edits them: a header and one target id per bucket
 * (XS_NO_TARGET for a hole), read from the live generation of xs_pools and
 * built into the frozen inner maps a transaction swaps in (txn.h). The
 * primitives below are the rules of where a target goes and what its
 * removal leaves; pool_edit.h makes the same edits in bulk.
 */
#ifndef XS_POOL_H
#define XS_POOL_H

#include <stdbool.h>
#include "handle.h"
#include "xdpsteer.h"

struct xs_pool {
	struct xs_pool_hdr hdr;
	__u32 *bucket;
};

/* The active generation's first slot in xs_pools and xs_service_by_id. */
int xs_pool_base(const struct xs_handle *h, __u32 *base);
/* Pool @pool_id of the live generation; -ENOENT (printed) when it has none. */
int xs_pool_read(const struct xs_handle *h, __u32 pool_id, struct xs_pool *p);
/*
 * The same from slot @slot of outer map @outer_fd (named @outer in errors),
 * its header from slot @slot of @hdrs_fd.
 */
int xs_pool_read_slot(const struct xs_handle *h, int outer_fd, int hdrs_fd, const char *outer,
		      __u32 slot, __u32 pool_id, struct xs_pool *p);
/* Is pool id @id live? (Yes on a read error: an id given out twice is worse.) */
bool xs_pool_in_use(const struct xs_handle *h, __u32 id);
/* The inner map id in xs_pools @slot, 0 for an empty slot. */
__u32 xs_pool_slot_map(const struct xs_handle *h, __u32 slot);
/* Both generations of xs_service_by_id or xs_pool_hdrs (@name, @fd) into @all; -errno printed. */
int xs_pool_read_halves(const struct xs_handle *h, int fd, const char *name, void *all);
/* A new frozen inner map holding @p: its fd (the caller closes it) or -errno. */
int xs_pool_build(const struct xs_handle *h, __u32 pool_id, const struct xs_pool *p);
void xs_pool_free(struct xs_pool *p);
int xs_pool_copy(struct xs_pool *dst, const struct xs_pool *src);
/* The pool's fingerprint (hdr.digest): equal pools, equal digests, on any host. */
__u32 xs_pool_digest(const struct xs_pool *p);
/* A fingerprint of a seed, for comparing hosts without showing it. */
__u32 xs_seed_digest(const __u64 seed[2]);
/* Same header (digest aside) and buckets? */
bool xs_pool_same(const struct xs_pool *a, const struct xs_pool *b);

int xs_pool_find(const struct xs_pool *p, __u32 target);
__u32 xs_pool_live(const struct xs_pool *p);
__u32 xs_pool_pick_bucket(const struct xs_pool *p, const struct xs_target *old);
void xs_pool_remove(struct xs_pool *p, __u32 slot);
int xs_pool_drain(struct xs_pool *p, const struct xs_target *t, __u32 id, bool drain);
/* Would a pool of @n buckets with header @hdr be legal? Prints why not, naming @what. */
int xs_pool_check_size(const char *what, const struct xs_pool_hdr *hdr, __u32 n);

#endif /* XS_POOL_H */
