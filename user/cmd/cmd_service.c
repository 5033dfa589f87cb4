// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* service add / del / list and backend add / del: load balancing for VIPs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/random.h>
#include <bpf/bpf.h>
#include "cli.h"
#include "commands.h"
#include "log.h"
#include "neigh.h"
#include "service.h"
#include "txn.h"
#include "xs_shuffle.h"

static int xs_parse_algo(const struct xs_args *a, struct xs_pool_hdr *hdr)
{
	const char *v;
	__u32 u;

	hdr->algo = XS_ALGO_JUMP;
	hdr->hand_size = 4;
	if ((v = xs_arg(a, "algo"))) {
		if (!strcmp(v, "shuffle")) {
			hdr->algo = XS_ALGO_SHUFFLE;
		} else if (strcmp(v, "jump")) {
			pr_warn("--algo: '%s' is not jump or shuffle\n", v);
			return -EINVAL;
		}
	}
	if ((v = xs_arg(a, "hand-size"))) {
		if (xs_parse_u32(v, "--hand-size", 1, XS_MAX_HAND - 1, &u))
			return -EINVAL;
		hdr->hand_size = (__u8)u;
	}
	return 0;
}

int xs_cmd_service_add(const struct xs_args *a)
{
	struct xs_service_key key;
	struct xs_service svc = { 0 }, old;
	struct xs_pool pool = { 0 }, base;
	struct xs_txn *txn;
	struct xs_handle h;
	const char *v;
	char name[80];
	__u32 id;
	int err;

	if (xs_parse_service(a->pos[1], &key))
		return -EINVAL;
	err = xs_open(a->pos[0], &h);
	if (err)
		return err;
	xs_format_service(&key, name, sizeof(name));
	err = -EINVAL;
	if (xs_parse_algo(a, &pool.hdr))
		goto out;
	v = xs_arg(a, "encap");
	if (!v || !strcmp(v, "ipip")) {
		svc.encap = XS_ENCAP_IPIP;
	} else if (!strcmp(v, "l2")) {
		svc.encap = XS_ENCAP_L2;
	} else {
		pr_warn("--encap: '%s' is not ipip or l2\n", v);
		goto out;
	}
	if (xs_parse_cidr(xs_arg(a, "tunnel-src") ?: XS_DEFAULT_TUNNEL_SRC4, AF_INET, &svc.src4,
			  &svc.src4_bits) ||
	    xs_parse_cidr(xs_arg(a, "tunnel-src6") ?: XS_DEFAULT_TUNNEL_SRC6, AF_INET6, svc.src6,
			  &svc.src6_bits))
		goto out;
	/* The VIP is what clients reach through us; a local one would be ours. */
	if (xs_addr_is_local(key.vip)) {
		pr_warn("%s: VIP of %s is an address of this host; a VIP must be routed to it, "
			"not assigned (backends hold it on their loopback)\n", h.ifname, name);
		goto out;
	}
	if (!bpf_map_lookup_elem(h.services_fd, &key, &old)) {
		pr_warn("%s: service %s already exists (id %u)\n", h.ifname, name, old.id);
		err = -EEXIST;
		goto out;
	}
	for (id = 1; id < XS_MAX_POOLS && xs_pool_in_use(&h, id); id++)
		;
	if (id >= XS_MAX_POOLS) {
		pr_warn("%s: all %u services are in use; the limit is XS_MAX_SERVICES in "
			"include/xdpsteer.h (raise it and rebuild)\n", h.ifname, XS_MAX_SERVICES);
		err = -ENOSPC;
		goto out;
	}
	/* One seed per interface: a service hashes like the queue pool does. */
	err = xs_pool_read(&h, XS_POOL_QUEUES, &base);
	if (err)
		goto out;
	memcpy(pool.hdr.seed, base.hdr.seed, sizeof(pool.hdr.seed));
	pool.hdr.flow_fields = base.hdr.flow_fields;
	pool.hdr.hand_fields = base.hdr.hand_fields;
	xs_pool_free(&base);
	svc.id = id;

	/* The pool and the service that points at it become visible together. */
	txn = xs_txn_begin(&h);
	err = txn ? xs_txn_pool(txn, id, &pool) ?: xs_txn_service(txn, &key, &svc) : -ENOMEM;
	if (err) {
		xs_txn_abort(txn);
		goto out;
	}
	err = xs_txn_commit(txn) ?: xs_tx_ports_sync(&h);
	if (err)
		goto out;
	printf("%s: added service %s (id %u, %s, %s)\n", h.ifname, name, id,
	       pool.hdr.algo == XS_ALGO_SHUFFLE ? "shuffle" : "jump",
	       svc.encap == XS_ENCAP_L2 ? "l2" : "ipip");
out:
	xs_close(&h);
	return err;
}

