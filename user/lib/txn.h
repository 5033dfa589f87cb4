/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Transactions: a set of pool and service changes that the data plane sees
 * in one step. xs_pools and xs_service_by_id hold two generations of every
 * pool id; xs_self.pool_base says which one packets read. A transaction
 * writes the inactive generation, flips pool_base with one store, and waits
 * out programs still reading the old one. Until the flip nothing is visible;
 * after the commit returns no packet uses the old generation.
 */
#ifndef XS_TXN_H
#define XS_TXN_H

#include "pool.h"

struct xs_txn;

/* NULL (with a message) when out of memory or the state cannot be read. */
struct xs_txn *xs_txn_begin(const struct xs_handle *h);
/* Stage pool @id as @p (p->hdr.digest is set). Builds the pool's map now. */
int xs_txn_pool(struct xs_txn *t, __u32 id, struct xs_pool *p);
/* Stage service @key as @svc (added or changed; its pool must exist or be staged). */
int xs_txn_service(struct xs_txn *t, const struct xs_service_key *key,
		   const struct xs_service *svc);
/* Stage the removal of service @key, id @id, and its pool. */
int xs_txn_service_del(struct xs_txn *t, const struct xs_service_key *key, __u32 id);
/*
 * Make everything staged visible at once; frees @t either way. 0 once the
 * flip is done (even if waiting out old readers failed: that is printed),
 * -errno when nothing became visible.
 */
int xs_txn_commit(struct xs_txn *t);
/* Drop everything staged; frees @t. Nothing was visible. */
void xs_txn_abort(struct xs_txn *t);
/* Publish @p as pool @pool_id on its own: a transaction of one pool (for tests and tools). */
int xs_pool_publish(const struct xs_handle *h, __u32 pool_id, struct xs_pool *p);

#endif /* XS_TXN_H */
