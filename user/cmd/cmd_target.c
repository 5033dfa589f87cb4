// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* target add / del / list: queue targets (cpumap CPUs, devmap interfaces). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <bpf/bpf.h>
#include "cli.h"
#include "commands.h"
#include "log.h"
#include "state.h"
#include "target.h"
#include "xs_shuffle.h"

/*
 * Parse "cpu N", "dev IFNAME" or "id N" from a->pos[1..2] into a target id and
 * descriptor. For add, @all is consulted for duplicates and a free dev slot.
 */
static int xs_parse_target(const struct xs_handle *h, const struct xs_args *a,
			   const struct xs_target *all, bool add, __u32 *id, struct xs_target *t)
{
	const char *kind = a->pos[1], *val = a->pos[2];
	__u32 i, v;
	int ifindex;

	memset(t, 0, sizeof(*t));
	if (!strcmp(kind, "cpu")) {
		if (xs_parse_u32(val, "cpu", 0, XS_MAX_CPUS - 1, &v))
			return -EINVAL;
		if (add && ((int)v >= h->nr_cpus || !xs_cpu_online(v))) {
			pr_warn("cpu %u does not exist or is offline on this host (online CPUs are "
				"listed in /sys/devices/system/cpu/online)\n", v);
			return -EINVAL;
		}
		t->kind = XS_TARGET_CPU;
		t->cpu = v;
		*id = v;
	} else if (!strcmp(kind, "dev")) {
		ifindex = xs_ifindex(val);
		if (ifindex < 0)
			return ifindex;
		t->kind = XS_TARGET_DEV;
		t->ifindex = (__u32)ifindex;
		*id = XS_NO_TARGET;
		for (i = XS_DEV_BASE; i < XS_MAX_TARGETS; i++) {
			if ((all[i].flags & XS_TARGET_F_ACTIVE) && all[i].ifindex == t->ifindex) {
				*id = i;
				break;
			}
		}
		if (add && *id == XS_NO_TARGET) {
			/* The id this interface had before, so its old bucket comes back;
			 * else a never-used id; else any free one. */
			for (i = XS_DEV_BASE; i < XS_MAX_TARGETS && *id == XS_NO_TARGET; i++)
				if (!(all[i].flags & XS_TARGET_F_ACTIVE) &&
				    all[i].kind == XS_TARGET_DEV && all[i].ifindex == t->ifindex)
					*id = i;
			for (i = XS_DEV_BASE; i < XS_MAX_TARGETS && *id == XS_NO_TARGET; i++)
				if (!all[i].kind)
					*id = i;
			for (i = XS_DEV_BASE; i < XS_MAX_TARGETS && *id == XS_NO_TARGET; i++)
				if (!(all[i].flags & XS_TARGET_F_ACTIVE))
					*id = i;
			if (*id == XS_NO_TARGET) {
				pr_warn("%s: all %u dev targets are in use; remove one first\n",
					h->ifname, XS_MAX_DEVS);
				return -ENOSPC;
			}
			return 0;
		}
	} else if (!strcmp(kind, "id") && !add) {
		if (xs_parse_u32(val, "target id", 0, XS_MAX_TARGETS - 1, id))
			return -EINVAL;
		*t = all[*id];
	} else {
		pr_warn("target: '%s' is not cpu or dev%s\n", kind, add ? "" : " or id");
		return -EINVAL;
	}
	if (*id == XS_NO_TARGET)
		return 0;
	if (add && (all[*id].flags & XS_TARGET_F_ACTIVE)) {
		pr_warn("%s %s is already a target of %s\n", kind, val, h->ifname);
		return -EEXIST;
	}
	return 0;
}

