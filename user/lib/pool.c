// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Pools (pool.h): read, built into inner maps, and the rules of their buckets. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "log.h"
#include "pool.h"
#include "xs_shuffle.h"

int xs_pool_base(const struct xs_handle *h, __u32 *base)
{
	struct xs_self self;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(h->self_fd, &zero, &self)) {
		int err = -errno;

		pr_warn("%s: cannot read xs_self: %s\n", h->ifname, strerror(-err));
		return err;
	}
	*base = self.pool_base ? XS_MAX_POOLS : 0;
	return 0;
}

int xs_pool_read(const struct xs_handle *h, __u32 pool_id, struct xs_pool *p)
{
	__u32 base;
	int err;

	memset(p, 0, sizeof(*p));
	err = xs_pool_base(h, &base);
	return err ?: xs_pool_read_slot(h, h->pools_fd, h->pool_hdrs_fd, "xs_pools", base + pool_id,
					pool_id, p);
}

int xs_pool_read_slot(const struct xs_handle *h, int outer_fd, int hdrs_fd, const char *outer,
		      __u32 slot, __u32 pool_id, struct xs_pool *p)
{
	struct xs_bucket *vals = NULL;
	__u32 inner_id, n, i, *keys = NULL;
	int fd, err;

	memset(p, 0, sizeof(*p));
	if (bpf_map_lookup_elem(outer_fd, &slot, &inner_id)) {
		err = -errno;
		pr_warn("%s: cannot read pool %u from %s: %s\n", h->ifname, pool_id, outer,
			strerror(-err));
		return err;
	}
	fd = bpf_map_get_fd_by_id(inner_id);
	if (fd < 0) {
		err = -errno;
		pr_warn("%s: cannot open pool %u (map id %u): %s\n", h->ifname, pool_id, inner_id,
			strerror(-err));
		return err;
	}
	if (bpf_map_lookup_elem(hdrs_fd, &slot, &p->hdr)) {
		err = -errno;
		pr_warn("%s: cannot read pool %u's header beside %s: %s\n", h->ifname, pool_id,
			outer, strerror(-err));
		goto out;
	}
	n = p->hdr.n_buckets;
	err = -EINVAL;
	if (n > XS_MAX_BUCKETS) {
		pr_warn("%s: pool %u claims %u buckets, more than %u\n", h->ifname, pool_id, n,
			XS_MAX_BUCKETS);
		goto out;
	}
	err = -ENOMEM;
	p->bucket = calloc(n + 1, sizeof(*p->bucket));
	keys = calloc(n + 1, sizeof(*keys));
	vals = calloc(n + 1, sizeof(*vals));
	if (!p->bucket || !keys || !vals)
		goto out;
	if (n) {
		__u32 count = n, out_batch;
		LIBBPF_OPTS(bpf_map_batch_opts, bopts);

		err = bpf_map_lookup_batch(fd, NULL, &out_batch, keys, vals, &count, &bopts);
		if (err && errno != ENOENT) {
			err = -errno;
			pr_warn("%s: cannot read pool %u buckets: %s\n", h->ifname, pool_id,
				strerror(-err));
			goto out;
		}
		if (count < n) {
			err = -EIO;
			pr_warn("%s: pool %u: read %u of %u buckets\n", h->ifname, pool_id, count,
				n);
			goto out;
		}
		for (i = 0; i < n; i++)
			p->bucket[i] = vals[i].target;
	}
	err = 0;
out:
	if (err)
		xs_pool_free(p);
	free(keys);
	free(vals);
	close(fd);
	return err;
}

/*
 * Is pool id @id live? Only the live generation tells: the other one holds
 * whatever the last transaction left there. On a read error, say yes: an id
 * never given out twice matters more than one left unused.
 */
bool xs_pool_in_use(const struct xs_handle *h, __u32 id)
{
	__u32 inner, base, slot;

	if (xs_pool_base(h, &base))
		return true;
	slot = base + id;
	return !bpf_map_lookup_elem(h->pools_fd, &slot, &inner);
}

/*
 * Pools are created here, not by libbpf, so give them the object's BTF:
 * then `bpftool map dump` prints each struct xs_bucket by name.
 * Best effort: a pool without BTF works the same.
 */
static void xs_pool_btf(const struct xs_handle *h, struct bpf_map_create_opts *copts)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	struct btf *btf;
	int key, val, fd;

	if (bpf_obj_get_info_by_fd(h->targets_fd, &info, &len) || !info.btf_id)
		return;
	btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!btf)
		return;
	key = btf__find_by_name_kind(btf, "__u32", BTF_KIND_TYPEDEF);
	val = btf__find_by_name_kind(btf, "xs_bucket", BTF_KIND_STRUCT);
	btf__free(btf);
	if (key <= 0 || val <= 0)
		return;
	fd = bpf_btf_get_fd_by_id(info.btf_id);
	if (fd < 0)
		return;
	copts->btf_fd = fd;
	copts->btf_key_type_id = key;
	copts->btf_value_type_id = val;
}

