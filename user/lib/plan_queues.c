// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The plan of the queue pool (plan.h): its settings, and its cpu and dev targets. */
#include <errno.h>
#include <string.h>
#include "log.h"
#include "names.h"
#include "parse.h"
#include "plan.h"
#include "target.h"

int xs_plan_queue_settings(struct xs_plan *pl)
{
	const struct xs_model *m = pl->m;
	struct xs_pool_hdr *o = &pl->p[0].old.hdr, *n = &pl->p[0].new.hdr;
	char a[64], b[64];

	n->algo = m->set.algo;
	n->hand_size = m->set.hand_size;
	n->flow_fields = m->set.flow_fields;
	n->hand_fields = m->set.hand_fields;
	if (m->set.has_seed)
		memcpy(n->seed, m->set.seed, sizeof(n->seed));
	if (o->algo != n->algo)
		xs_plan_say(pl, "~ algo %s -> %s", xs_name_of(xs_algo_names, o->algo), xs_name_of(xs_algo_names, n->algo));
	if (o->hand_size != n->hand_size)
		xs_plan_say(pl, "~ hand-size %u -> %u", o->hand_size, n->hand_size);
	if (o->flow_fields != n->flow_fields) {
		xs_format_fields(o->flow_fields, a, sizeof(a));
		xs_format_fields(n->flow_fields, b, sizeof(b));
		xs_plan_say(pl, "~ hash-fields %s -> %s", a, b);
	}
	if (o->hand_fields != n->hand_fields) {
		xs_format_fields(o->hand_fields, a, sizeof(a));
		xs_format_fields(n->hand_fields, b, sizeof(b));
		xs_plan_say(pl, "~ hand-fields %s -> %s", a, b);
	}
	/* The seed is a secret: a plan may be logged, so it says only that it changes. */
	if (memcmp(o->seed, n->seed, sizeof(o->seed)))
		xs_plan_say(pl, "~ seed: a new key (every pool)");
	return 0;
}

/* The id a queue target from the file has, or gets (as `target add` picks it). */
/*
 * The id model target @i has, or gets: the one its place names; else a
 * cpu's own; else the running one of its interface; else, as `target add`
 * picks it, one no model object names: the one its interface had, a
 * never-used one, any free one.
 */
static __u32 xs_plan_target_id(const struct xs_plan *pl, __u32 i)
{
	const struct xs_target *all = pl->all, *next = pl->next, *t = &pl->m->tgt[i].s.t;
	__u32 id;

	if (pl->m->tgt[i].s.place.id != XS_NO_TARGET)
		return pl->m->tgt[i].s.place.id;
	if (t->kind == XS_TARGET_CPU)
		return t->cpu;
	for (id = XS_DEV_BASE; id < XS_BACKEND_BASE; id++)
		if (all[id].active && all[id].kind == XS_TARGET_DEV &&
		    all[id].ifindex == t->ifindex && !xs_plan_claimed(pl, id))
			return id;
	/* Never an id that is being removed in this same change: its old entry
	 * must stay valid until the pool without it is published. */
#define XS_FREE(i)                                                                            \
	(!all[i].active && !next[i].active &&      \
	 !xs_plan_claimed(pl, i))
	for (id = XS_DEV_BASE; id < XS_BACKEND_BASE; id++)
		if (XS_FREE(id) && all[id].kind == XS_TARGET_DEV && all[id].ifindex == t->ifindex)
			return id;
	for (id = XS_DEV_BASE; id < XS_BACKEND_BASE; id++)
		if (XS_FREE(id) && !all[id].kind && !next[id].kind)
			return id;
	/* Last, one an interface that is gone had: its memory of a slot goes. */
	for (id = XS_DEV_BASE; id < XS_BACKEND_BASE; id++)
		if (XS_FREE(id))
			return id;
#undef XS_FREE
	return XS_NO_TARGET;
}

/*
 * Does the model keep running target @id where it is? Its object must not
 * wait for a second commit, and must name this id, or none that is claimed.
 */