int xs_cmd_target_add(const struct xs_args *a)
{
	struct xs_target *all = NULL, t;
	struct xs_pool pool = { 0 };
	struct xs_handle h;
	__u32 id, slot, *grown;
	const char *v;
	char name[64];
	int err;

	err = xs_open(a->pos[0], &h);
	if (err)
		return err;
	err = -ENOMEM;
	all = calloc(XS_MAX_TARGETS, sizeof(*all));
	if (!all)
		goto out;
	err = xs_targets_read(&h, all);
	err = err ?: xs_pool_read(&h, XS_POOL_QUEUES, &pool);
	err = err ?: xs_parse_target(&h, a, all, true, &id, &t);
	if (err)
		goto out;
	if ((v = xs_arg(a, "qsize"))) {
		if (t.kind != XS_TARGET_CPU) {
			pr_warn("--qsize applies to cpu targets only\n");
			err = -EINVAL;
			goto out;
		}
		if (xs_parse_u32(v, "--qsize", 1, XS_MAX_QSIZE, &t.qsize)) {
			err = -EINVAL;
			goto out;
		}
	} else if (t.kind == XS_TARGET_CPU) {
		t.qsize = XS_DEFAULT_QSIZE;
	}
	t.bucket = all[id].bucket;
	slot = xs_pool_pick_bucket(&pool, &all[id]);
	if (slot == pool.hdr.n_buckets) {
		err = xs_pool_check_size(&h, &pool.hdr, pool.hdr.n_buckets + 1);
		if (err)
			goto out;
		grown = realloc(pool.bucket, ((size_t)pool.hdr.n_buckets + 1) * sizeof(*grown));
		if (!grown) {
			err = -ENOMEM;
			goto out;
		}
		pool.bucket = grown;
		pool.hdr.n_buckets++;
	}
	t.uid = xs_new_uid();
	t.flags = XS_TARGET_F_ACTIVE;
	t.bucket = slot;

	/* Deliverable first, then visible: the redirect entry exists before any
	 * packet can choose the new bucket. */
	err = xs_redirect_set(&h, id, &t);
	if (err)
		goto out;
	err = xs_stats_reset(&h, id) ?: xs_target_write(&h, id, &t);
	if (!err) {
		/* Filling a hole or appending moves only the flows the new target
		 * takes: 1/(live buckets) of them. */
		pool.bucket[slot] = id;
		err = xs_pool_publish(&h, XS_POOL_QUEUES, &pool);
	}
	if (err) {
		struct xs_target none = all[id];

		xs_target_write(&h, id, &none);
		xs_redirect_clear(&h, id, &t);
		goto out;
	}
	xs_target_name(&h, &t, id, name, sizeof(name));
	printf("%s: added %s in slot %u (%u live of %u slots)\n", h.ifname, name, slot,
	       xs_pool_live(&pool), pool.hdr.n_buckets);
out:
	xs_release(&h, &all, &pool);
	return err;
}

/*
 * Open the attachment, read its targets and queue pool, and find the target
 * that a->pos[1..2] names, which must exist. On success the caller owns
 * *h, *all and *pool.
 */
static int xs_target_existing(const struct xs_args *a, struct xs_handle *h,
			      struct xs_target **all, struct xs_pool *pool, __u32 *id)
{
	struct xs_target t;
	int err;

	err = xs_open(a->pos[0], h);
	if (err)
		return err;
	err = -ENOMEM;
	*all = calloc(XS_MAX_TARGETS, sizeof(**all));
	if (!*all)
		goto fail;
	err = xs_targets_read(h, *all);
	err = err ?: xs_pool_read(h, XS_POOL_QUEUES, pool);
	err = err ?: xs_parse_target(h, a, *all, false, id, &t);
	if (err)
		goto fail;
	if (*id == XS_NO_TARGET || !((*all)[*id].flags & XS_TARGET_F_ACTIVE)) {
		pr_warn("%s %s is not a target of %s (xdpsteer target list %s shows them)\n",
			a->pos[1], a->pos[2], h->ifname, h->ifname);
		err = -ENOENT;
		goto fail;
	}
	return 0;
fail:
	xs_release(h, all, pool);
	return err;
}

