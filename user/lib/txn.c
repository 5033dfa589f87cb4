// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Transactions over pools and services (see txn.h). The inactive generation
 * is brought up to date lazily: at commit, every pool id whose inactive slot
 * differs from what it must become is written, staged or not. So a commit
 * writes what this change touches plus what the previous one touched, in one
 * batch, and map-in-map updates cost one synchronize_rcu per batch, not one
 * per pool.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include "log.h"
#include "service.h"
#include "stats.h"
#include "txn.h"

enum xs_stage { XS_KEEP = 0, XS_SET, XS_DROP };

struct xs_txn_svc {
	struct xs_service_key key;
	struct xs_service svc;
	struct xs_service old;	/* xs_services value before the commit named it */
	bool del, had, named;
	bool counted;		/* its VIP's count in xs_vips was raised */
};

struct xs_txn {
	const struct xs_handle *h;
	__u32 base;				/* live generation at begin */
	__u8 pool[XS_MAX_POOLS];		/* enum xs_stage */
	int fd[XS_MAX_POOLS];			/* XS_SET: the new pool's buckets ... */
	struct xs_pool_hdr hdr[XS_MAX_POOLS];	/* ... and its header */
	struct xs_txn_svc *svc;			/* services to add, change or remove */
	__u32 n_svc, cap_svc;
	int self_added;				/* services counted into xs_self */
};

struct xs_txn *xs_txn_begin(const struct xs_handle *h)
{
	struct xs_txn *t = calloc(1, sizeof(*t));
	__u32 i;

	if (!t) {
		pr_warn("%s: out of memory for a change\n", h->ifname);
		return NULL;
	}
	t->h = h;
	for (i = 0; i < XS_MAX_POOLS; i++)
		t->fd[i] = -1;
	if (xs_pool_base(h, &t->base)) {
		free(t);
		return NULL;
	}
	return t;
}

void xs_txn_abort(struct xs_txn *t)
{
	__u32 i;

	if (!t)
		return;
	for (i = 0; i < XS_MAX_POOLS; i++)
		if (t->fd[i] >= 0)
			close(t->fd[i]);
	free(t->svc);
	free(t);
}

static int xs_txn_check_id(const struct xs_txn *t, __u32 id)
{
	if (id < XS_MAX_POOLS)
		return 0;
	pr_warn("%s: pool id %u is out of range (at most %u)\n", t->h->ifname, id,
		XS_MAX_POOLS - 1);
	return -EINVAL;
}

int xs_txn_pool(struct xs_txn *t, __u32 id, struct xs_pool *p)
{
	int fd, err = xs_txn_check_id(t, id);

	if (err)
		return err;
	p->hdr.digest = xs_pool_digest(p);
	fd = xs_pool_build(t->h, id, p);
	if (fd < 0)
		return fd;
	if (t->fd[id] >= 0)
		close(t->fd[id]);
	t->fd[id] = fd;
	t->hdr[id] = p->hdr;
	t->pool[id] = XS_SET;
	return 0;
}

static int xs_txn_add_svc(struct xs_txn *t, const struct xs_service_key *key,
			  const struct xs_service *svc, bool del)
{
	struct xs_txn_svc *s;

	if (t->n_svc == t->cap_svc) {
		__u32 cap = t->cap_svc ? 2 * t->cap_svc : 16;

		s = realloc(t->svc, cap * sizeof(*s));
		if (!s) {
			pr_warn("%s: out of memory for %u service changes\n", t->h->ifname, cap);
			return -ENOMEM;
		}
		t->svc = s;
		t->cap_svc = cap;
	}
	s = &t->svc[t->n_svc++];
	memset(s, 0, sizeof(*s));
	s->key = *key;
	s->svc = *svc;
	s->del = del;
	return 0;
}

int xs_txn_service(struct xs_txn *t, const struct xs_service_key *key,
		   const struct xs_service *svc)
{
	return xs_txn_check_id(t, svc->id) ?: xs_txn_add_svc(t, key, svc, false);
}

int xs_txn_service_del(struct xs_txn *t, const struct xs_service_key *key, __u32 id)
{
	struct xs_service none = { .id = id };
	int err = xs_txn_check_id(t, id);

	if (err)
		return err;
	if (id == XS_POOL_QUEUES) {
		pr_warn("%s: the queue pool is not a service\n", t->h->ifname);
		return -EINVAL;
	}
	if (t->fd[id] >= 0)
		close(t->fd[id]);
	t->fd[id] = -1;
	t->pool[id] = XS_DROP;
	return xs_txn_add_svc(t, key, &none, true);
}

