// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * What a model backend leaves to the running state (plan.h), decided once
 * before anything is planned:
 *
 * - Its health. Down is the agent's finding (its probes), not something a
 *   file declares: unless the model is the agent's (m->health), a backend
 *   the running state has down stays down, so that `show` fed to `apply`
 *   changes nothing and a file does not bring a dead backend back.
 * - Its slots, when a file lists more than its weight. `show` prints each
 *   backend's slots; an operator who lowers the weight in that output
 *   leaves the old list. When every slot the backend runs with is in the
 *   list, the first WEIGHT listed count and the rest become holes: as
 *   `backend weight` would, only that backend's flows move, and the same
 *   file applied again changes nothing. Any other list longer than the
 *   weight is an error.
 *
 * Each running backend is visited once, and a running pool is read only
 * for a service whose file lists too many slots for a backend.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "endpoint.h"
#include "plan.h"

/*
 * Does running target @id hold only slots @p lists? Then the list is what
 * show printed before its weight was lowered (or since: the first WEIGHT
 * of it are where it runs now), not a place of its own.
 */
static bool xs_keep_runs_there(const struct xs_pool *pool, const struct xs_target *t, __u32 id,
			       const struct xs_place *p)
{
	__u32 k, held = 0;

	if (!pool->bucket || t->drain || t->down)
		return false;
	for (k = 0; k < p->n_slots; k++)
		held += p->slots[k] < pool->hdr.n_buckets && pool->bucket[p->slots[k]] == id;
	return held && held == (t->weight ? t->weight : 1);
}

/* The backends of running service @e that the model keeps (model service @s). */
static int xs_keep_service(struct xs_plan *pl, const struct xs_service_entry *e, __u32 s,
			   bool slots)
{
	const struct xs_model *m = pl->m;
	struct xs_pool pool = { 0 };
	const __u32 *ids;
	__u32 k, n, id;
	int b, err = 0;

	n = xs_group(&pl->running, e->svc.id, &ids);
	if (slots)
		err = xs_pool_read(pl->h, e->svc.id, &pool);
	for (k = 0; k < n && !err; k++) {
		id = XS_BACKEND_BASE + ids[k];
		b = xs_model_find_backend(m, s, pl->all[id].addr);
		if (b < 0)
			continue;
		if (!m->health)
			pl->be_down[b] = pl->all[id].down;
		if (pl->be_slots[b] > m->be[b].s.t.weight &&
		    xs_keep_runs_there(&pool, &pl->all[id], id, &m->be[b].s.place))
			pl->be_slots[b] = m->be[b].s.t.weight;
	}
	xs_pool_free(&pool);
	return err;
}

int xs_plan_keep(struct xs_plan *pl, const struct xs_service_entry *sv, __u32 nsv)
{
	const struct xs_model *m = pl->m;
	char addr[INET6_ADDRSTRLEN];
	bool *too_many = calloc(m->n_svc + 1, sizeof(*too_many)), any = false;
	__u32 i, k;
	int s, err = 0;

	pl->be_down = calloc(m->n_be + 1, sizeof(*pl->be_down));
	pl->be_slots = calloc(m->n_be + 1, sizeof(*pl->be_slots));
	if (!too_many || !pl->be_down || !pl->be_slots) {
		free(too_many);
		return -ENOMEM;
	}
	for (i = 0; i < m->n_be; i++) {
		pl->be_down[i] = m->health && m->be[i].s.down;
		pl->be_slots[i] = m->be[i].s.place.n_slots;
		if (pl->be_slots[i] > m->be[i].s.t.weight)
			any = too_many[m->be[i].service] = true;
	}
	for (k = 0; k < nsv && !err && (any || !m->health); k++) {
		s = xs_model_find_service(m, &sv[k].key);
		if (s >= 0)
			err = xs_keep_service(pl, &sv[k], (__u32)s, too_many[s]);
	}
	for (i = 0; i < m->n_be && !err; i++) {
		const struct xs_backend_spec *b = &m->be[i].s;

		if (pl->be_slots[i] <= b->t.weight)
			continue;
		xs_format_addr(b->t.addr, addr, sizeof(addr));
		xs_plan_err(pl, m->be[i].source, m->be[i].line,
			    "backend %s: %u slots for weight %u, and they are not the slots it "
			    "runs with: list no more slots than its weight (the commit places "
			    "the rest), or leave slots out", addr, b->place.n_slots, b->t.weight);
		err = -EINVAL;
	}
	free(too_many);
	return err;
}
