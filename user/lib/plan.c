// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Planning a commit (plan.h): the services and their backends, the checks
 * of whole pools, and the indexes that keep it linear in the number of
 * backends.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "endpoint.h"
#include "log.h"
#include "names.h"
#include "parse.h"
#include "plan.h"
#include "target.h"

void xs_plan_free(struct xs_plan *pl)
{
	__u32 i;

	for (i = 0; pl->p && i < pl->n; i++) {
		xs_pool_free(&pl->p[i].old);
		xs_pool_free(&pl->p[i].new);
	}
	free(pl->p);
	if (pl->out)
		fclose(pl->out);
	free(pl->text);
	free(pl->all);
	free(pl->next);
	xs_edit_free(&pl->edit);
	xs_groups_free(&pl->running);
	xs_groups_free(&pl->in_file);
	free(pl->file_id);
	free(pl->be_id);
	free(pl->tgt_id);
	free(pl->defer_tgt);
	free(pl->defer_be);
	free(pl->be_down);
	free(pl->be_slots);
	xs_index_free(&pl->hop_users);
}

/*
 * The running backends of pool @pp (in id order) that the file drops go; the
 * ones it keeps tell their file entry their id (the lowest, as
 * xs_backend_find would answer).
 */
static void xs_plan_backends_gone(struct xs_plan *pl, struct xs_plan_pool *pp, int s,
				  const char *svc)
{
	const struct xs_model *m = pl->m;
	struct xs_target *all = pl->all, *next = pl->next;
	char addr[INET6_ADDRSTRLEN];
	const __u32 *ids;
	__u32 k, n, id;
	int i;

	n = pp->had ? xs_group(&pl->running, pp->id, &ids) : 0;
	for (k = 0; k < n; k++) {
		id = XS_BACKEND_BASE + ids[k];
		i = s >= 0 ? xs_model_find_backend(m, (__u32)s, all[id].addr) : -1;
		/* Kept where it is unless it waits, or the model places it elsewhere. */
		if (i >= 0 && !pl->defer_be[i] &&
		    (m->be[i].s.place.id == id ||
		     (m->be[i].s.place.id == XS_NO_TARGET && !xs_plan_claimed(pl, id)))) {
			if (pl->file_id[i] == XS_NO_TARGET)
				pl->file_id[i] = id;
			continue;
		}
		xs_edit_shrink(&pl->edit, id, ~0U);
		memset(&next[id], 0, sizeof(next[id]));
		if (s >= 0) {
			xs_format_addr(all[id].addr, addr, sizeof(addr));
			xs_plan_say(pl, "- backend %s %s", svc, addr);
		}
	}
}

/*
 * A free backend id, as a walk from the first would find it. Ids are only
 * ever taken during a plan (a removed backend keeps its id until the pool
 * without it is live), so the walk resumes where the last one stopped.
 */
static __u32 xs_plan_free_backend(struct xs_plan *pl)
{
	const struct xs_target *all = pl->all, *next = pl->next;
	__u32 id;

	for (id = pl->free_backend; id < XS_MAX_TARGETS; id++)
		if (!all[id].kind && !next[id].kind && !xs_plan_claimed(pl, id))
			break;
	pl->free_backend = id;
	return id < XS_MAX_TARGETS ? id : XS_NO_TARGET;
}

/*
 * A backend's flags: the operator's drain and the check's down are kept
 * apart, so that either can end without ending the other.
 */
static void xs_plan_backend_flags(struct xs_target *t, const struct xs_backend_spec *s, bool down)
{
	t->drain = s->drain;
	t->down = down;
}

