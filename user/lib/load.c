// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The running state of an attachment as a model (model.h): what `show`
 * prints and what a command edits. Targets come in id order and services in
 * id order, so a state that does not change loads, and prints, the same.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"
#include "pool.h"
#include "service.h"
#include "target.h"

static int xs_load_targets(struct xs_model *m, const struct xs_target *all)
{
	struct xs_target_spec s;
	__u32 id;
	int err;

	for (id = 0; id < XS_BACKEND_BASE; id++) {
		const struct xs_target *t = &all[id];

		if (!(t->flags & XS_TARGET_F_ACTIVE))
			continue;
		memset(&s, 0, sizeof(s));
		s.t.kind = t->kind;
		s.t.cpu = t->cpu;
		s.t.ifindex = t->ifindex;
		s.t.qsize = t->qsize;
		s.drain = t->flags & XS_TARGET_F_DRAIN;
		if (t->kind == XS_TARGET_DEV && !if_indextoname(t->ifindex, s.ifname))
			s.ifname[0] = 0;
		err = xs_model_target_add(m, &s, 0);
		if (err)
			return err;
	}
	return 0;
}

static int xs_load_service(const struct xs_handle *h, struct xs_model *m,
			   const struct xs_service_entry *e, const struct xs_target *all)
{
	struct xs_service_spec s = { .key = e->key, .svc = e->svc };
	struct xs_backend_spec b;
	struct xs_pool pool;
	__u32 id;
	int err;

	err = xs_pool_read(h, e->svc.id, &pool);
	if (err)
		return err;
	s.svc.id = 0; /* ids are the commit's to give */
	s.algo = pool.hdr.algo;
	s.hand_size = pool.hdr.hand_size;
	xs_pool_free(&pool);
	err = xs_model_service_add(m, &s, 0);
	for (id = XS_BACKEND_BASE; !err && id < XS_MAX_TARGETS; id++) {
		const struct xs_target *t = &all[id];

		if (t->kind != XS_TARGET_BACKEND || t->service != e->svc.id)
			continue;
		memset(&b, 0, sizeof(b));
		b.service = e->key;
		b.t.kind = XS_TARGET_BACKEND;
		b.t.family = t->family;
		memcpy(b.t.addr, t->addr, sizeof(b.t.addr));
		b.t.weight = t->weight;
		b.drain = t->flags & XS_TARGET_F_DRAIN;
		err = xs_model_backend_add(m, &b, 0);
	}
	return err;
}

int xs_model_load(const struct xs_handle *h, struct xs_model *m)
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
		err = xs_load_targets(m, all);
	}
	for (i = 0; !err && i < n; i++)
		err = xs_load_service(h, m, &sv[i], all);
	xs_pool_free(&queues);
	free(sv);
	free(all);
	if (err)
		xs_model_free(m);
	return err;
}
