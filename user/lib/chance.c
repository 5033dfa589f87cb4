// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Second chance: the pool before a change, kept for its window (chance.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "chance.h"
#include "clock.h"
#include "log.h"

#define XS_NS_PER_S 1000000000ULL

/* Remove every xs_prev_targets entry of @pool_id. */
static void xs_chance_forget_targets(const struct xs_handle *h, __u32 pool_id)
{
	struct xs_prev_target_key k, next, *prev = NULL;
	struct xs_prev_target_key *doomed = calloc(2 * XS_MAX_BACKENDS, sizeof(*doomed));
	__u32 n = 0, i;

	if (!doomed)
		return;
	while (n < 2 * XS_MAX_BACKENDS && !bpf_map_get_next_key(h->prev_targets_fd, prev, &next)) {
		if (next.pool == pool_id)
			doomed[n++] = next;
		k = next;
		prev = &k;
	}
	for (i = 0; i < n; i++)
		bpf_map_delete_elem(h->prev_targets_fd, &doomed[i]);
	free(doomed);
}

/* Keep the live pool @pool_id, and the backends @live names as @all says, in the maps. */
static int xs_chance_snapshot(const struct xs_handle *h, __u32 pool_id,
			      const struct xs_pool *live, const struct xs_target *all)
{
	struct xs_prev_target_key k = { .pool = pool_id };
	__u32 base, slot, map_id, i;
	int fd, err;

	err = xs_pool_base(h, &base);
	if (err)
		return err;
	slot = base + pool_id;
	if (bpf_map_lookup_elem(h->pools_fd, &slot, &map_id)) {
		err = -errno;
		pr_warn("%s: second chance: cannot read pool %u from xs_pools: %s\n", h->ifname,
			pool_id, strerror(-err));
		return err;
	}
	fd = bpf_map_get_fd_by_id(map_id);
	if (fd < 0 || bpf_map_update_elem(h->prev_pools_fd, &pool_id, &fd, BPF_ANY)) {
		err = -errno;
		pr_warn("%s: second chance: cannot keep pool %u in xs_prev_pools: %s\n",
			h->ifname, pool_id, strerror(-err));
		if (fd >= 0)
			close(fd);
		return err;
	}
	close(fd);
	/* Its header beside it: the buckets alone cannot be read without it. */
	if (bpf_map_update_elem(h->prev_hdrs_fd, &pool_id, &live->hdr, BPF_ANY)) {
		err = -errno;
		pr_warn("%s: second chance: cannot keep pool %u's header in xs_prev_hdrs: %s\n",
			h->ifname, pool_id, strerror(-err));
		return err;
	}
	xs_chance_forget_targets(h, pool_id);
	for (i = 0; i < live->hdr.n_buckets; i++) {
		k.target = live->bucket[i];
		if (k.target >= XS_MAX_TARGETS || all[k.target].kind != XS_TARGET_BACKEND)
			continue;
		if (bpf_map_update_elem(h->prev_targets_fd, &k, &all[k.target], BPF_ANY)) {
			err = -errno;
			pr_warn("%s: second chance: cannot keep backend %u of pool %u in "
				"xs_prev_targets: %s%s\n", h->ifname, k.target, pool_id,
				strerror(-err), err == -E2BIG ? " (the map is full)" : "");
			return err;
		}
	}
	return 0;
}

int xs_chance_keep(const struct xs_handle *h, __u32 pool_id, const struct xs_pool *live,
		   const struct xs_target *all, __u32 window_s)
{
	struct xs_prev_gen gen = { 0 };
	__u64 now = xs_mono_ns();
	int err;

	bpf_map_lookup_elem(h->prev_gens_fd, &pool_id, &gen);
	/* The live pool is a step of a burst of changes: keep the one from before it. */
	if (gen.until_ns <= now || now - gen.changed_ns >= XS_CHANCE_BURST_S * XS_NS_PER_S) {
		/* Closed first: nothing reads the kept pool while it is replaced. */
		gen.until_ns = 0;
		if (bpf_map_update_elem(h->prev_gens_fd, &pool_id, &gen, BPF_ANY))
			return -errno;
		err = xs_chance_snapshot(h, pool_id, live, all);
		if (err)
			return err;
	}
	gen.changed_ns = now;
	gen.until_ns = now + (__u64)window_s * XS_NS_PER_S;
	if (bpf_map_update_elem(h->prev_gens_fd, &pool_id, &gen, BPF_ANY)) {
		err = -errno;
		pr_warn("%s: second chance: cannot open the window of pool %u: %s\n", h->ifname,
			pool_id, strerror(-err));
		return err;
	}
	return 0;
}

void xs_chance_drop(const struct xs_handle *h, __u32 pool_id)
{
	struct xs_prev_gen gen = { 0 };

	if (bpf_map_lookup_elem(h->prev_gens_fd, &pool_id, &gen) || !gen.until_ns)
		return;
	memset(&gen, 0, sizeof(gen));
	bpf_map_update_elem(h->prev_gens_fd, &pool_id, &gen, BPF_ANY);
	bpf_map_delete_elem(h->prev_pools_fd, &pool_id);
	xs_chance_forget_targets(h, pool_id);
}

int xs_chance_read(const struct xs_handle *h, __u32 pool_id, struct xs_chance_view *view)
{
	struct xs_prev_gen gen = { 0 };
	__u64 now = xs_mono_ns();

	memset(view, 0, sizeof(*view));
	if (bpf_map_lookup_elem(h->prev_gens_fd, &pool_id, &gen) || gen.until_ns <= now)
		return 0;
	view->open = true;
	view->seconds_left = (gen.until_ns - now + XS_NS_PER_S - 1) / XS_NS_PER_S;
	return xs_pool_read_slot(h, h->prev_pools_fd, h->prev_hdrs_fd, "xs_prev_pools", pool_id,
				 pool_id, &view->pool);
}

int xs_chance_target(const struct xs_handle *h, __u32 pool_id, __u32 id, struct xs_target *t)
{
	struct xs_prev_target_key k = { .pool = pool_id, .target = id };

	return bpf_map_lookup_elem(h->prev_targets_fd, &k, t) ? -ENOENT : 0;
}