/* Remove the backends of service @id, and the neighbour entries only they needed. */
static void xs_backends_clear(const struct xs_handle *h, struct xs_target *all, __u32 id)
{
	struct xs_target none = { 0 }, gone;
	__u32 t;

	for (t = XS_BACKEND_BASE; t < XS_MAX_TARGETS; t++) {
		if (all[t].kind != XS_TARGET_BACKEND || all[t].service != id)
			continue;
		gone = all[t];
		xs_target_write(h, t, &none);
		all[t] = none;
		if (!xs_backend_addr_used(all, t, gone.addr))
			xs_neigh_manage(gone.addr, gone.family == 4 ? AF_INET : AF_INET6, false);
	}
}

int xs_cmd_service_del(const struct xs_args *a)
{
	struct xs_service_key key;
	struct xs_target *all = NULL;
	struct xs_service svc;
	struct xs_txn *txn;
	struct xs_handle h;
	char name[80];
	int err;

	if (xs_parse_service(a->pos[1], &key))
		return -EINVAL;
	err = xs_open(a->pos[0], &h);
	if (err)
		return err;
	xs_format_service(&key, name, sizeof(name));
	err = xs_service_get(&h, &key, &svc);
	if (err)
		goto out;
	err = -ENOMEM;
	all = calloc(XS_MAX_TARGETS, sizeof(*all));
	if (!all)
		goto out;
	err = xs_targets_read(&h, all);
	if (err)
		goto out;
	/* Gone in one step; its backends only once no packet can pick them. */
	txn = xs_txn_begin(&h);
	err = txn ? xs_txn_service_del(txn, &key, svc.id) : -ENOMEM;
	if (err) {
		xs_txn_abort(txn);
		goto out;
	}
	err = xs_txn_commit(txn);
	if (err)
		goto out;
	xs_backends_clear(&h, all, svc.id);
	printf("%s: removed service %s and its backends\n", h.ifname, name);
out:
	free(all);
	xs_close(&h);
	return err;
}

int xs_cmd_backend_add(const struct xs_args *a)
{
	struct xs_target *all = NULL, t;
	struct xs_service_key key;
	struct xs_pool pool = { 0 };
	struct xs_service svc;
	struct xs_handle h;
	__u32 id, w, weight = 1, n, *grown;
	bool vip_v4;
	char name[80];
	int err;

	if (xs_parse_service(a->pos[1], &key) || xs_parse_backend(a->pos[2], &t))
		return -EINVAL;
	if (xs_arg(a, "weight") &&
	    xs_parse_u32(xs_arg(a, "weight"), "--weight", 1, XS_MAX_WEIGHT, &weight))
		return -EINVAL;
	err = xs_open(a->pos[0], &h);
	if (err)
		return err;
	xs_format_service(&key, name, sizeof(name));
	err = xs_service_get(&h, &key, &svc);
	if (err)
		goto out;
	vip_v4 = !key.vip[0] && !key.vip[1] && key.vip[2] == htonl(0xffff);
	err = -EINVAL;
	if (svc.encap == XS_ENCAP_IPIP && !vip_v4 && t.family == 4) {
		pr_warn("%s: %s is IPv6 and %s is IPv4: ipip carries IPv4 in IPv4 or IPv6, and "
			"IPv6 in IPv6 only; use an IPv6 backend\n", h.ifname, name, a->pos[2]);
		goto out;
	}
	err = -ENOMEM;
	all = calloc(XS_MAX_TARGETS, sizeof(*all));
	if (!all)
		goto out;
	err = xs_targets_read(&h, all);
	err = err ?: xs_pool_read(&h, svc.id, &pool);
	if (err)
		goto out;
	if (xs_backend_find(all, svc.id, t.addr) != XS_NO_TARGET) {
		pr_warn("%s: %s is already a backend of %s\n", h.ifname, a->pos[2], name);
		err = -EEXIST;
		goto out;
	}
	for (id = XS_BACKEND_BASE; id < XS_MAX_TARGETS && all[id].kind; id++)
		;
	if (id >= XS_MAX_TARGETS) {
		pr_warn("%s: all %u backends are in use; the limit is XS_MAX_BACKENDS in "
			"include/xdpsteer.h (raise it and rebuild)\n", h.ifname, XS_MAX_BACKENDS);
		err = -ENOSPC;
		goto out;
	}
	/* Weight W is W buckets: the backend's share of new flows is W / total. */
	n = pool.hdr.n_buckets;
	grown = realloc(pool.bucket, (n + weight) * sizeof(*grown));
	if (!grown) {
		err = -ENOMEM;
		goto out;
	}
	pool.bucket = grown;
	for (w = 0; w < weight; w++) {
		__u32 b = xs_pool_pick_bucket(&pool, &t);

		if (b == pool.hdr.n_buckets)
			pool.hdr.n_buckets++;
		pool.bucket[b] = id;
		if (!w)
			t.bucket = b;
	}
	err = xs_pool_check_size(&h, &pool.hdr, pool.hdr.n_buckets);
	if (err)
		goto out;
	t.service = svc.id;
	t.weight = (__u16)weight;
	t.uid = xs_backend_uid();
	t.flags = XS_TARGET_F_ACTIVE;
	err = xs_stats_reset(&h, id) ?: xs_target_write(&h, id, &t);
	err = err ?: xs_pool_publish(&h, svc.id, &pool);
	if (err) {
		struct xs_target none = { 0 };

		xs_target_write(&h, id, &none);
		goto out;
	}
	xs_tx_ports_sync(&h);
	/* Best effort: without it the first packets may take the stack's way. */
	xs_neigh_manage(t.addr, t.family == 4 ? AF_INET : AF_INET6, true);
	printf("%s: %s: added backend %s, weight %u (%u live of %u slots)\n", h.ifname, name,
	       a->pos[2], weight, xs_pool_live(&pool), pool.hdr.n_buckets);
out:
	xs_release(&h, &all, &pool);
	return err;
}