/* The inner map id in xs_pools @slot, 0 for an empty slot. */
__u32 xs_pool_slot_map(const struct xs_handle *h, __u32 slot)
{
	__u32 id;

	return bpf_map_lookup_elem(h->pools_fd, &slot, &id) ? 0 : id;
}

/* Both generations of xs_service_by_id or xs_pool_hdrs (@name) in one read. */
int xs_pool_read_halves(const struct xs_handle *h, int fd, const char *name, void *all)
{
	LIBBPF_OPTS(bpf_map_batch_opts, bopts);
	__u32 count = 2 * XS_MAX_POOLS, out_batch, *keys = calloc(count, sizeof(*keys));
	int err = 0;

	if (!keys) {
		pr_warn("%s: out of memory to read %s\n", h->ifname, name);
		return -ENOMEM;
	}
	if (bpf_map_lookup_batch(fd, NULL, &out_batch, keys, all, &count, &bopts) &&
	    errno != ENOENT)
		err = -errno;
	else if (count != 2 * XS_MAX_POOLS)
		err = -EIO;
	if (err)
		pr_warn("%s: cannot read %s: %s\n", h->ifname, name, strerror(-err));
	free(keys);
	return err;
}

/*
 * A new inner map holding @p, filled and frozen: what a transaction swaps
 * into xs_pools. Returns its fd (the caller closes it) or -errno.
 */
int xs_pool_build(const struct xs_handle *h, __u32 pool_id, const struct xs_pool *p)
{
	LIBBPF_OPTS(bpf_map_create_opts, copts, .map_flags = BPF_F_INNER_MAP);
	LIBBPF_OPTS(bpf_map_batch_opts, bopts);
	struct xs_bucket *vals = NULL;
	/* An array has at least one entry: an empty pool holds one hole, never read. */
	__u32 n = p->hdr.n_buckets, count = n ? n : 1, i, *keys = NULL;
	char name[16];
	int fd, err;

	snprintf(name, sizeof(name), "xs_pool%u", pool_id);
	xs_pool_btf(h, &copts);
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, name, sizeof(__u32), sizeof(struct xs_bucket),
			    count, &copts);
	if (copts.btf_fd)
		close(copts.btf_fd);
	if (fd < 0) {
		err = -errno;
		pr_warn("%s: cannot create a map for pool %u (%u buckets): %s\n", h->ifname,
			pool_id, n, strerror(-err));
		return err;
	}
	err = -ENOMEM;
	keys = calloc(count, sizeof(*keys));
	vals = calloc(count, sizeof(*vals));
	if (!keys || !vals)
		goto out;
	for (i = 0; i < count; i++) {
		keys[i] = i;
		vals[i].target = i < n ? p->bucket[i] : XS_NO_TARGET;
	}
	if (bpf_map_update_batch(fd, keys, vals, &count, &bopts) || bpf_map_freeze(fd)) {
		err = -errno;
		pr_warn("%s: cannot fill pool %u: %s\n", h->ifname, pool_id, strerror(-err));
		goto out;
	}
	err = 0;
out:
	free(keys);
	free(vals);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

void xs_pool_free(struct xs_pool *p)
{
	free(p->bucket);
	p->bucket = NULL;
}

int xs_pool_copy(struct xs_pool *dst, const struct xs_pool *src)
{
	dst->hdr = src->hdr;
	dst->bucket = calloc(src->hdr.n_buckets + 1, sizeof(*dst->bucket));
	if (!dst->bucket)
		return -ENOMEM;
	if (src->hdr.n_buckets)
		memcpy(dst->bucket, src->bucket, src->hdr.n_buckets * sizeof(*dst->bucket));
	return 0;
}

/*
 * FNV-1a over the header (digest zeroed) and the buckets: a pool's
 * fingerprint, the same on every host that holds the same pool, so that
 * `status` can be compared across a fleet.
 */
