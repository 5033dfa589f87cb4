// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "endpoint.h"
#include "log.h"
#include "state.h"
#include "txn.h"
#include "xs_shuffle.h"

int xs_check_env(void)
{
	struct statfs sfs;

	if (geteuid() != 0) {
		pr_warn("must run as root: loading XDP programs and opening pinned maps need "
			"CAP_BPF and CAP_NET_ADMIN (try: sudo xdpsteer ...)\n");
		return -EPERM;
	}
	if (statfs("/sys/fs/bpf", &sfs) || sfs.f_type != BPF_FS_MAGIC) {
		pr_warn("bpffs is not mounted at /sys/fs/bpf; mount it with: "
			"mount -t bpf bpf /sys/fs/bpf\n");
		return -ENOENT;
	}
	return 0;
}

int xs_ifindex(const char *ifname)
{
	unsigned int idx;

	if (strlen(ifname) >= IF_NAMESIZE) {
		pr_warn("interface name '%s' is longer than %d characters\n", ifname,
			IF_NAMESIZE - 1);
		return -EINVAL;
	}
	idx = if_nametoindex(ifname);
	if (!idx) {
		pr_warn("interface '%s' not found: %s (see `ip link show`)\n", ifname,
			strerror(errno));
		return -ENODEV;
	}
	return (int)idx;
}

int xs_pin_dir(char *buf, size_t len, const char *ifname)
{
	int n = snprintf(buf, len, "%s/%s", XS_PIN_ROOT, ifname);

	if (n < 0 || (size_t)n >= len || strchr(ifname, '/') || !strcmp(ifname, ".") ||
	    !strcmp(ifname, "..")) {
		pr_warn("interface name '%s' cannot name a pin directory\n", ifname);
		return -EINVAL;
	}
	return 0;
}

