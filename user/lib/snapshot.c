// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* One instant of an interface's counters (snapshot.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include "clock.h"
#include "endpoint.h"
#include "handle.h"
#include "health_state.h"
#include "rodata.h"
#include "log.h"
#include "names.h"
#include "pool.h"
#include "service.h"
#include "snapshot.h"
#include "stats.h"
#include "target.h"

/* Queue targets in slot order, each once; then the draining ones, which hold no slot. */
static int xs_dp_targets(const struct xs_handle *h, const struct xs_target *all,
			 const __u32 *pinned, const struct xs_pool *pool, struct xs_dp_snapshot *s)
{
	bool *seen = calloc(XS_MAX_TARGETS, sizeof(*seen));
	__u32 i, id;
	int err = 0;

	s->targets = calloc(XS_BACKEND_BASE, sizeof(*s->targets));
	if (!seen || !s->targets) {
		free(seen);
		return -ENOMEM;
	}
	for (i = 0; i < pool->hdr.n_buckets + XS_BACKEND_BASE && !err; i++) {
		struct xs_dp_target *t;
		bool in_pool = i < pool->hdr.n_buckets;

		id = in_pool ? pool->bucket[i] : i - pool->hdr.n_buckets;
		if (id >= XS_BACKEND_BASE || seen[id])
			continue; /* a hole, a backend, or a target with several slots */
		if (!in_pool && !(all[id].active && all[id].drain))
			continue;
		seen[id] = true;
		t = &s->targets[s->n_targets++];
		t->id = id;
		t->slot = in_pool ? (int)i : -1;
		t->draining = !in_pool;
		t->pinned = pinned[id];
		xs_target_name(h, &all[id], id, t->name, sizeof(t->name));
		err = xs_stats_read(h, id, &t->st, NULL);
	}
	free(seen);
	return err;
}

/* Every service, and the backends of each, as `stats` lists them. */
static int xs_dp_services(const struct xs_handle *h, const struct xs_target *all,
			  const __u32 *pinned, struct xs_dp_snapshot *s)
{
	struct xs_service_entry *sv = NULL;
	__u32 n, i, t, nb = 0;
	int err;

	err = xs_services_list(h, &sv, &n);
	if (err)
		return err;
	for (t = XS_BACKEND_BASE; t < XS_MAX_TARGETS; t++)
		nb += all[t].kind == XS_TARGET_BACKEND;
	s->services = calloc(n ?: 1, sizeof(*s->services));
	s->backends = calloc(nb ?: 1, sizeof(*s->backends));
	if (!s->services || !s->backends)
		err = -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		struct xs_dp_service *svc = &s->services[s->n_services++];

		svc->id = sv[i].svc.id;
		svc->key = sv[i].key;
		xs_format_service(&sv[i].key, svc->name, sizeof(svc->name));
		err = xs_service_stats_read(h, svc->id, &svc->st);
		for (t = XS_BACKEND_BASE; t < XS_MAX_TARGETS && !err; t++) {
			struct xs_dp_backend *b;

			if (all[t].kind != XS_TARGET_BACKEND || all[t].service != svc->id ||
			    s->n_backends == nb)
				continue;
			b = &s->backends[s->n_backends++];
			b->id = t;
			b->service = svc;
			xs_format_addr(all[t].addr, b->addr, sizeof(b->addr));
			memcpy(b->raw_addr, all[t].addr, sizeof(b->raw_addr));
			b->pinned = pinned[t];
			b->draining = all[t].drain;
			/* As stats says with no agent's file: out of the pool when marked down. */
			b->healthy = !all[t].down;
			b->weight = all[t].weight;
			err = xs_stats_read(h, t, &b->st, NULL);
		}
	}
	free(sv);
	return err;
}

int xs_dp_snapshot_read(const char *ifname, struct xs_dp_snapshot *s)
{
	struct xs_target *all = calloc(XS_MAX_TARGETS, sizeof(*all));
	__u32 *pinned = calloc(XS_MAX_TARGETS, sizeof(*pinned));
	__u32 flow_entries = 0, i;
	struct xs_pool pool = { 0 };
	struct xs_handle h;
	int err;

	memset(s, 0, sizeof(*s));
	if (!all || !pinned) {
		free(all);
		free(pinned);
		return -ENOMEM;
	}
	err = xs_open(ifname, &h);
	if (err)
		goto out_free;
	s->taken_ns = (long long)xs_mono_ns();
	snprintf(s->ifname, sizeof(s->ifname), "%s", h.ifname);
	err = xs_targets_read(&h, all);
	err = err ?: xs_pool_read(&h, XS_POOL_QUEUES, &pool);
	err = err ?: xs_counters_read(&h, s->counters);
	err = err ?: xs_pinned_counts(&h, all, pinned);
	err = err ?: xs_dp_targets(&h, all, pinned, &pool, s);
	err = err ?: xs_dp_services(&h, all, pinned, s);
	if (!err && (err = xs_flow_table_entries(&h, &flow_entries)))
		pr_warn("%s: cannot read xs_flows' size: %s\n", h.ifname, strerror(-err));
	if (!err) {
		for (i = 0; i < XS_MAX_TARGETS; i++)
			s->pinned += pinned[i];
		s->flow_table_size = flow_entries;
		s->slots = pool.hdr.n_buckets;
		s->algo = xs_name_of(xs_algo_names, pool.hdr.algo);
		snprintf(s->digest, sizeof(s->digest), "%08x", pool.hdr.digest);
		snprintf(s->seed_digest, sizeof(s->seed_digest), "%08x",
			 xs_seed_digest(pool.hdr.seed));
	}
	xs_pool_free(&pool);
	xs_close(&h);
out_free:
	free(all);
	free(pinned);
	if (err)
		xs_dp_snapshot_free(s);
	return err;
}

void xs_dp_snapshot_free(struct xs_dp_snapshot *s)
{
	free(s->targets);
	free(s->services);
	free(s->backends);
	memset(s, 0, sizeof(*s));
}

void xs_dp_snapshot_health(struct xs_dp_snapshot *s, const char *dir)
{
	struct xs_health_state st;
	__u32 i;

	if (xs_health_read(dir, s->ifname, &st))
		return;
	for (i = 0; i < s->n_backends; i++) {
		struct xs_dp_backend *b = &s->backends[i];
		const struct xs_health_backend *hb =
			xs_health_find(&st, &b->service->key, b->raw_addr);

		if (!hb)
			continue;
		b->checked = 1;
		b->healthy = hb->state != XS_HEALTH_DOWN;
		b->health_since = hb->since;
		b->probes = hb->probes;
		b->probe_failures = hb->failures;
	}
	xs_health_free(&st);
}