__u32 xs_pool_digest(const struct xs_pool *p)
{
	struct xs_pool_hdr hdr = p->hdr;
	const unsigned char *b;
	__u32 h = 2166136261u;
	size_t i;

	hdr.digest = 0;
	for (b = (const unsigned char *)&hdr, i = 0; i < sizeof(hdr); i++)
		h = (h ^ b[i]) * 16777619u;
	for (b = (const unsigned char *)p->bucket, i = 0; i < p->hdr.n_buckets * sizeof(__u32); i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

/* A fingerprint of the seed: equal on hosts with the same seed, and no way back to it. */
__u32 xs_seed_digest(const __u64 seed[2])
{
	struct xs_pool p = { 0 };

	/* The pool digest of an empty pool that holds only @seed, under a fixed tag. */
	static const __u32 tag = 0x5eed;

	memcpy(p.hdr.seed, seed, sizeof(p.hdr.seed));
	/* Where the header once held flags: the same bytes, so the same digest as before. */
	memcpy((unsigned char *)&p.hdr + offsetof(struct xs_pool_hdr, own_fields), &tag,
	       sizeof(tag));
	return xs_pool_digest(&p);
}

bool xs_pool_same(const struct xs_pool *a, const struct xs_pool *b)
{
	struct xs_pool_hdr x = a->hdr, y = b->hdr;

	x.digest = y.digest = 0;
	return !memcmp(&x, &y, sizeof(x)) &&
	       (!a->hdr.n_buckets ||
		!memcmp(a->bucket, b->bucket, a->hdr.n_buckets * sizeof(*a->bucket)));
}

int xs_pool_find(const struct xs_pool *p, __u32 target)
{
	__u32 i;

	for (i = 0; i < p->hdr.n_buckets; i++)
		if (p->bucket[i] == target)
			return (int)i;
	return -1;
}

__u32 xs_pool_live(const struct xs_pool *p)
{
	__u32 i, n = 0;

	for (i = 0; i < p->hdr.n_buckets; i++)
		n += p->bucket[i] != XS_NO_TARGET;
	return n;
}

/*
 * Where a new target goes: back into the bucket it held before, if that is
 * still a hole (restoring the earlier mapping exactly), else the lowest hole,
 * else a new bucket at the end (returns n_buckets).
 */
__u32 xs_pool_pick_bucket(const struct xs_pool *p, const struct xs_target *old)
{
	__u32 i;

	if (old->kind && old->bucket < p->hdr.n_buckets && p->bucket[old->bucket] == XS_NO_TARGET)
		return old->bucket;
	for (i = 0; i < p->hdr.n_buckets; i++)
		if (p->bucket[i] == XS_NO_TARGET)
			return i;
	return p->hdr.n_buckets;
}

/*
 * Drain: empty every bucket of target @id (holes, never a shrink, so that
 * undraining restores the mapping exactly). Undrain: fill the bucket it held
 * first, then as many holes (or new buckets) as its weight. Returns the
 * number of buckets changed, or -ENOMEM.
 */
int xs_pool_drain(struct xs_pool *p, const struct xs_target *t, __u32 id, bool drain)
{
	__u32 b, want = t->weight ? t->weight : 1, changed = 0, *grown;

	if (drain) {
		for (b = 0; b < p->hdr.n_buckets; b++) {
			if (p->bucket[b] == id) {
				p->bucket[b] = XS_NO_TARGET;
				changed++;
			}
		}
		return (int)changed;
	}
	grown = realloc(p->bucket, (p->hdr.n_buckets + want) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	p->bucket = grown;
	while (changed < want) {
		b = xs_pool_pick_bucket(p, t);
		if (b == p->hdr.n_buckets)
			p->hdr.n_buckets++;
		p->bucket[b] = id;
		changed++;
	}
	return (int)changed;
}

/*
 * Empty bucket @slot. The last bucket of a pool without holes is dropped
 * instead, which is plain jump over one bucket fewer: the same keys move.
 * Shrinking past an older hole would re-route the keys displaced from it,
 * so any other removal leaves a hole.
 */
void xs_pool_remove(struct xs_pool *p, __u32 slot)
{
	p->bucket[slot] = XS_NO_TARGET;
	if (slot + 1 == p->hdr.n_buckets && xs_pool_live(p) == slot)
		p->hdr.n_buckets--;
}

/* Would a pool of @n buckets be legal? Prints why not. */
int xs_pool_check_size(const char *what, const struct xs_pool_hdr *hdr, __u32 n)
{
	__u32 hand;

	if (n > XS_MAX_BUCKETS) {
		pr_warn("%s: a pool holds at most %u slots\n", what, XS_MAX_BUCKETS);
		return -ENOSPC;
	}
	if (hdr->algo != XS_ALGO_SHUFFLE || n == 0)
		return 0;
	hand = hdr->hand_size < n ? hdr->hand_size : n;
	if (xs_hand_entropy_ok(n, hand)) {
		pr_warn("%s: hand size %u with %u targets needs more than %u bits of hash entropy "
			"(hand * log2(targets) must be <= %u): use a smaller --hand-size "
			"or fewer targets\n", what, hand, n, XS_ENTROPY_BITS, XS_ENTROPY_BITS);
		return -ERANGE;
	}
	return 0;
}