/* Backends of service pool @pp (file index @s, or -1 when the service goes). */
static int xs_plan_pool_backends(struct xs_plan *pl, struct xs_plan_pool *pp, int s)
{
	const struct xs_model *m = pl->m;
	struct xs_target *all = pl->all, *next = pl->next;
	char svc[80], addr[INET6_ADDRSTRLEN];
	const __u32 *in_file;
	__u32 k, n, id;
	int err;

	xs_format_service(&pp->key, svc, sizeof(svc));
	xs_plan_backends_gone(pl, pp, s, svc);
	n = s >= 0 ? xs_group(&pl->in_file, (__u32)s, &in_file) : 0;
	for (k = 0; k < n; k++) {
		const struct xs_model_backend *cb = &m->be[in_file[k]];
		struct xs_target t = cb->s.t;
		bool down = pl->be_down[in_file[k]];

		if (pl->defer_be[in_file[k]])
			continue;
		xs_format_addr(t.addr, addr, sizeof(addr));
		id = pl->file_id[in_file[k]];
		pl->be_id[in_file[k]] = id;
		if (id != XS_NO_TARGET) {
			bool was = all[id].drain;
			bool was_down = all[id].down;

			/* DRAIN in the edit means "in no slot": the operator's or the check's. */
			next[id].drain = was || was_down;
			err = xs_edit_existing(&pl->edit, &next[id], id, cb->s.drain || down,
					       t.weight);
			if (err)
				return err;
			xs_plan_backend_flags(&next[id], &cb->s, down);
			if (was != cb->s.drain)
				xs_plan_say(pl, "~ backend %s %s: %s", svc, addr,
					    cb->s.drain ? "drain" : "undrain");
			if (was_down != down)
				xs_plan_say(pl, "~ backend %s %s: %s", svc, addr, !down ? "up" :
					    cb->s.redecide ? "down (its flows decided again)" :
					    "down (its flows stay)");
			/* A dead backend's pins name it by uid: a new one sends them elsewhere. */
			if (!was_down && down && cb->s.redecide)
				next[id].uid = xs_backend_uid();
			if (all[id].weight != t.weight)
				xs_plan_say(pl, "~ backend %s %s: weight %u -> %u", svc, addr,
					    all[id].weight, t.weight);
			continue;
		}
		id = cb->s.place.id != XS_NO_TARGET ? cb->s.place.id : xs_plan_free_backend(pl);
		pl->be_id[in_file[k]] = id;
		if (id == XS_NO_TARGET) {
			xs_plan_err(pl, cb->source, cb->line, "backend %s: all %u backends are in use", addr,
				   XS_MAX_BACKENDS);
			return -ENOSPC;
		}
		t.service = pp->id;
		t.uid = xs_backend_uid();
		t.active = true;
		xs_plan_backend_flags(&t, &cb->s, down);
		t.bucket = XS_NO_TARGET;
		if (!cb->s.drain && !down) {
			err = xs_edit_grow(&pl->edit, &t, id, t.weight);
			if (err)
				return err;
			xs_edit_first_bucket(&pl->edit, &t, id);
		}
		next[id] = t;
		xs_plan_say(pl, "+ backend %s %s weight %u%s%s", svc, addr, t.weight,
			    cb->s.drain ? " (drained)" : "", down ? " (down)" : "");
	}
	return 0;
}

static int xs_plan_backends(struct xs_plan *pl, struct xs_plan_pool *pp, int s)
{
	int err = xs_edit_begin(&pl->edit, &pp->new);

	err = err ?: xs_plan_pool_backends(pl, pp, s);
	xs_edit_end(&pl->edit);
	return err ?: (s >= 0 ? xs_plan_place(pl, pp, s) : 0);
}

