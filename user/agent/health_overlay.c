// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Health as an overlay on the model the agent commits (health.h). The model
 * (a file's, etcd's, or the running state's) says what should run; the
 * overlay marks what the probes found down, and pins the slots of every
 * backend of a service where one is down or returns, and its pool's slot
 * count, so that the commit moves nothing else (a pool of another size
 * would move flows of every backend) and a returning backend takes back
 * exactly its slots. The model's health is then the probes' (model.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "health.h"
#include "probe.h"

/* Keep @m->be[@i] as it was, for xs_checker_restore. */
static int xs_overlay_save(struct xs_checker *c, const struct xs_model *m, __u32 i)
{
	void *s = realloc(c->saved, (c->n_saved + 1) * sizeof(*c->saved));
	void *x;

	if (!s)
		return -ENOMEM;
	c->saved = s;
	x = realloc(c->saved_idx, (c->n_saved + 1) * sizeof(*c->saved_idx));
	if (!x)
		return -ENOMEM;
	c->saved_idx = x;
	c->saved[c->n_saved] = m->be[i].s;
	c->saved_idx[c->n_saved++] = i;
	return 0;
}

/*
 * Keep the pool of service @svc of @m at the size it runs with, @run's,
 * where the model leaves it to the commit: pinned slots alone would build a
 * pool only as long as the highest of them, dropping the holes above.
 */
static int xs_overlay_count(struct xs_checker *c, const struct xs_model *run,
			    struct xs_model *m, __u32 svc)
{
	int r = xs_model_find_service(run, &m->svc[svc].s.key);
	void *x;

	if (m->svc[svc].s.slot_count || r < 0 || !run->svc[r].s.slot_count)
		return 0;
	x = realloc(c->counted, (c->n_counted + 1) * sizeof(*c->counted));
	if (!x)
		return -ENOMEM;
	c->counted = x;
	c->counted[c->n_counted++] = svc;
	m->svc[svc].s.slot_count = run->svc[r].s.slot_count;
	return 0;
}

/* Does service @svc of @m have a backend whose probe has it down, or coming back? */
static bool xs_overlay_service(const struct xs_checker *c, int ifc, const struct xs_model *m,
			       __u32 svc)
{
	__u32 k;

	for (k = 0; k < c->n; k++) {
		const struct xs_probe *p = c->p[k];

		if (p->ifc == ifc && (p->h.state == XS_HEALTH_DOWN || p->returning) &&
		    !memcmp(&p->h.service, &m->svc[svc].s.key, sizeof(p->h.service)))
			return true;
	}
	return false;
}

/* Where backend @addr of @key sits in the running state @run, or NULL. */
static const struct xs_backend_spec *xs_overlay_running(const struct xs_model *run,
							 const struct xs_service_key *key,
							 const __u8 *addr)
{
	int s = xs_model_find_service(run, key);
	int b = s >= 0 ? xs_model_find_backend(run, (__u32)s, addr) : -1;

	return b >= 0 ? &run->be[b].s : NULL;
}

int xs_checker_overlay(struct xs_checker *c, int ifc, const struct xs_handle *h,
		       struct xs_model *m)
{
	struct xs_model run;
	bool loaded = false;
	__u32 i, k;
	int err = 0;

	c->n_saved = 0;
	c->n_counted = 0;
	m->health = true;
	for (i = 0; i < m->n_be && !err; i++) {
		struct xs_backend_spec *s = &m->be[i].s;
		const struct xs_backend_spec *r;
		struct xs_probe *p = NULL;

		for (k = 0; k < c->n && !p; k++)
			if (c->p[k]->ifc == ifc &&
			    !memcmp(&c->p[k]->h.service, &s->service, sizeof(s->service)) &&
			    !memcmp(c->p[k]->h.addr, s->t.addr, sizeof(s->t.addr)))
				p = c->p[k];
		if (!p && !s->down)
			continue;
		if (!p || !xs_overlay_service(c, ifc, m, m->be[i].service)) {
			/* Up, in a service with nothing down: as the model says. */
			if (s->down) {
				err = xs_overlay_save(c, m, i);
				s->down = false;
			}
			continue;
		}
		if (!loaded) {
			err = xs_model_load(h, &run, true);
			if (err)
				break;
			loaded = true;
		}
		err = xs_overlay_save(c, m, i) ?: xs_overlay_count(c, &run, m, m->be[i].service);
		r = xs_overlay_running(&run, &s->service, s->t.addr);
		s->down = p->h.state == XS_HEALTH_DOWN;
		s->redecide = s->down && p->ck.on_down == XS_DOWN_REDECIDE;
		/* Where it sits now, before the commit that takes it out. */
		if (s->down && !p->place && r && !r->down && !r->drain &&
		    r->place.n_slots == r->t.weight) {
			p->place = malloc(sizeof(*p->place));
			if (p->place)
				*p->place = r->place;
		}
		if (s->drain || s->place.n_slots)
			continue; /* the operator's drain, or the model's own slots */
		if (p->place && p->place->n_slots == s->t.weight)
			s->place = *p->place;
		else if (r && r->place.n_slots && (s->down || r->place.n_slots == s->t.weight))
			s->place = r->place;
	}
	if (loaded)
		xs_model_free(&run);
	return err;
}

void xs_checker_restore(struct xs_checker *c, struct xs_model *m)
{
	m->health = false;
	while (c->n_counted)
		m->svc[c->counted[--c->n_counted]].s.slot_count = 0;
	while (c->n_saved) {
		c->n_saved--;
		m->be[c->saved_idx[c->n_saved]].s = c->saved[c->n_saved];
	}
}

void xs_checker_committed(struct xs_checker *c, int ifc, bool ok)
{
	__u32 k;

	c->changed[ifc] = false;
	for (k = 0; ok && k < c->n; k++) {
		struct xs_probe *p = c->p[k];

		if (p->ifc == ifc && p->returning) {
			p->returning = false;
			free(p->place);
			p->place = NULL;
		}
	}
}