static bool xs_model_keeps_target(const struct xs_plan *pl, __u32 id)
{
	const struct xs_model *m = pl->m;
	const struct xs_target *t = &pl->all[id];
	__u32 i, want;

	for (i = 0; i < m->n_tgt; i++) {
		if (m->tgt[i].s.t.kind != t->kind ||
		    (t->kind == XS_TARGET_CPU ? m->tgt[i].s.t.cpu != t->cpu
					      : m->tgt[i].s.t.ifindex != t->ifindex))
			continue;
		want = m->tgt[i].s.place.id;
		return !pl->defer_tgt[i] &&
		       (want == id || (want == XS_NO_TARGET && !xs_plan_claimed(pl, id)));
	}
	return false;
}

static int xs_plan_queue_targets(struct xs_plan *pl)
{
	struct xs_pool_edit *e = &pl->edit;
	const struct xs_model *m = pl->m;
	struct xs_target *all = pl->all, *next = pl->next;
	char name[64];
	__u32 i, id;
	int err, pass;

	/* Removals first: additions may then fill the holes they leave. */
	for (id = 0; id < XS_BACKEND_BASE; id++) {
		struct xs_target none = { 0 };

		if (!all[id].active || xs_model_keeps_target(pl, id))
			continue;
		xs_edit_shrink(e, id, ~0U);
		none.kind = all[id].kind;
		none.ifindex = all[id].ifindex;
		none.bucket = all[id].bucket;
		next[id] = none;
		xs_target_name(pl->h, &all[id], id, name, sizeof(name));
		xs_plan_say(pl, "- target %s", name);
	}
	/* Then drains, undrains and qsize changes of targets that stay; last the
	 * new ones, in file order, so undrained targets get their buckets back. */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < m->n_tgt; i++) {
			const struct xs_model_target *ct = &m->tgt[i];
			struct xs_target t = ct->s.t;
			bool exists;

			if (pl->defer_tgt[i])
				continue;
			id = xs_plan_target_id(pl, i);
			if (id == XS_NO_TARGET) {
				xs_plan_err(pl, ct->source, ct->line, "target dev %s: all %u dev targets are in use",
					   ct->s.ifname, XS_MAX_DEVS);
				return -ENOSPC;
			}
			pl->tgt_id[i] = id;
			exists = all[id].active;
			if (exists != !pass)
				continue;
			xs_target_name(pl->h, &t, id, name, sizeof(name));
			if (exists) {
				bool was = all[id].drain;

				err = xs_edit_existing(e, &next[id], id, ct->s.drain, 0);
				if (err)
					return err;
				if (was != ct->s.drain)
					xs_plan_say(pl, "~ target %s: %s", name,
						    ct->s.drain ? "drain" : "undrain");
				if (t.kind == XS_TARGET_CPU && next[id].qsize != t.qsize) {
					xs_plan_say(pl, "~ target %s: qsize %u -> %u", name,
						    next[id].qsize, t.qsize);
					next[id].qsize = t.qsize;
				}
				continue;
			}
			t.bucket = all[id].kind == t.kind ? all[id].bucket : XS_NO_TARGET;
			t.active = true;
			t.drain = ct->s.drain;
			t.uid = xs_new_uid();
			if (!ct->s.drain) {
				err = xs_edit_grow(e, &all[id], id, 1);
				if (err)
					return err;
				xs_edit_first_bucket(e, &t, id);
			}
			next[id] = t;
			xs_plan_say(pl, "+ target %s%s", name, ct->s.drain ? " (drained)" : "");
		}
	}
	return 0;
}

int xs_plan_queue(struct xs_plan *pl)
{
	int err = xs_edit_begin(&pl->edit, &pl->p[0].new);

	err = err ?: xs_plan_queue_targets(pl);
	xs_edit_end(&pl->edit);
	return err ?: xs_plan_place(pl, &pl->p[0], -1);
}