static int xs_plan_services(struct xs_plan *pl, const struct xs_service_entry *sv, __u32 nsv)
{
	const struct xs_model *m = pl->m;
	const struct xs_pool_hdr *q = &pl->p[0].new.hdr;
	char name[80];
	__u32 i, s, next_id = 1;
	int err;

	/* Services running now: kept (index in the file) or removed. */
	for (i = 0; i < nsv; i++) {
		struct xs_plan_pool *pp = &pl->p[pl->n++];

		pp->id = sv[i].svc.id;
		pp->key = sv[i].key;
		pp->old_svc = sv[i].svc;
		xs_check_get(pl->h, &pp->key, &pp->old_check);
		pp->had = true;
		err = xs_pool_read(pl->h, pp->id, &pp->old) ?: xs_pool_copy(&pp->new, &pp->old);
		if (err)
			return err;
	}
	for (s = 0; s < m->n_svc; s++) {
		const struct xs_model_service *cs = &m->svc[s];
		struct xs_plan_pool *pp = NULL;

		for (i = 1; i < pl->n; i++)
			if (pl->p[i].had && !memcmp(&pl->p[i].key, &cs->s.key, sizeof(cs->s.key)))
				pp = &pl->p[i];
		xs_format_service(&cs->s.key, name, sizeof(name));
		if (!pp) {
			/* The VIP is what clients reach through us; a local one would be ours. */
			if (xs_addr_is_local(cs->s.key.vip)) {
				xs_plan_err(pl, cs->source, cs->line, "service %s: the VIP is an address of this "
					    "host; a VIP must be routed to it, not assigned (backends "
					    "hold it on their loopback)", name);
				return -EINVAL;
			}
			pp = &pl->p[pl->n++];
			pp->key = cs->s.key;
			/* A pool id free now and not taken by this plan. */
			for (; next_id < XS_MAX_POOLS; next_id++) {
				bool taken = xs_pool_in_use(pl->h, next_id);

				for (i = 1; i < pl->n && !taken; i++)
					taken = pl->p[i].had && pl->p[i].id == next_id;
				if (!taken)
					break;
			}
			if (next_id >= XS_MAX_POOLS) {
				xs_plan_err(pl, cs->source, cs->line, "service %s: all %u services are in use",
					   name, XS_MAX_SERVICES);
				return -ENOSPC;
			}
			pp->id = next_id++;
			pp->new.bucket = calloc(1, sizeof(*pp->new.bucket));
			if (!pp->new.bucket)
				return -ENOMEM;
			char set[256];

			xs_plan_service_new(&cs->s, set, sizeof(set));
			xs_plan_say(pl, "+ service %s (%s)", name, set);
		} else {
			if (pp->old.hdr.algo != cs->s.algo)
				xs_plan_say(pl, "~ service %s: algo %s -> %s", name,
					    xs_name_of(xs_algo_names, pp->old.hdr.algo),
					    xs_name_of(xs_algo_names, cs->s.algo));
			if (pp->old.hdr.hand_size != cs->s.hand_size)
				xs_plan_say(pl, "~ service %s: hand-size %u -> %u", name,
					    pp->old.hdr.hand_size, cs->s.hand_size);
			if (!xs_service_same(&pp->old_svc, &cs->s.svc)) {
				char diff[256];

				xs_plan_service_diff(&pp->old_svc, &cs->s.svc, diff, sizeof(diff));
				xs_plan_say(pl, "~ service %s: %s", name, diff);
			}
			if (cs->s.flow_fields != (pp->old.hdr.own_fields
							  ? pp->old.hdr.flow_fields : 0)) {
				char a[64], b[64];

				xs_format_fields(pp->old.hdr.flow_fields, a, sizeof(a));
				xs_format_fields(cs->s.flow_fields ?: q->flow_fields, b, sizeof(b));
				xs_plan_say(pl, "~ service %s: hash-fields %s -> %s%s", name, a, b,
					    cs->s.flow_fields ? "" : " (the interface's)");
			}
		}
		pp->will = true;
		pp->line = cs->line;
		pp->source = cs->source;
		pp->new_svc = cs->s.svc;
		pp->new_svc.id = pp->id;
		pp->new_check = cs->s.check;
		if (!pp->had)
			xs_check_init(&pp->old_check);
		if (!xs_check_same(&pp->old_check, &pp->new_check)) {
			char was[256], ck[256];

			xs_check_format(&pp->old_check, was, sizeof(was));
			xs_check_format(&pp->new_check, ck, sizeof(ck));
			xs_plan_say(pl, "~ service %s: health%s ->%s", name, was[0] ? was : " check none",
				    ck[0] ? ck : " check none");
		}
		/* One seed per interface, as `seed` keeps it; hash fields too, unless
		 * the service has its own (they are its pool's: its pins too). */
		memcpy(pp->new.hdr.seed, q->seed, sizeof(q->seed));
		pp->new.hdr.flow_fields = cs->s.flow_fields ?: q->flow_fields;
		pp->new.hdr.own_fields = cs->s.flow_fields != 0;
		pp->new.hdr.hand_fields = q->hand_fields;
		pp->new.hdr.algo = cs->s.algo;
		pp->new.hdr.hand_size = cs->s.hand_size;
		err = xs_plan_backends(pl, pp, (int)s);
		if (err)
			return err;
	}
	for (i = 1; i < pl->n; i++) {
		if (pl->p[i].had && !pl->p[i].will) {
			xs_format_service(&pl->p[i].key, name, sizeof(name));
			xs_plan_say(pl, "- service %s and its backends", name);
			err = xs_plan_backends(pl, &pl->p[i], -1);
			if (err)
				return err;
		}
	}
	return 0;
}