/*
 * Open the attachment, find the service a->pos[1] names and its backend
 * a->pos[2], and read the targets and the service's pool. On success the
 * caller owns *h, *all and *pool; @name receives the service's name.
 */
static int xs_backend_existing(const struct xs_args *a, struct xs_handle *h,
			       struct xs_target **all, struct xs_pool *pool,
			       struct xs_service *svc, __u32 *id, char *name, size_t len)
{
	struct xs_service_key key;
	struct xs_target t;
	int err;

	if (xs_parse_service(a->pos[1], &key) || xs_parse_backend(a->pos[2], &t))
		return -EINVAL;
	err = xs_open(a->pos[0], h);
	if (err)
		return err;
	xs_format_service(&key, name, len);
	err = xs_service_get(h, &key, svc);
	if (err)
		goto fail;
	err = -ENOMEM;
	*all = calloc(XS_MAX_TARGETS, sizeof(**all));
	if (!*all)
		goto fail;
	err = xs_targets_read(h, *all);
	err = err ?: xs_pool_read(h, svc->id, pool);
	if (err)
		goto fail;
	*id = xs_backend_find(*all, svc->id, t.addr);
	if (*id == XS_NO_TARGET) {
		pr_warn("%s: %s is not a backend of %s\n", h->ifname, a->pos[2], name);
		err = -ENOENT;
		goto fail;
	}
	return 0;
fail:
	xs_release(h, all, pool);
	return err;
}

int xs_cmd_backend_del(const struct xs_args *a)
{
	struct xs_target *all = NULL, t, none = { 0 };
	struct xs_pool pool = { 0 };
	struct xs_service svc;
	struct xs_handle h;
	char name[80];
	__u32 id, b;
	int err;

	err = xs_backend_existing(a, &h, &all, &pool, &svc, &id, name, sizeof(name));
	if (err)
		return err;
	t = all[id];
	/* Holes, highest first so a trailing run can shrink the pool. */
	for (b = pool.hdr.n_buckets; b-- > 0;)
		if (pool.bucket[b] == id)
			xs_pool_remove(&pool, b);
	err = xs_pool_publish(&h, svc.id, &pool);
	if (err)
		goto out;
	err = xs_target_write(&h, id, &none);
	if (!err && !xs_backend_addr_used(all, id, t.addr))
		xs_neigh_manage(t.addr, t.family == 4 ? AF_INET : AF_INET6, false);
	if (!err)
		printf("%s: %s: removed backend %s (%u live of %u slots)\n", h.ifname, name,
		       a->pos[2], xs_pool_live(&pool), pool.hdr.n_buckets);
out:
	xs_release(&h, &all, &pool);
	return err;
}

