/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Second chance, the load balancer's state (xdpsteer.h, docs/design.md): the
 * pool in force before a change, kept readable for the service's window.
 */
#ifndef XS_CHANCE_USER_H
#define XS_CHANCE_USER_H

#include "handle.h"
#include "pool.h"

/*
 * Pool @pool_id is about to be replaced: keep the live one, and the backends
 * it names as @all (the targets before the change) says, for @window_s from
 * now. Less than XS_CHANCE_BURST_S after the last change, the pool kept
 * stays the one from before the burst; the window starts again either way.
 * 0 or -errno (printed).
 */
int xs_chance_keep(const struct xs_handle *h, __u32 pool_id, const struct xs_pool *live,
		   const struct xs_target *all, __u32 window_s);
/* Forget what xs_chance_keep() kept for @pool_id: the service went, or second chance is off. */
void xs_chance_drop(const struct xs_handle *h, __u32 pool_id);

/* What lookup shows: the window of @pool_id, if open, and the pool kept. */
struct xs_chance_view {
	bool open;
	__u64 seconds_left;
	struct xs_pool pool;	/* the previous generation (free with xs_pool_free) */
};
/* 0 (view->open says whether there is one) or -errno (printed). */
int xs_chance_read(const struct xs_handle *h, __u32 pool_id, struct xs_chance_view *view);
/* The backend target @id of the kept pool of @pool_id was, or -ENOENT. */
int xs_chance_target(const struct xs_handle *h, __u32 pool_id, __u32 id, struct xs_target *t);

#endif /* XS_CHANCE_USER_H */