static int xs_plan_check_sizes(struct xs_plan *pl)
{
	const struct xs_model *m = pl->m;
	char msg[256], what[96];
	__u32 i;
	int err = 0, line;

	for (i = 0; i < pl->n && !err; i++) {
		struct xs_plan_pool *pp = &pl->p[i];

		if (!pp->will)
			continue;
		if (i) {
			snprintf(what, sizeof(what), "service ");
			xs_format_service(&pp->key, what + 8, sizeof(what) - 8);
		} else {
			snprintf(what, sizeof(what), "queue pool");
		}
		xs_log_capture(msg, sizeof(msg));
		err = xs_pool_check_size(what, &pp->new.hdr, pp->new.hdr.n_buckets);
		xs_log_capture(NULL, 0);
		if (!err)
			continue;
		/* The line that set what the pool cannot hold: its service, or the queue pool's hand size. */
		line = pp->line;
		if (!i)
			line = m->hand_line ?: (m->n_tgt ? m->tgt[m->n_tgt - 1].line : 1);
		xs_plan_err(pl, i ? pp->source : NULL, line, "%s", msg);
	}
	return err;
}

/* The indexes that keep the plan linear (struct xs_plan), from the running targets and the file. */
static int xs_plan_index(struct xs_plan *pl)
{
	const struct xs_model *m = pl->m;
	__u32 i, n = XS_MAX_TARGETS - XS_BACKEND_BASE, *key;
	int err;

	key = calloc(n > m->n_be ? n : m->n_be + 1, sizeof(*key));
	pl->file_id = malloc((m->n_be + 1) * sizeof(*pl->file_id));
	pl->be_id = malloc((m->n_be + 1) * sizeof(*pl->be_id));
	pl->tgt_id = malloc((m->n_tgt + 1) * sizeof(*pl->tgt_id));
	if (!key || !pl->file_id || !pl->be_id || !pl->tgt_id) {
		free(key);
		return -ENOMEM;
	}
	memset(pl->be_id, 0xff, (m->n_be + 1) * sizeof(*pl->be_id));
	memset(pl->tgt_id, 0xff, (m->n_tgt + 1) * sizeof(*pl->tgt_id));
	for (i = 0; i < n; i++) {
		const struct xs_target *t = &pl->all[XS_BACKEND_BASE + i];

		key[i] = t->kind == XS_TARGET_BACKEND ? t->service : XS_NO_TARGET;
	}
	err = xs_groups_build(&pl->running, XS_MAX_POOLS, key, n);
	for (i = 0; i < m->n_be; i++) {
		key[i] = m->be[i].service;
		pl->file_id[i] = XS_NO_TARGET;
	}
	err = err ?: xs_groups_build(&pl->in_file, m->n_svc, key, m->n_be);
	free(key);
	pl->free_backend = XS_BACKEND_BASE;
	return err ?: xs_edit_init(&pl->edit);
}

int xs_plan_build(struct xs_plan *pl)
{
	struct xs_service_entry *sv = NULL;
	__u32 nsv = 0;
	int err;

	pl->all = calloc(XS_MAX_TARGETS, sizeof(*pl->all));
	pl->next = calloc(XS_MAX_TARGETS, sizeof(*pl->next));
	pl->p = calloc(1 + XS_MAX_SERVICES + pl->m->n_svc, sizeof(*pl->p));
	if (!pl->all || !pl->next || !pl->p)
		return -ENOMEM;
	err = xs_targets_read(pl->h, pl->all) ?: xs_services_list(pl->h, &sv, &nsv) ?:
	      xs_plan_index(pl) ?: xs_plan_check_loops(pl) ?: xs_plan_keep(pl, sv, nsv) ?:
	      xs_plan_check_places(pl) ?:
	      xs_plan_defer(pl);
	if (err)
		goto out;
	memcpy(pl->next, pl->all, XS_MAX_TARGETS * sizeof(*pl->all));
	pl->n = 1;
	/* Only attach's first commit finds no queue pool: it plans from an empty one. */
	pl->p[0].had = xs_pool_in_use(pl->h, XS_POOL_QUEUES);
	pl->p[0].will = true;
	err = pl->p[0].had ? xs_pool_read(pl->h, XS_POOL_QUEUES, &pl->p[0].old) : 0;
	err = err ?: xs_pool_copy(&pl->p[0].new, &pl->p[0].old);
	err = err ?: xs_plan_queue_settings(pl) ?: xs_plan_queue(pl) ?:
	      xs_plan_services(pl, sv, nsv) ?: xs_plan_check_sizes(pl);
out:
	free(sv);
	return err;
}