int xs_cmd_service_list(const struct xs_args *a)
{
	bool json = xs_flag(a, "json");
	struct xs_service_entry *sv = NULL;
	struct xs_target *all = NULL;
	struct xs_handle h;
	__u32 n, i, t, nb;
	int err;

	err = xs_open(a->pos[0], &h);
	if (err)
		return err;
	err = -ENOMEM;
	all = calloc(XS_MAX_TARGETS, sizeof(*all));
	if (!all)
		goto out;
	err = xs_targets_read(&h, all) ?: xs_services_list(&h, &sv, &n);
	if (err)
		goto out;
	if (json)
		printf("[");
	for (i = 0; i < n; i++) {
		struct xs_pool pool;
		char name[80], addr[INET6_ADDRSTRLEN], src4[INET_ADDRSTRLEN],
			src6[INET6_ADDRSTRLEN];
		const struct xs_service *s = &sv[i].svc;

		if (xs_pool_read(&h, s->id, &pool)) {
			err = -EIO;
			continue;
		}
		xs_format_service(&sv[i].key, name, sizeof(name));
		inet_ntop(AF_INET, &s->src4, src4, sizeof(src4));
		inet_ntop(AF_INET6, s->src6, src6, sizeof(src6));
		if (json)
			printf("%s{\"service\": \"%s\", \"id\": %u, \"algo\": \"%s\", "
			       "\"hand_size\": %u, \"encap\": \"%s\", \"tunnel_src\": \"%s/%u\", "
			       "\"tunnel_src6\": \"%s/%u\", \"slots\": %u, \"backends\": [",
			       i ? ", " : "", name, s->id,
			       pool.hdr.algo == XS_ALGO_SHUFFLE ? "shuffle" : "jump",
			       pool.hdr.hand_size, s->encap == XS_ENCAP_L2 ? "l2" : "ipip", src4,
			       32 - s->src4_bits, src6, 128 - s->src6_bits, pool.hdr.n_buckets);
		else if (pool.hdr.algo == XS_ALGO_SHUFFLE)
			printf("%s id %u: shuffle (hand %u), %s, %u live of %u slots\n", name,
			       s->id, pool.hdr.hand_size, s->encap == XS_ENCAP_L2 ? "l2" : "ipip",
			       xs_pool_live(&pool), pool.hdr.n_buckets);
		else
			printf("%s id %u: jump, %s, %u live of %u slots\n", name, s->id,
			       s->encap == XS_ENCAP_L2 ? "l2" : "ipip", xs_pool_live(&pool),
			       pool.hdr.n_buckets);
		for (t = XS_BACKEND_BASE, nb = 0; t < XS_MAX_TARGETS; t++) {
			if (all[t].kind != XS_TARGET_BACKEND || all[t].service != s->id)
				continue;
			xs_format_addr(all[t].addr, addr, sizeof(addr));
			if (json)
				printf("%s{\"backend\": \"%s\", \"weight\": %u, \"id\": %u}",
				       nb ? ", " : "", addr, all[t].weight, t);
			else
				printf("  backend %-40s weight %u\n", addr, all[t].weight);
			nb++;
		}
		if (json)
			printf("]}");
		xs_pool_free(&pool);
	}
	if (json)
		printf("]\n");
	else if (!n)
		printf("(no services on %s)\n", h.ifname);
out:
	free(sv);
	free(all);
	xs_close(&h);
	return err;
}

/* backend drain / undrain: no new flows for the backend; its pinned flows stay. */
static int xs_backend_drain(const struct xs_args *a, bool drain)
{
	struct xs_target *all = NULL, t;
	struct xs_pool pool = { 0 };
	struct xs_service svc;
	struct xs_handle h;
	char name[80], what[128];
	__u32 id;
	int err;

	err = xs_backend_existing(a, &h, &all, &pool, &svc, &id, name, sizeof(name));
	if (err)
		return err;
	t = all[id];
	snprintf(what, sizeof(what), "%s backend %s", name, a->pos[2]);
	err = xs_drain_apply(&h, svc.id, &pool, &t, id, drain, what);
	xs_release(&h, &all, &pool);
	return err;
}

int xs_cmd_backend_drain(const struct xs_args *a)
{
	return xs_backend_drain(a, true);
}

int xs_cmd_backend_undrain(const struct xs_args *a)
{
	return xs_backend_drain(a, false);
}