/* Everything the inactive generation must get, gathered before any write. */
struct xs_txn_writes {
	__u32 *keys;		/* xs_pools slots to set ... */
	int *fds;		/* ... to these maps */
	__u32 n;
	__u32 *drop;		/* xs_pools slots to empty */
	__u32 n_drop;
	struct xs_service *was;	/* both halves of xs_service_by_id, as read */
	struct xs_service *svc;	/* the same, with the inactive half as it must be */
	struct xs_pool_hdr *hdr_was;	/* both halves of xs_pool_hdrs, as read */
	struct xs_pool_hdr *hdr;	/* the same, with the inactive half as it must be */
};

static void xs_writes_free(struct xs_txn_writes *w)
{
	__u32 i;

	for (i = 0; w->fds && i < w->n; i++)
		close(w->fds[i]);
	free(w->keys);
	free(w->fds);
	free(w->drop);
	free(w->was);
	free(w->svc);
	free(w->hdr_was);
	free(w->hdr);
}

static int xs_txn_gather(struct xs_txn *t, __u32 next, struct xs_txn_writes *w)
{
	const struct xs_handle *h = t->h;
	__u32 id, i, now, was;
	int fd, err;

	w->keys = calloc(XS_MAX_POOLS, sizeof(*w->keys));
	w->fds = calloc(XS_MAX_POOLS, sizeof(*w->fds));
	w->drop = calloc(XS_MAX_POOLS, sizeof(*w->drop));
	w->was = calloc(2 * XS_MAX_POOLS, sizeof(*w->was));
	w->svc = calloc(2 * XS_MAX_POOLS, sizeof(*w->svc));
	w->hdr_was = calloc(2 * XS_MAX_POOLS, sizeof(*w->hdr_was));
	w->hdr = calloc(2 * XS_MAX_POOLS, sizeof(*w->hdr));
	if (!w->keys || !w->fds || !w->drop || !w->was || !w->svc || !w->hdr_was || !w->hdr) {
		pr_warn("%s: out of memory for the new generation of pools\n", h->ifname);
		return -ENOMEM;
	}
	err = xs_pool_read_halves(h, h->service_by_id_fd, "xs_service_by_id", w->was) ?:
	      xs_pool_read_halves(h, h->pool_hdrs_fd, "xs_pool_hdrs", w->hdr_was);
	if (err)
		return err;
	memcpy(w->svc, w->was, 2 * XS_MAX_POOLS * sizeof(*w->svc));
	memcpy(w->hdr, w->hdr_was, 2 * XS_MAX_POOLS * sizeof(*w->hdr));
	/* From here w->svc[next + id] and w->hdr[next + id] are what the inactive half must become. */
	for (id = 0; id < XS_MAX_POOLS; id++) {
		w->svc[next + id] = w->svc[t->base + id];
		if (t->pool[id] == XS_SET)
			w->hdr[next + id] = t->hdr[id];
		else if (t->pool[id] == XS_DROP)
			memset(&w->hdr[next + id], 0, sizeof(w->hdr[0]));
		else
			w->hdr[next + id] = w->hdr[t->base + id];
	}
	for (i = 0; i < t->n_svc; i++) {
		struct xs_txn_svc *s = &t->svc[i];

		if (s->del)
			memset(&w->svc[next + s->svc.id], 0, sizeof(w->svc[0]));
		else
			w->svc[next + s->svc.id] = s->svc;
	}
	for (id = 0; id < XS_MAX_POOLS; id++) {
		if (t->pool[id] == XS_SET) {
			w->keys[w->n] = next + id;
			w->fds[w->n++] = t->fd[id];
			t->fd[id] = -1; /* owned by w now */
			continue;
		}
		now = t->pool[id] == XS_DROP ? 0 : xs_pool_slot_map(h, t->base + id);
		was = xs_pool_slot_map(h, next + id);
		if (now == was)
			continue;
		if (!now) {
			w->drop[w->n_drop++] = next + id;
			continue;
		}
		fd = bpf_map_get_fd_by_id(now);
		if (fd < 0) {
			fd = -errno;
			pr_warn("%s: cannot open pool %u (map id %u): %s\n", h->ifname, id, now,
				strerror(-fd));
			return fd;
		}
		w->keys[w->n] = next + id;
		w->fds[w->n++] = fd;
	}
	return 0;
}

