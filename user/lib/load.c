// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The running state of an attachment as a model (model.h): what a command
 * edits and, with the places of its objects, what `show` prints. Targets
 * come in id order and services in id order, so a state that does not
 * change loads, and prints, the same.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "model.h"
#include "pool.h"
#include "service.h"
#include "target.h"

/*
 * Where target @id sits in @pool: its id, and the buckets it holds. A
 * drained target holds none; the bucket it held first is where it returns.
 */
static void xs_load_place(struct xs_place *p, const struct xs_pool *pool, const __u32 *first,
			  const __u32 *next, const struct xs_target *t, __u32 id)
{
	__u32 b;

	p->id = id;
	p->n_slots = 0;
	for (b = first[id]; b != XS_NO_TARGET && p->n_slots < XS_MAX_WEIGHT; b = next[b])
		p->slots[p->n_slots++] = b;
	/* Drained: where it returns, as long as that slot is still a hole (xs_pool_pick_bucket). */
	if (!p->n_slots && (t->drain || t->down) && t->bucket < pool->hdr.n_buckets &&
	    pool->bucket[t->bucket] == XS_NO_TARGET)
		p->slots[p->n_slots++] = t->bucket;
}

/* Each target's buckets of @pool, as lists: first[id], then next[bucket]. */
static int xs_load_buckets(const struct xs_pool *pool, __u32 **first, __u32 **next)
{
	__u32 b, n = pool->hdr.n_buckets;

	*first = malloc(XS_MAX_TARGETS * sizeof(**first));
	*next = malloc((n + 1) * sizeof(**next));
	if (!*first || !*next)
		return -ENOMEM;
	memset(*first, 0xff, XS_MAX_TARGETS * sizeof(**first));
	for (b = n; b-- > 0;) {
		__u32 t = pool->bucket[b];

		if (t >= XS_MAX_TARGETS)
			continue;
		(*next)[b] = (*first)[t];
		(*first)[t] = b;
	}
	return 0;
}

static int xs_load_targets(struct xs_model *m, const struct xs_target *all,
			   const struct xs_pool *pool, bool placed)
{
	__u32 *first = NULL, *next = NULL, id;
	struct xs_target_spec s;
	int err = placed ? xs_load_buckets(pool, &first, &next) : 0;

	for (id = 0; !err && id < XS_BACKEND_BASE; id++) {
		const struct xs_target *t = &all[id];

		if (!t->active)
			continue;
		memset(&s, 0, offsetof(struct xs_target_spec, place.slots));
		s.t.kind = t->kind;
		s.t.cpu = t->cpu;
		s.t.ifindex = t->ifindex;
		s.t.qsize = t->qsize;
		s.drain = t->drain;
		if (t->kind == XS_TARGET_DEV && !if_indextoname(t->ifindex, s.ifname))
			s.ifname[0] = 0;
		s.place.id = XS_NO_TARGET;
		if (placed)
			xs_load_place(&s.place, pool, first, next, t, id);
		/* A cpu's id is the cpu: only a dev's is worth naming. */
		if (t->kind == XS_TARGET_CPU)
			s.place.id = XS_NO_TARGET;
		err = xs_model_target_add(m, &s, 0);
	}
	free(first);
	free(next);
	return err;
}

static int xs_load_service(const struct xs_handle *h, struct xs_model *m,
			   const struct xs_service_entry *e, const struct xs_target *all, bool placed)
{
	struct xs_service_spec s = { .key = e->key, .svc = e->svc };
	__u32 *first = NULL, *next = NULL, id;
	struct xs_backend_spec b;
	struct xs_pool pool;
	int err;

	err = xs_pool_read(h, e->svc.id, &pool);
	if (err)
		return err;
	s.svc.id = 0; /* ids are the commit's to give */
	xs_check_get(h, &e->key, &s.check);
	s.algo = pool.hdr.algo;
	s.hand_size = pool.hdr.hand_size;
	s.flow_fields = pool.hdr.own_fields ? pool.hdr.flow_fields : 0;
	if (placed)
		s.slot_count = pool.hdr.n_buckets;
	err = placed ? xs_load_buckets(&pool, &first, &next) : 0;
	err = err ?: xs_model_service_add(m, &s, 0);
	for (id = XS_BACKEND_BASE; !err && id < XS_MAX_TARGETS; id++) {
		const struct xs_target *t = &all[id];

		if (t->kind != XS_TARGET_BACKEND || t->service != e->svc.id)
			continue;
		memset(&b, 0, offsetof(struct xs_backend_spec, place.slots));
		b.service = e->key;
		b.t.kind = XS_TARGET_BACKEND;
		b.t.family = t->family;
		memcpy(b.t.addr, t->addr, sizeof(b.t.addr));
		b.t.weight = t->weight;
		b.weight_set = true;
		b.drain = t->drain;
		b.down = t->down;
		b.place.id = XS_NO_TARGET;
		if (placed)
			xs_load_place(&b.place, &pool, first, next, t, id);
		err = xs_model_backend_add(m, &b, 0);
	}
	free(first);
	free(next);
	xs_pool_free(&pool);
	return err;
}

int xs_model_load(const struct xs_handle *h, struct xs_model *m, bool placed)
{
	struct xs_service_entry *sv = NULL;
	struct xs_pool queues = { 0 };
	struct xs_target *all;
	__u32 i, n = 0;
	int err;

	err = xs_model_init(m);
	if (err)
		return err;
	all = calloc(XS_MAX_TARGETS, sizeof(*all));
	if (!all) {
		xs_model_free(m);
		return -ENOMEM;
	}
	err = xs_targets_read(h, all) ?: xs_pool_read(h, XS_POOL_QUEUES, &queues) ?:
	      xs_services_list(h, &sv, &n);
	if (!err) {
		memcpy(m->set.seed, queues.hdr.seed, sizeof(m->set.seed));
		m->set.has_seed = true;
		m->set.algo = queues.hdr.algo;
		m->set.hand_size = queues.hdr.hand_size;
		m->set.flow_fields = queues.hdr.flow_fields;
		m->set.hand_fields = queues.hdr.hand_fields;
		if (placed)
			m->set.slot_count = queues.hdr.n_buckets;
		err = xs_load_targets(m, all, &queues, placed);
	}
	for (i = 0; !err && i < n; i++)
		err = xs_load_service(h, m, &sv[i], all, placed);
	xs_pool_free(&queues);
	free(sv);
	free(all);
	if (err)
		xs_model_free(m);
	return err;
}
