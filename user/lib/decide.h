/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The steering decision in userspace: include/xs_select.h over a pool read from the maps. */
#ifndef XS_DECIDE_H
#define XS_DECIDE_H

#include "pool.h"
#include "xs_select.h"

/* @load is indexed by target id (XS_MAX_TARGETS entries) and may be NULL (all zero). */
int xs_decide(const struct xs_pool *pool, const __u64 *load, const struct xs_flow_key *key,
	      struct xs_decision *d);
/* Current load of every target id, as the XDP program computes it. */
int xs_loads_read(const struct xs_handle *h, const struct xs_pool *pool, __u64 *load);

#endif /* XS_DECIDE_H */