/* Write the inactive generation. Nothing reads it, so the order inside does not matter. */
static int xs_txn_write_next(const struct xs_handle *h, __u32 next, struct xs_txn_writes *w)
{
	LIBBPF_OPTS(bpf_map_batch_opts, bopts);
	__u32 i, slot, count = w->n;
	int err = 0;

	for (i = 0; !err && i < XS_MAX_POOLS; i++) {
		slot = next + i;
		if (memcmp(&w->was[slot], &w->svc[slot], sizeof(w->was[0])) &&
		    bpf_map_update_elem(h->service_by_id_fd, &slot, &w->svc[slot], BPF_ANY)) {
			err = -errno;
			pr_warn("%s: cannot write xs_service_by_id[%u]: %s\n", h->ifname, slot,
				strerror(-err));
		}
		if (!err && memcmp(&w->hdr_was[slot], &w->hdr[slot], sizeof(w->hdr[0])) &&
		    bpf_map_update_elem(h->pool_hdrs_fd, &slot, &w->hdr[slot], BPF_ANY)) {
			err = -errno;
			pr_warn("%s: cannot write xs_pool_hdrs[%u]: %s\n", h->ifname, slot,
				strerror(-err));
		}
	}
	if (err)
		return err;
	/* One batch, one synchronize_rcu, however many pools. */
	if (count && bpf_map_update_batch(h->pools_fd, w->keys, w->fds, &count, &bopts)) {
		err = -errno;
		pr_warn("%s: cannot write %u pools into xs_pools (%u written): %s\n", h->ifname,
			w->n, count, strerror(-err));
		return err;
	}
	for (i = 0; i < w->n_drop; i++)
		if (bpf_map_delete_elem(h->pools_fd, &w->drop[i]) && errno != ENOENT) {
			err = -errno;
			pr_warn("%s: cannot empty xs_pools[%u]: %s\n", h->ifname, w->drop[i],
				strerror(-err));
			return err;
		}
	return 0;
}

/*
 * Services named before the flip: the data plane ignores them until it. What
 * is written is recorded, for the undo; a failure says which map and why.
 */
static int xs_txn_name_services(struct xs_txn *t)
{
	const struct xs_handle *h = t->h;
	char name[80];
	int err, added = 0;
	__u32 i;

	for (i = 0; i < t->n_svc; i++) {
		struct xs_txn_svc *s = &t->svc[i];

		if (s->del)
			continue;
		xs_format_service(&s->key, name, sizeof(name));
		s->had = !bpf_map_lookup_elem(h->services_fd, &s->key, &s->old);
		if (bpf_map_update_elem(h->services_fd, &s->key, &s->svc, BPF_ANY)) {
			err = -errno;
			pr_warn("%s: cannot write %s into xs_services: %s%s\n", h->ifname, name,
				strerror(-err), err == -E2BIG ? " (the map is full)" : "");
			return err;
		}
		s->named = true;
		if (s->had)
			continue;
		added++;
		err = xs_vip_ref(h, &s->key, +1);
		if (err) {
			pr_warn("%s: cannot count %s in xs_vips: %s\n", h->ifname, name,
				strerror(-err));
			return err;
		}
		s->counted = true;
	}
	err = added ? xs_self_services(h, added) : 0;
	if (err) {
		pr_warn("%s: cannot count %d new service%s in xs_self: %s\n", h->ifname, added,
			added == 1 ? "" : "s", strerror(-err));
		return err;
	}
	t->self_added = added;
	return 0;
}

/* After the flip: services of the old generation only. */
static void xs_txn_unname_services(struct xs_txn *t)
{
	const struct xs_handle *h = t->h;
	__u32 i;

	for (i = 0; i < t->n_svc; i++) {
		struct xs_txn_svc *s = &t->svc[i];

		if (!s->del || bpf_map_delete_elem(h->services_fd, &s->key))
			continue;
		xs_vip_ref(h, &s->key, -1);
		xs_self_services(h, -1);
		xs_stats_reset_service(h, s->svc.id);
	}
}

/* Undo xs_txn_name_services for a change that never became visible. */
static void xs_txn_unname_added(struct xs_txn *t)
{
	const struct xs_handle *h = t->h;
	__u32 i;

	for (i = 0; i < t->n_svc; i++) {
		struct xs_txn_svc *s = &t->svc[i];

		if (s->named && s->had)
			bpf_map_update_elem(h->services_fd, &s->key, &s->old, BPF_ANY);
		else if (s->named)
			bpf_map_delete_elem(h->services_fd, &s->key);
		if (s->counted)
			xs_vip_ref(h, &s->key, -1);
	}
	if (t->self_added)
		xs_self_services(h, -t->self_added);
}