int xs_pin_path(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Pins are trusted only if they are what we made: never follow a planted symlink. */
static int xs_check_not_link(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return -errno;
	if (S_ISLNK(st.st_mode)) {
		pr_warn("refusing %s: it is a symlink, and xdpsteer never follows links in its pin "
			"directory (remove it)\n", path);
		return -ELOOP;
	}
	return 0;
}

bool xs_is_attached(const char *ifname)
{
	char dir[PATH_MAX], path[PATH_MAX];

	if (xs_pin_dir(dir, sizeof(dir), ifname) ||
	    xs_pin_path(path, sizeof(path), dir, XS_PIN_PROG_XDP))
		return false;
	return access(path, F_OK) == 0;
}

int xs_obj_get(const struct xs_handle *h, const char *name)
{
	char path[PATH_MAX];
	int fd, err;

	err = xs_pin_path(path, sizeof(path), h->dir, name);
	if (!err)
		err = xs_check_not_link(path);
	if (err == -ELOOP)
		return err; /* xs_check_not_link() said why */
	if (!err) {
		fd = bpf_obj_get(path);
		if (fd >= 0)
			return fd;
		err = -errno;
	}
	/* Callers have found the attachment: a pin it lacks is another version's. */
	if (err == -ENOENT)
		pr_warn("%s: the attachment has no %s: another version of xdpsteer attached it; "
			"run `xdpsteer detach %s` and attach again\n",
			h->ifname, name, h->ifname);
	else
		pr_warn("cannot open pinned object %s/%s: %s\n", h->dir, name, strerror(-err));
	return err;
}

static void xs_fds(struct xs_handle *h, bool close_them);

int xs_locate(const char *ifname, struct xs_handle *h)
{
	int err;

	memset(h, 0, sizeof(*h));
	xs_fds(h, false);
	err = xs_check_env();
	if (err)
		return err;
	snprintf(h->ifname, sizeof(h->ifname), "%s", ifname);
	err = xs_ifindex(ifname);
	if (err < 0)
		return err;
	h->ifindex = err;
	err = xs_pin_dir(h->dir, sizeof(h->dir), ifname);
	if (err)
		return err;
	err = xs_check_not_link(h->dir);
	if (err == -ENOENT || !xs_is_attached(ifname)) {
		pr_warn("xdpsteer is not attached to %s (run: xdpsteer attach %s)\n", ifname,
			ifname);
		return -ENOENT;
	}
	if (err)
		return err;
	h->nr_cpus = libbpf_num_possible_cpus();
	if (h->nr_cpus <= 0) {
		pr_warn("cannot count possible CPUs: %s\n", strerror(-h->nr_cpus));
		return h->nr_cpus ? h->nr_cpus : -EINVAL;
	}
	return 0;
}

int xs_open(const char *ifname, struct xs_handle *h)
{
	struct {
		const char *name;
		int *fd;
	} maps[] = {
		{ "xs_pools", &h->pools_fd },	  { "xs_targets", &h->targets_fd },
		{ "xs_target_stats", &h->stats_fd }, { "xs_counters", &h->counters_fd },
		{ "xs_flows", &h->flows_fd },	  { "xs_cpumap", &h->cpumap_fd },
		{ "xs_devmap", &h->devmap_fd },	  { "xs_self", &h->self_fd },
		{ "xs_dev_ids", &h->dev_ids_fd },  { "xs_services", &h->services_fd },
		{ "xs_vips", &h->vips_fd },	  { "xs_service_stats", &h->service_stats_fd },
		{ "xs_tx_ports", &h->tx_ports_fd },  { "xs_service_by_id", &h->service_by_id_fd },
		{ "xs_epoch", &h->epoch_fd },
	};
	size_t i;
	int err;

	err = xs_locate(ifname, h);
	if (err)
		return err;
	for (i = 0; i < XS_ARRAY_SIZE(maps); i++) {
		*maps[i].fd = xs_obj_get(h, maps[i].name);
		if (*maps[i].fd < 0) {
			err = *maps[i].fd;
			xs_close(h);
			return err;
		}
	}
	/* Before any change: a command that could not end its epoch must not start. */
	err = xs_epoch_map(h);
	if (err)
		xs_close(h);
	return err;
}

int xs_epoch_map(struct xs_handle *h)
{
	void *p = mmap(NULL, sizeof(*h->epoch), PROT_READ | PROT_WRITE, MAP_SHARED, h->epoch_fd, 0);

	if (p == MAP_FAILED) {
		int err = -errno;

		pr_warn("%s: cannot map xs_epoch: %s\n", h->ifname, strerror(-err));
		return err;
	}
	h->epoch = p;
	return 0;
}

/*
 * End the configuration epoch: flows whose recipe (struct xs_recipe) was made
 * before are sent the long way once more, and see what was written before
 * this call. One atomic add on the mapped value: commands running at the same
 * time can never take it back to an epoch whose recipes are out of date.
 */
void xs_epoch_bump(const struct xs_handle *h)
{
	__atomic_add_fetch(h->epoch, 1, __ATOMIC_SEQ_CST);
}

/* Every map fd of @h set to -1, each closed first if @close_them. */
static void xs_fds(struct xs_handle *h, bool close_them)
{
	int *fds[] = { &h->pools_fd, &h->targets_fd, &h->stats_fd, &h->counters_fd,
		       &h->flows_fd, &h->cpumap_fd, &h->devmap_fd, &h->self_fd,
		       &h->dev_ids_fd, &h->services_fd, &h->vips_fd, &h->service_stats_fd,
		       &h->tx_ports_fd, &h->service_by_id_fd, &h->epoch_fd };
	size_t i;

	for (i = 0; i < XS_ARRAY_SIZE(fds); i++) {
		if (close_them && *fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

void xs_epoch_unmap(struct xs_handle *h)
{
	if (h->epoch)
		munmap(h->epoch, sizeof(*h->epoch));
	h->epoch = NULL;
}

void xs_close(struct xs_handle *h)
{
	xs_epoch_unmap(h);
	xs_fds(h, true);
}

/* What a command read and opened, let go in one place: @all and @pool may be empty. */
void xs_release(struct xs_handle *h, struct xs_target **all, struct xs_pool *pool)
{
	xs_pool_free(pool);
	free(*all);
	*all = NULL;
	xs_close(h);
}

void xs_pool_free(struct xs_pool *p)
{
	free(p->bucket);
	p->bucket = NULL;
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

int xs_pool_read(const struct xs_handle *h, __u32 pool_id, struct xs_pool *p)
{
	union xs_pool_entry *vals = NULL;
	__u32 inner_id, n, i, base, slot, *keys = NULL;
	int fd, err;

	memset(p, 0, sizeof(*p));
	err = xs_pool_base(h, &base);
	if (err)
		return err;
	slot = base + pool_id;
	if (bpf_map_lookup_elem(h->pools_fd, &slot, &inner_id)) {
		err = -errno;
		pr_warn("%s: cannot read pool %u from xs_pools: %s\n", h->ifname, pool_id,
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
	i = 0;
	if (bpf_map_lookup_elem(fd, &i, &p->hdr)) {
		err = -errno;
		pr_warn("%s: cannot read pool %u header: %s\n", h->ifname, pool_id,
			strerror(-err));
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
		__u32 count = n + 1, out_batch;
		LIBBPF_OPTS(bpf_map_batch_opts, bopts);

		err = bpf_map_lookup_batch(fd, NULL, &out_batch, keys, vals, &count, &bopts);
		if (err && errno != ENOENT) {
			err = -errno;
			pr_warn("%s: cannot read pool %u buckets: %s\n", h->ifname, pool_id,
				strerror(-err));
			goto out;
		}
		if (count < n + 1) {
			err = -EIO;
			pr_warn("%s: pool %u: read %u of %u entries\n", h->ifname, pool_id, count,
				n + 1);
			goto out;
		}
		for (i = 0; i < n; i++)
			p->bucket[i] = vals[i + 1].bucket.target;
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
 * Pools are created here, not by libbpf, so give them the object's BTF:
 * then `bpftool map dump` prints union xs_pool_entry field by field.
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
	val = btf__find_by_name_kind(btf, "xs_pool_entry", BTF_KIND_UNION);
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

/*
 * A new inner map holding @p, filled and frozen: what a transaction swaps
 * into xs_pools. Returns its fd (the caller closes it) or -errno.
 */
int xs_pool_build(const struct xs_handle *h, __u32 pool_id, const struct xs_pool *p)
{
	LIBBPF_OPTS(bpf_map_create_opts, copts, .map_flags = BPF_F_INNER_MAP);
	LIBBPF_OPTS(bpf_map_batch_opts, bopts);
	union xs_pool_entry *vals = NULL;
	__u32 n = p->hdr.n_buckets, count = n + 1, i, *keys = NULL;
	char name[16];
	int fd, err;

	snprintf(name, sizeof(name), "xs_pool%u", pool_id);
	xs_pool_btf(h, &copts);
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, name, sizeof(__u32), sizeof(union xs_pool_entry),
			    n + 1, &copts);
	if (copts.btf_fd)
		close(copts.btf_fd);
	if (fd < 0) {
		err = -errno;
		pr_warn("%s: cannot create a map for pool %u (%u buckets): %s\n", h->ifname,
			pool_id, n, strerror(-err));
		return err;
	}
	err = -ENOMEM;
	keys = calloc(n + 1, sizeof(*keys));
	vals = calloc(n + 1, sizeof(*vals));
	if (!keys || !vals)
		goto out;
	for (i = 0; i <= n; i++)
		keys[i] = i;
	vals[0].hdr = p->hdr;
	for (i = 0; i < n; i++)
		vals[i + 1].bucket.target = p->bucket[i];
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

/* Publish @p as pool @pool_id on its own: a transaction of one pool. */
int xs_pool_publish(const struct xs_handle *h, __u32 pool_id, struct xs_pool *p)
{
	struct xs_txn *t = xs_txn_begin(h);
	int err;

	if (!t)
		return -ENOMEM;
	err = xs_txn_pool(t, pool_id, p);
	if (err) {
		xs_txn_abort(t);
		return err;
	}
	return xs_txn_commit(t);
}

int xs_targets_read(const struct xs_handle *h, struct xs_target *all)
{
	LIBBPF_OPTS(bpf_map_batch_opts, bopts);
	__u32 count = XS_MAX_TARGETS, out_batch, *keys;
	int err = 0;

	keys = calloc(XS_MAX_TARGETS, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	/* One syscall for the whole array: it has 8576 entries. */
	if (bpf_map_lookup_batch(h->targets_fd, NULL, &out_batch, keys, all, &count, &bopts) &&
	    errno != ENOENT) {
		err = -errno;
		pr_warn("%s: cannot read xs_targets: %s\n", h->ifname, strerror(-err));
	} else if (count != XS_MAX_TARGETS) {
		err = -EIO;
		pr_warn("%s: read %u of %u xs_targets entries\n", h->ifname, count, XS_MAX_TARGETS);
	}
	free(keys);
	return err;
}

int xs_target_write(const struct xs_handle *h, __u32 id, const struct xs_target *t)
{
	if (bpf_map_update_elem(h->targets_fd, &id, t, BPF_ANY)) {
		int err = -errno;

		pr_warn("%s: cannot write xs_targets[%u]: %s\n", h->ifname, id, strerror(-err));
		return err;
	}
	xs_epoch_bump(h);
	return 0;
}

int xs_stats_read(const struct xs_handle *h, __u32 id, struct xs_target_stats *sum,
		  struct xs_target_stats *percpu)
{
	struct xs_target_stats *v;
	int cpu, err = 0;

	v = calloc(h->nr_cpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	memset(sum, 0, sizeof(*sum));
	if (bpf_map_lookup_elem(h->stats_fd, &id, v)) {
		err = -errno;
		pr_warn("%s: cannot read xs_target_stats[%u]: %s\n", h->ifname, id,
			strerror(-err));
		goto out;
	}
	for (cpu = 0; cpu < h->nr_cpus; cpu++) {
		sum->packets += v[cpu].packets;
		sum->bytes += v[cpu].bytes;
		sum->dequeued += v[cpu].dequeued;
		sum->dropped += v[cpu].dropped;
		sum->opened += v[cpu].opened;
		sum->closed += v[cpu].closed;
	}
	if (percpu)
		memcpy(percpu, v, h->nr_cpus * sizeof(*v));
out:
	free(v);
	return err;
}

int xs_stats_reset(const struct xs_handle *h, __u32 id)
{
	struct xs_target_stats *v = calloc(h->nr_cpus, sizeof(*v));
	int err = 0;

	if (!v)
		return -ENOMEM;
	if (bpf_map_update_elem(h->stats_fd, &id, v, BPF_ANY)) {
		err = -errno;
		pr_warn("%s: cannot reset xs_target_stats[%u]: %s\n", h->ifname, id,
			strerror(-err));
	}
	free(v);
	return err;
}

int xs_stats_reset_service(const struct xs_handle *h, __u32 id)
{
	struct xs_service_stats *v = calloc(h->nr_cpus, sizeof(*v));
	int err = 0;

	if (!v)
		return -ENOMEM;
	if (bpf_map_update_elem(h->service_stats_fd, &id, v, BPF_ANY))
		err = -errno;
	free(v);
	return err;
}

int xs_service_stats_read(const struct xs_handle *h, __u32 id, struct xs_service_stats *sum)
{
	struct xs_service_stats *v = calloc(h->nr_cpus, sizeof(*v));
	int cpu, err = 0;

	if (!v)
		return -ENOMEM;
	memset(sum, 0, sizeof(*sum));
	if (bpf_map_lookup_elem(h->service_stats_fd, &id, v)) {
		err = -errno;
		pr_warn("%s: cannot read xs_service_stats[%u]: %s\n", h->ifname, id,
			strerror(-err));
	}
	for (cpu = 0; !err && cpu < h->nr_cpus; cpu++) {
		sum->packets += v[cpu].packets;
		sum->bytes += v[cpu].bytes;
		sum->no_backend += v[cpu].no_backend;
		sum->too_big += v[cpu].too_big;
	}
	free(v);
	return err;
}

/* The rule the XDP program uses, from the same header. */
__u64 xs_stats_load(__u32 id, const struct xs_target_stats *sum)
{
	return xs_target_load(id, sum->packets, sum->dequeued, sum->dropped, sum->opened,
			      sum->closed);
}

/* xs_counters holds one struct xs_counter_block per CPU, key = cpu: the sum is per counter. */
int xs_counters_read(const struct xs_handle *h, __u64 *sum)
{
	__u32 n = (__u32)h->nr_cpus, count = n, out_batch, i, c;
	struct xs_counter_block *vals = calloc(n, sizeof(*vals));
	__u32 *keys = calloc(n, sizeof(*keys));
	LIBBPF_OPTS(bpf_map_batch_opts, o);
	int err = 0;

	memset(sum, 0, XS_C_MAX * sizeof(*sum));
	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	/* One call for the whole array; ENOENT only says it reached the end. */
	if (bpf_map_lookup_batch(h->counters_fd, NULL, &out_batch, keys, vals, &count, &o) &&
	    errno != ENOENT) {
		err = -errno;
		pr_warn("%s: cannot read xs_counters: %s\n", h->ifname, strerror(-err));
		goto out;
	}
	if (count != n) {
		err = -EIO;
		pr_warn("%s: xs_counters holds %u entries, expected one per CPU (%d)\n", h->ifname,
			count, h->nr_cpus);
		goto out;
	}
	for (i = 0; i < count; i++) {
		const __u64 *row = (const __u64 *)&vals[i];

		for (c = 0; c < XS_C_MAX; c++)
			sum[c] += row[c];
	}
out:
	free(keys);
	free(vals);
	return err;
}

int xs_target_name(const struct xs_handle *h, const struct xs_target *t, __u32 id, char *buf,
		   size_t len)
{
	char ifn[IF_NAMESIZE];

	if (t->kind == XS_TARGET_CPU)
		return snprintf(buf, len, "cpu %u", t->cpu);
	if (t->kind == XS_TARGET_DEV)
		return snprintf(buf, len, "dev %s",
				if_indextoname(t->ifindex, ifn) ? ifn : "(gone)");
	if (t->kind == XS_TARGET_BACKEND) {
		char addr[INET6_ADDRSTRLEN];

		xs_format_addr(t->addr, addr, sizeof(addr));
		return snprintf(buf, len, "backend %s", addr);
	}
	return snprintf(buf, len, "id %u", id);
}

/*
 * Flows each target still holds: live, unexpired pins in the LRU (the pin's
 * uid is the target's), counted per target id into @counts (XS_MAX_TARGETS entries).
 * Read in batches; the table changes while it is read, so the figure is a
 * snapshot, exact only for a quiet table.
 */
int xs_pinned_counts(const struct xs_handle *h, const struct xs_target *all, __u32 *counts)
{
	LIBBPF_OPTS(bpf_map_batch_opts, bopts);
	enum { CHUNK = 4096 };
	struct xs_flow_key *keys = calloc(CHUNK, sizeof(*keys));
	struct xs_flow_pin *vals = calloc(CHUNK, sizeof(*vals));
	__u32 in_batch = 0, out_batch = 0, n, i, now, zero = 0;
	struct xs_self self;
	struct timespec ts;
	bool first = true;
	int err = 0, rc;

	memset(counts, 0, XS_MAX_TARGETS * sizeof(*counts));
	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	/* Expired pins wait in the LRU for their next packet: they hold nothing. */
	if (bpf_map_lookup_elem(h->self_fd, &zero, &self)) {
		err = -errno;
		pr_warn("%s: cannot read xs_self: %s\n", h->ifname, strerror(-err));
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	now = (__u32)((((__u64)ts.tv_sec * 1000000000ULL) + (__u64)ts.tv_nsec) >> XS_TICK_SHIFT);
	do {
		n = CHUNK;
		rc = bpf_map_lookup_batch(h->flows_fd, first ? NULL : &in_batch, &out_batch, keys,
					  vals, &n, &bopts);
		if (rc && errno != ENOENT) {
			err = -errno;
			pr_warn("%s: cannot read xs_flows: %s\n", h->ifname, strerror(-err));
			break;
		}
		for (i = 0; i < n; i++) {
			__u32 t = vals[i].target;

			if (t < XS_MAX_TARGETS && (all[t].flags & XS_TARGET_F_ACTIVE) &&
			    all[t].uid == vals[i].uid &&
			    !xs_pin_expired(&vals[i], keys[i].proto, now, &self.timeouts))
				counts[t]++;
		}
		in_batch = out_batch;
		first = false;
	} while (!rc);
out:
	free(keys);
	free(vals);
	return err;
}

/* Would a pool of @n buckets be legal? Prints why not. */
int xs_pool_check_size(const struct xs_handle *h, const struct xs_pool_hdr *hdr, __u32 n)
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
			"(hand * log2(targets) must be <= %u): use a smaller --hand-size "
			"or fewer targets\n", h->ifname, hand, n, XS_ENTROPY_BITS, XS_ENTROPY_BITS);
		return -ERANGE;
	}
	return 0;
}

/*
 * Drain (or undrain) target @id of pool @pool_id, whose pool @pool the caller
 * has read: the pool and the target's DRAIN flag change together, in the
 * order that never lets a packet see a draining target in the pool. @name
 * names the target in messages. Returns 0 or -errno (printed).
 */
int xs_drain_apply(const struct xs_handle *h, __u32 pool_id, struct xs_pool *pool,
		   struct xs_target *t, __u32 id, bool drain, const char *name)
{
	int n, err;

	if (!!(t->flags & XS_TARGET_F_DRAIN) == drain) {
		pr_warn("%s: %s is %s draining\n", h->ifname, name, drain ? "already" : "not");
		return -EALREADY;
	}
	n = xs_pool_drain(pool, t, id, drain);
	if (n < 0)
		return n;
	if (!drain) {
		err = xs_pool_check_size(h, &pool->hdr, pool->hdr.n_buckets);
		if (err)
			return err;
	}
	t->flags ^= XS_TARGET_F_DRAIN;
	/* Draining: out of the pool first, then flagged. Undraining: the reverse. */
	err = drain ? xs_pool_publish(h, pool_id, pool) ?: xs_target_write(h, id, t)
		    : xs_target_write(h, id, t) ?: xs_pool_publish(h, pool_id, pool);
	if (!err)
		printf("%s: %s %s: %d slot%s %s; pinned flows stay with it\n", h->ifname,
		       drain ? "draining" : "undrained", name, n, n == 1 ? "" : "s",
		       drain ? "emptied" : "refilled");
	return err;
}