int xs_cmd_target_del(const struct xs_args *a)
{
	struct xs_target *all = NULL, t, none = { 0 };
	struct xs_pool pool = { 0 };
	struct xs_handle h;
	char name[64];
	__u32 id;
	int err, slot;

	err = xs_target_existing(a, &h, &all, &pool, &id);
	if (err)
		return err;
	t = all[id];
	slot = xs_pool_find(&pool, id);
	if (slot >= 0) {
		/* A hole, not a renumbering: only this target's flows move. */
		xs_pool_remove(&pool, (__u32)slot);
		err = xs_pool_publish(&h, XS_POOL_QUEUES, &pool);
		if (err)
			goto out;
	}
	/* The pool no longer names it and no program still runs with the old one:
	 * now the target itself can go. Pinned flows see the cleared uid and
	 * re-pin. The bucket is remembered so that re-adding refills it. */
	none.kind = t.kind;
	none.ifindex = t.ifindex;
	none.bucket = t.bucket;
	err = xs_target_write(&h, id, &none);
	xs_redirect_clear(&h, id, &t);
	xs_target_name(&h, &t, id, name, sizeof(name));
	if (!err)
		printf("%s: removed %s (%u live of %u slots)\n", h.ifname, name,
		       xs_pool_live(&pool), pool.hdr.n_buckets);
out:
	xs_release(&h, &all, &pool);
	return err;
}

int xs_cmd_target_list(const struct xs_args *a)
{
	bool json = xs_flag(a, "json");
	struct xs_pool pool = { 0 };
	struct xs_target *all = NULL;
	struct xs_handle h;
	char name[64];
	__u32 i, n;
	int err;

	err = xs_open(a->pos[0], &h);
	if (err)
		return err;
	err = -ENOMEM;
	all = calloc(XS_MAX_TARGETS, sizeof(*all));
	if (!all)
		goto out;
	err = xs_targets_read(&h, all);
	err = err ?: xs_pool_read(&h, XS_POOL_QUEUES, &pool);
	if (err)
		goto out;
	if (json)
		printf("[");
	else
		printf("%-5s %-6s %-20s %-7s %s\n", "slot", "id", "target", "qsize", "uid");
	for (i = 0, n = 0; i < pool.hdr.n_buckets; i++) {
		__u32 id = pool.bucket[i];
		const struct xs_target *t = &all[id < XS_MAX_TARGETS ? id : 0];
		char ifn[IF_NAMESIZE];

		if (id == XS_NO_TARGET)
			continue; /* a hole left by a removal */
		if (json) {
			printf("%s{\"slot\": %u, \"id\": %u, ", n++ ? ", " : "", i, id);
			if (t->kind == XS_TARGET_CPU)
				printf("\"cpu\": %u, \"qsize\": %u", t->cpu, t->qsize);
			else
				printf("\"dev\": \"%s\", \"ifindex\": %u",
				       if_indextoname(t->ifindex, ifn) ? ifn : "", t->ifindex);
			printf(", \"uid\": %u}", t->uid);
			continue;
		}
		xs_target_name(&h, t, id, name, sizeof(name));
		if (t->kind == XS_TARGET_CPU)
			printf("%-5u %-6u %-20s %-7u %u\n", i, id, name, t->qsize, t->uid);
		else
			printf("%-5u %-6u %-20s %-7s %u\n", i, id, name, "-", t->uid);
	}
	if (json)
		printf("]\n");
	else if (!xs_pool_live(&pool))
		printf("(no targets: packets pass to the stack, counted as no_targets)\n");
out:
	xs_release(&h, &all, &pool);
	return err;
}

/* target drain / undrain: no new flows for the target; its pinned flows stay. */
static int xs_target_drain(const struct xs_args *a, bool drain)
{
	struct xs_target *all = NULL, t;
	struct xs_pool pool = { 0 };
	struct xs_handle h;
	char name[64];
	__u32 id;
	int err;

	err = xs_target_existing(a, &h, &all, &pool, &id);
	if (err)
		return err;
	t = all[id];
	xs_target_name(&h, &t, id, name, sizeof(name));
	err = xs_drain_apply(&h, XS_POOL_QUEUES, &pool, &t, id, drain, name);
	xs_release(&h, &all, &pool);
	return err;
}

int xs_cmd_target_drain(const struct xs_args *a)
{
	return xs_target_drain(a, true);
}

int xs_cmd_target_undrain(const struct xs_args *a)
{
	return xs_target_drain(a, false);
}
