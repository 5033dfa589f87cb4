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
#include "xs_shuffle.h"

#define XS_DEFAULT_QSIZE 2048
#define XS_MAX_QSIZE 16384 /* the kernel's cpumap sanity limit */

/* Is @cpu listed in /sys/devices/system/cpu/online ("0-3,6")? */
static bool xs_cpu_online(__u32 cpu)
{
	char buf[1024], *tok, *save = NULL;
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	bool found = false;

	if (!f)
		return cpu == 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	for (tok = strtok_r(buf, ",\n", &save); tok && !found; tok = strtok_r(NULL, ",\n", &save)) {
		unsigned int lo, hi;
		/* NOLINTNEXTLINE(cert-err34-c): the kernel wrote this list, in range */
		int n = sscanf(tok, "%u-%u", &lo, &hi);

		if (n == 1)
			hi = lo;
		found = n >= 1 && cpu >= lo && cpu <= hi;
	}
	return found;
}

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

/* Would a pool of @n buckets be legal? Prints why not. */
static int xs_check_pool_size(const struct xs_handle *h, const struct xs_pool_hdr *hdr, __u32 n)
{
	__u32 hand;

	if (n > XS_MAX_BUCKETS) {
		pr_warn("%s: a pool holds at most %u slots\n", h->ifname, XS_MAX_BUCKETS);
		return -ENOSPC;
	}
	if (hdr->algo != XS_ALGO_SHUFFLE || n == 0)
		return 0;
	hand = hdr->hand_size < n ? hdr->hand_size : n;
	if (xs_hand_entropy_ok(n, hand)) {
		pr_warn("%s: hand size %u with %u targets needs more than %u bits of hash entropy "
			"(hand * log2(targets) must be <= %u): re-attach with a smaller "
			"--hand-size\n", h->ifname, hand, n, XS_ENTROPY_BITS, XS_ENTROPY_BITS);
		return -ERANGE;
	}
	return 0;
}

static int xs_redirect_set(const struct xs_handle *h, __u32 id, const struct xs_target *t)
{
	int prog_fd, err = 0;

	if (t->kind == XS_TARGET_CPU) {
		struct bpf_cpumap_val v = { .qsize = t->qsize };

		prog_fd = xs_obj_get(h, XS_PIN_PROG_CPUMAP);
		if (prog_fd < 0)
			return prog_fd;
		v.bpf_prog.fd = prog_fd;
		if (bpf_map_update_elem(h->cpumap_fd, &t->cpu, &v, BPF_ANY)) {
			err = -errno;
			pr_warn("%s: cannot add cpu %u to xs_cpumap: %s\n", h->ifname, t->cpu,
				strerror(errno));
		}
	} else {
		struct bpf_devmap_val v = { .ifindex = t->ifindex };
		__u32 slot = id - XS_DEV_BASE;

		prog_fd = xs_obj_get(h, XS_PIN_PROG_DEVMAP);
		if (prog_fd < 0)
			return prog_fd;
		v.bpf_prog.fd = prog_fd;
		if (bpf_map_update_elem(h->dev_ids_fd, &t->ifindex, &id, BPF_ANY)) {
			err = -errno;
			pr_warn("%s: cannot add ifindex %u to xs_dev_ids: %s\n", h->ifname,
				t->ifindex, strerror(errno));
		} else if (bpf_map_update_elem(h->devmap_fd, &slot, &v, BPF_ANY)) {
			err = -errno;
			pr_warn("%s: cannot add ifindex %u to xs_devmap: %s (the device must "
				"support XDP redirect)\n", h->ifname, t->ifindex, strerror(errno));
			bpf_map_delete_elem(h->dev_ids_fd, &t->ifindex);
		}
	}
	close(prog_fd);
	return err;
}

static void xs_redirect_clear(const struct xs_handle *h, __u32 id, const struct xs_target *t)
{
	__u32 key = t->kind == XS_TARGET_CPU ? t->cpu : id - XS_DEV_BASE;

	bpf_map_delete_elem(t->kind == XS_TARGET_CPU ? h->cpumap_fd : h->devmap_fd, &key);
	if (t->kind == XS_TARGET_DEV)
		bpf_map_delete_elem(h->dev_ids_fd, &t->ifindex);
}

static __u32 xs_new_uid(void)
{
	__u32 uid = 0;

	while (!uid)
		if (getrandom(&uid, sizeof(uid), 0) != sizeof(uid))
			uid = (__u32)getpid() ^ 0x5a5a5a5au;
	return uid;
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
		err = xs_check_pool_size(&h, &pool.hdr, pool.hdr.n_buckets + 1);
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
	xs_pool_free(&pool);
	free(all);
	xs_close(&h);
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

	err = xs_open(a->pos[0], &h);
	if (err)
		return err;
	err = -ENOMEM;
	all = calloc(XS_MAX_TARGETS, sizeof(*all));
	if (!all)
		goto out;
	err = xs_targets_read(&h, all);
	err = err ?: xs_pool_read(&h, XS_POOL_QUEUES, &pool);
	err = err ?: xs_parse_target(&h, a, all, false, &id, &t);
	if (err)
		goto out;
	if (id == XS_NO_TARGET || !(all[id].flags & XS_TARGET_F_ACTIVE)) {
		pr_warn("%s %s is not a target of %s (xdpsteer target list %s shows them)\n",
			a->pos[1], a->pos[2], h.ifname, h.ifname);
		err = -ENOENT;
		goto out;
	}
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
	xs_pool_free(&pool);
	free(all);
	xs_close(&h);
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
	xs_pool_free(&pool);
	free(all);
	xs_close(&h);
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
	int err, n;

	err = xs_open(a->pos[0], &h);
	if (err)
		return err;
	err = -ENOMEM;
	all = calloc(XS_MAX_TARGETS, sizeof(*all));
	if (!all)
		goto out;
	err = xs_targets_read(&h, all);
	err = err ?: xs_pool_read(&h, XS_POOL_QUEUES, &pool);
	err = err ?: xs_parse_target(&h, a, all, false, &id, &t);
	if (err)
		goto out;
	err = -ENOENT;
	if (id == XS_NO_TARGET || !(all[id].flags & XS_TARGET_F_ACTIVE)) {
		pr_warn("%s %s is not a target of %s\n", a->pos[1], a->pos[2], h.ifname);
		goto out;
	}
	t = all[id];
	xs_target_name(&h, &t, id, name, sizeof(name));
	err = -EALREADY;
	if (!!(t.flags & XS_TARGET_F_DRAIN) == drain) {
		pr_warn("%s: %s is %s draining\n", h.ifname, name, drain ? "already" : "not");
		goto out;
	}
	n = xs_pool_drain(&pool, &t, id, drain);
	err = n < 0 ? n : 0;
	if (!err && !drain)
		err = xs_check_pool_size(&h, &pool.hdr, pool.hdr.n_buckets);
	if (err)
		goto out;
	t.flags ^= XS_TARGET_F_DRAIN;
	/* Draining: out of the pool first, then flagged. Undraining: the reverse. */
	err = drain ? xs_pool_publish(&h, XS_POOL_QUEUES, &pool) ?: xs_target_write(&h, id, &t)
		    : xs_target_write(&h, id, &t) ?: xs_pool_publish(&h, XS_POOL_QUEUES, &pool);
	if (!err)
		printf("%s: %s %s: %d slot%s %s; pinned flows stay with it\n", h.ifname,
		       drain ? "draining" : "undrained", name, n, n == 1 ? "" : "s",
		       drain ? "emptied" : "refilled");
out:
	xs_pool_free(&pool);
	free(all);
	xs_close(&h);
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