/*
 * Switch packets to generation @next. < 0: nothing switched. 1: switched,
 * but programs that read the old generation may still run.
 */
static int xs_txn_flip(const struct xs_handle *h, __u32 next)
{
	struct xs_self self;
	__u32 zero = 0, slot = XS_POOL_SYNC_SLOT, map;
	int fd, err = 0;

	if (bpf_map_lookup_elem(h->self_fd, &zero, &self)) {
		err = -errno;
		pr_warn("%s: cannot read xs_self to switch pools: %s\n", h->ifname,
			strerror(-err));
		return err;
	}
	/* Only pool_base changes, and 0 and XS_MAX_POOLS differ in their low bits alone. */
	self.pool_base = next;
	/* The generation's map writes before the store naming it (design.md, "Memory order"). */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	if (bpf_map_update_elem(h->self_fd, &zero, &self, BPF_ANY)) {
		err = -errno;
		pr_warn("%s: cannot switch xs_self to the new pools: %s\n", h->ifname,
			strerror(-err));
		return err;
	}
	/* After the flip: a recipe of the new epoch is made from the new generation. */
	xs_epoch_bump(h);
	/*
	 * Wait for programs that read the old pool_base or the old epoch: a
	 * map-in-map update returns only after synchronize_rcu. The sync slot is never read, and
	 * the queue pool always exists, so it serves as the value.
	 */
	map = xs_pool_slot_map(h, next + XS_POOL_QUEUES);
	fd = map ? bpf_map_get_fd_by_id(map) : -1;
	if (fd < 0 || bpf_map_update_elem(h->pools_fd, &slot, &fd, BPF_ANY)) {
		pr_warn("%s: switched, but cannot wait for running programs: %s\n", h->ifname,
			strerror(errno));
		err = 1;
	}
	if (fd >= 0)
		close(fd);
	return err;
}

/* Re-pin the live pools so `bpftool map dump pinned .../poolN` shows what runs. */
static void xs_txn_pin(struct xs_txn *t, __u32 next)
{
	const struct xs_handle *h = t->h;
	char name[16], path[PATH_MAX];
	__u32 id, map;
	int fd;

	if (!h->dir[0])
		return;
	for (id = 0; id < XS_MAX_POOLS; id++) {
		if (t->pool[id] == XS_KEEP)
			continue;
		snprintf(name, sizeof(name), XS_PIN_POOL_FMT, id);
		if (xs_pin_path(path, sizeof(path), h->dir, name))
			continue;
		/* bpffs cannot rename over a pin: a moment with no pin, never without the pool. */
		unlink(path);
		map = t->pool[id] == XS_SET ? xs_pool_slot_map(h, next + id) : 0;
		if (!map)
			continue;
		fd = bpf_map_get_fd_by_id(map);
		if (fd < 0 || bpf_obj_pin(fd, path) || chmod(path, 0600))
			pr_warn("%s: pool %u is live but could not be pinned at %s: %s\n",
				h->ifname, id, path, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
}

int xs_txn_commit(struct xs_txn *t)
{
	struct xs_txn_writes w = { 0 };
	__u32 base, next;
	int err;

	err = xs_pool_base(t->h, &base);
	if (!err && base != t->base) {
		pr_warn("%s: another command changed the pools meanwhile; nothing applied, "
			"run it again\n", t->h->ifname);
		err = -EAGAIN;
	}
	if (err)
		goto out;
	next = base ? 0 : XS_MAX_POOLS;
	err = xs_txn_gather(t, next, &w) ?: xs_txn_write_next(t->h, next, &w) ?:
	      xs_txn_name_services(t);
	err = err ?: xs_txn_flip(t->h, next);
	if (err < 0) {
		/* Not visible: the running generation is untouched. */
		xs_txn_unname_added(t);
		goto out;
	}
	xs_txn_unname_services(t);
	xs_txn_pin(t, next);
	/*
	 * Switched: the change is live whether or not the wait for old readers
	 * worked (xs_txn_flip() said so). Reporting a failure would make the
	 * caller undo target writes that the live pools already name.
	 */
	err = 0;
out:
	xs_writes_free(&w);
	xs_txn_abort(t);
	return err;
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
