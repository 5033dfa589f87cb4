// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * apply: plan, then change. The plan is built on copies (the targets array
 * and each pool), so nothing is written until every pool has been checked.
 * Writes follow the commands' order: a target is deliverable before a pool
 * names it, and a pool stops naming a target before the target goes. All
 * pools and services change in one transaction (txn.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include "apply.h"
#include "parse.h"
#include "decide.h"
#include "index.h"
#include "log.h"
#include "neigh.h"
#include "pool_edit.h"
#include "target.h"
#include "txn.h"

struct xs_plan_pool {
	__u32 id;
	bool had, will;		/* exists before / after */
	struct xs_pool old, new;
	struct xs_service_key key;
	struct xs_service old_svc, new_svc;
	int line;		/* of its service (or settings) in the file */
};

/*
 * Items grouped by a small key (a counting sort), each group in the items'
 * order: group g is item[start[g]] .. item[start[g + 1] - 1].
 */
struct xs_groups {
	__u32 *start, *item;
	__u32 n_groups;
};

struct xs_plan {
	const struct xs_handle *h;
	const struct xs_config *c;
	struct xs_target *all, *next;	/* now, and as the file wants it */
	struct xs_plan_pool *p;		/* p[0] is the queue pool */
	FILE *out;			/* the plan, printed once it is valid */
	char *text;
	size_t len;
	__u32 n;
	int changes;
	/*
	 * What keeps the plan linear in the number of backends: each pool is
	 * edited through an index of its buckets, each service visits only its
	 * own backends (running and in the file), a file backend learns its
	 * running id while its service's running backends are walked, and new
	 * backends take ids from a cursor.
	 */
	struct xs_pool_edit edit;
	struct xs_groups running;	/* running backend ids by service id */
	struct xs_groups in_file;	/* indexes into c->be by index into c->svc */
	__u32 *file_id;			/* per c->be: its running target id, or XS_NO_TARGET */
	__u32 free_backend;		/* no backend id below it is free */
	struct xs_index addr_users;	/* address -> backends in next with it */
};

static void xs_groups_free(struct xs_groups *g)
{
	free(g->start);
	free(g->item);
	memset(g, 0, sizeof(*g));
}

static void xs_plan_free(struct xs_plan *pl)
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
	xs_index_free(&pl->addr_users);
}

/* Group items 0..n-1 by key[item] (XS_NO_TARGET, or n_groups and above: in no group). */
static int xs_groups_build(struct xs_groups *g, __u32 n_groups, const __u32 *key, __u32 n)
{
	__u32 i, *fill;

	g->n_groups = n_groups;
	g->start = calloc(n_groups + 1, sizeof(*g->start));
	g->item = calloc(n ? n : 1, sizeof(*g->item));
	fill = calloc(n_groups + 1, sizeof(*fill));
	if (!g->start || !g->item || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		if (key[i] < n_groups)
			g->start[key[i] + 1]++;
	for (i = 0; i < n_groups; i++)
		g->start[i + 1] += g->start[i];
	memcpy(fill, g->start, (n_groups + 1) * sizeof(*fill));
	for (i = 0; i < n; i++)
		if (key[i] < n_groups)
			g->item[fill[key[i]]++] = i;
	free(fill);
	return 0;
}

/* Items of group @k: *first, and the count. */
static __u32 xs_group(const struct xs_groups *g, __u32 k, const __u32 **first)
{
	*first = g->item;
	if (k >= g->n_groups)
		return 0;
	*first = g->item + g->start[k];
	return g->start[k + 1] - g->start[k];
}

static void xs_plan_say(struct xs_plan *pl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void xs_plan_say(struct xs_plan *pl, const char *fmt, ...)
{
	va_list ap;

	pl->changes++;
	fputs("  ", pl->out);
	va_start(ap, fmt);
	vfprintf(pl->out, fmt, ap);
	va_end(ap);
	fputc('\n', pl->out);
}

static int xs_pool_copy(struct xs_pool *dst, const struct xs_pool *src)
{
	dst->hdr = src->hdr;
	dst->bucket = calloc(src->hdr.n_buckets + 1, sizeof(*dst->bucket));
	if (!dst->bucket)
		return -ENOMEM;
	memcpy(dst->bucket, src->bucket, src->hdr.n_buckets * sizeof(*dst->bucket));
	return 0;
}

static bool xs_pool_same(const struct xs_pool *a, const struct xs_pool *b)
{
	struct xs_pool_hdr x = a->hdr, y = b->hdr;

	x.generation = y.generation = 0;
	return !memcmp(&x, &y, sizeof(x)) &&
	       !memcmp(a->bucket, b->bucket, a->hdr.n_buckets * sizeof(*a->bucket));
}

static void xs_target_first_bucket(const struct xs_pool_edit *e, struct xs_target *t, __u32 id)
{
	__u32 b = xs_edit_first(e, id);

	if (b != XS_NO_TARGET)
		t->bucket = b;
}

static const char *xs_algo_name(__u8 algo)
{
	return algo == XS_ALGO_SHUFFLE ? "shuffle" : "jump";
}

static int xs_plan_queue_settings(struct xs_plan *pl)
{
	const struct xs_config *c = pl->c;
	struct xs_pool_hdr *o = &pl->p[0].old.hdr, *n = &pl->p[0].new.hdr;
	char a[64], b[64];

	n->algo = c->algo;
	n->hand_size = c->hand_size;
	n->flow_fields = c->flow_fields;
	n->hand_fields = c->hand_fields;
	if (c->has_seed)
		memcpy(n->seed, c->seed, sizeof(n->seed));
	if (o->algo != n->algo)
		xs_plan_say(pl, "~ algo %s -> %s", xs_algo_name(o->algo), xs_algo_name(n->algo));
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
	if (memcmp(o->seed, n->seed, sizeof(o->seed)))
		xs_plan_say(pl, "~ seed %016llx%016llx -> %016llx%016llx (every pool)",
			    (unsigned long long)o->seed[0], (unsigned long long)o->seed[1],
			    (unsigned long long)n->seed[0], (unsigned long long)n->seed[1]);
	return 0;
}

/* The id a queue target from the file has, or gets (as `target add` picks it). */
static __u32 xs_plan_target_id(const struct xs_plan *pl, const struct xs_target *t)
{
	const struct xs_target *all = pl->all, *next = pl->next;
	__u32 i;

	if (t->kind == XS_TARGET_CPU)
		return t->cpu;
	for (i = XS_DEV_BASE; i < XS_BACKEND_BASE; i++)
		if ((all[i].flags & XS_TARGET_F_ACTIVE) && all[i].kind == XS_TARGET_DEV &&
		    all[i].ifindex == t->ifindex)
			return i;
	/* Never an id that is being removed in this same change: its old entry
	 * must stay valid until the pool without it is published. */
#define XS_FREE(i) (!(all[i].flags & XS_TARGET_F_ACTIVE) && !(next[i].flags & XS_TARGET_F_ACTIVE))
	for (i = XS_DEV_BASE; i < XS_BACKEND_BASE; i++)
		if (XS_FREE(i) && all[i].kind == XS_TARGET_DEV && all[i].ifindex == t->ifindex)
			return i;
	for (i = XS_DEV_BASE; i < XS_BACKEND_BASE; i++)
		if (XS_FREE(i) && !all[i].kind && !next[i].kind)
			return i;
	for (i = XS_DEV_BASE; i < XS_BACKEND_BASE; i++)
		if (XS_FREE(i) && next[i].kind != XS_TARGET_DEV)
			return i;
#undef XS_FREE
	return XS_NO_TARGET;
}

static bool xs_cfg_has_target(const struct xs_config *c, const struct xs_target *t)
{
	__u32 i;

	for (i = 0; i < c->n_tgt; i++)
		if (c->tgt[i].t.kind == t->kind &&
		    (t->kind == XS_TARGET_CPU ? c->tgt[i].t.cpu == t->cpu
					      : c->tgt[i].t.ifindex == t->ifindex))
			return true;
	return false;
}

/*
 * Apply a desired drain state and weight to existing target @id in the pool
 * @e edits: drain empties its buckets, undrain refills them, a weight change
 * adds or takes buckets. @cur is its descriptor, changed to match.
 */
static int xs_plan_existing(struct xs_pool_edit *e, struct xs_target *cur, __u32 id, bool drain,
			    __u16 weight)
{
	bool was = cur->flags & XS_TARGET_F_DRAIN;
	__u32 wo = cur->weight ? cur->weight : 1, wn = weight ? weight : 1;
	int err = 0;

	if (drain && !was) {
		xs_edit_drain(e, cur, id, true);
		cur->flags |= XS_TARGET_F_DRAIN;
	} else if (!drain && was) {
		cur->weight = weight;
		err = xs_edit_drain(e, cur, id, false);
		cur->flags &= ~XS_TARGET_F_DRAIN;
		xs_target_first_bucket(e, cur, id);
		return err < 0 ? err : 0;
	}
	cur->weight = weight;
	if (!drain && wn > wo)
		err = xs_edit_grow(e, cur, id, wn - wo);
	else if (!drain && wn < wo)
		xs_edit_shrink(e, id, wo - wn);
	if (!drain)
		xs_target_first_bucket(e, cur, id);
	return err;
}

static int xs_plan_queue_targets(struct xs_plan *pl)
{
	struct xs_pool_edit *e = &pl->edit;
	const struct xs_config *c = pl->c;
	struct xs_target *all = pl->all, *next = pl->next;
	char name[64];
	__u32 i, id;
	int err, pass;

	/* Removals first: additions may then fill the holes they leave. */
	for (id = 0; id < XS_BACKEND_BASE; id++) {
		struct xs_target none = { 0 };

		if (!(all[id].flags & XS_TARGET_F_ACTIVE) || xs_cfg_has_target(c, &all[id]))
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
		for (i = 0; i < c->n_tgt; i++) {
			const struct xs_cfg_target *ct = &c->tgt[i];
			struct xs_target t = ct->t;
			bool exists;

			id = xs_plan_target_id(pl, &t);
			if (id == XS_NO_TARGET) {
				xs_cfg_err(c, ct->line, "target dev %s: all %u dev targets are in use",
					   ct->ifname, XS_MAX_DEVS);
				return -ENOSPC;
			}
			exists = all[id].flags & XS_TARGET_F_ACTIVE;
			if (exists != !pass)
				continue;
			xs_target_name(pl->h, &t, id, name, sizeof(name));
			if (exists) {
				bool was = all[id].flags & XS_TARGET_F_DRAIN;

				err = xs_plan_existing(e, &next[id], id, ct->drain, 0);
				if (err)
					return err;
				if (was != ct->drain)
					xs_plan_say(pl, "~ target %s: %s", name,
						    ct->drain ? "drain" : "undrain");
				if (t.kind == XS_TARGET_CPU && next[id].qsize != t.qsize) {
					xs_plan_say(pl, "~ target %s: qsize %u -> %u", name,
						    next[id].qsize, t.qsize);
					next[id].qsize = t.qsize;
				}
				continue;
			}
			t.bucket = all[id].kind == t.kind ? all[id].bucket : XS_NO_TARGET;
			t.flags = XS_TARGET_F_ACTIVE | (ct->drain ? XS_TARGET_F_DRAIN : 0);
			t.uid = xs_new_uid();
			if (!ct->drain) {
				err = xs_edit_grow(e, &all[id], id, 1);
				if (err)
					return err;
				xs_target_first_bucket(e, &t, id);
			}
			next[id] = t;
			xs_plan_say(pl, "+ target %s%s", name, ct->drain ? " (drained)" : "");
		}
	}
	return 0;
}

static int xs_plan_queue(struct xs_plan *pl)
{
	int err = xs_edit_begin(&pl->edit, &pl->p[0].new);

	err = err ?: xs_plan_queue_targets(pl);
	xs_edit_end(&pl->edit);
	return err;
}

static bool xs_svc_same(const struct xs_service *a, const struct xs_service *b)
{
	return a->encap == b->encap && a->src4 == b->src4 && a->src4_bits == b->src4_bits &&
	       !memcmp(a->src6, b->src6, sizeof(a->src6)) && a->src6_bits == b->src6_bits;
}

/*
 * The running backends of pool @pp (in id order) that the file drops go; the
 * ones it keeps tell their file entry their id (the lowest, as
 * xs_backend_find would answer).
 */
static void xs_plan_backends_gone(struct xs_plan *pl, struct xs_plan_pool *pp, int s,
				  const char *svc)
{
	const struct xs_config *c = pl->c;
	struct xs_target *all = pl->all, *next = pl->next;
	char addr[INET6_ADDRSTRLEN];
	const __u32 *ids;
	__u32 k, n, id;
	int i;

	n = pp->had ? xs_group(&pl->running, pp->id, &ids) : 0;
	for (k = 0; k < n; k++) {
		id = XS_BACKEND_BASE + ids[k];
		i = s >= 0 ? xs_cfg_find_backend(c, (__u32)s, all[id].addr) : -1;
		if (i >= 0) {
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
		if (!all[id].kind && !next[id].kind)
			break;
	pl->free_backend = id;
	return id < XS_MAX_TARGETS ? id : XS_NO_TARGET;
}

/* Backends of service pool @pp (file index @s, or -1 when the service goes). */
static int xs_plan_pool_backends(struct xs_plan *pl, struct xs_plan_pool *pp, int s)
{
	const struct xs_config *c = pl->c;
	struct xs_target *all = pl->all, *next = pl->next;
	char svc[80], addr[INET6_ADDRSTRLEN];
	const __u32 *in_file;
	__u32 k, n, id;
	int err;

	xs_format_service(&pp->key, svc, sizeof(svc));
	xs_plan_backends_gone(pl, pp, s, svc);
	n = s >= 0 ? xs_group(&pl->in_file, (__u32)s, &in_file) : 0;
	for (k = 0; k < n; k++) {
		const struct xs_cfg_backend *cb = &c->be[in_file[k]];
		struct xs_target t = cb->t;

		xs_format_addr(t.addr, addr, sizeof(addr));
		id = pl->file_id[in_file[k]];
		if (id != XS_NO_TARGET) {
			bool was = all[id].flags & XS_TARGET_F_DRAIN;

			err = xs_plan_existing(&pl->edit, &next[id], id, cb->drain, t.weight);
			if (err)
				return err;
			if (was != cb->drain)
				xs_plan_say(pl, "~ backend %s %s: %s", svc, addr,
					    cb->drain ? "drain" : "undrain");
			if (all[id].weight != t.weight)
				xs_plan_say(pl, "~ backend %s %s: weight %u -> %u", svc, addr,
					    all[id].weight, t.weight);
			continue;
		}
		id = xs_plan_free_backend(pl);
		if (id == XS_NO_TARGET) {
			xs_cfg_err(c, cb->line, "backend %s: all %u backends are in use", addr,
				   XS_MAX_BACKENDS);
			return -ENOSPC;
		}
		t.service = pp->id;
		t.uid = xs_backend_uid();
		t.flags = XS_TARGET_F_ACTIVE | (cb->drain ? XS_TARGET_F_DRAIN : 0);
		t.bucket = XS_NO_TARGET;
		if (!cb->drain) {
			err = xs_edit_grow(&pl->edit, &t, id, t.weight);
			if (err)
				return err;
			xs_target_first_bucket(&pl->edit, &t, id);
		}
		next[id] = t;
		xs_plan_say(pl, "+ backend %s %s weight %u%s", svc, addr, t.weight,
			    cb->drain ? " (drained)" : "");
	}
	return 0;
}

static int xs_plan_backends(struct xs_plan *pl, struct xs_plan_pool *pp, int s)
{
	int err = xs_edit_begin(&pl->edit, &pp->new);

	err = err ?: xs_plan_pool_backends(pl, pp, s);
	xs_edit_end(&pl->edit);
	return err;
}

static int xs_plan_services(struct xs_plan *pl, const struct xs_service_entry *sv, __u32 nsv)
{
	const struct xs_config *c = pl->c;
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
		pp->had = true;
		err = xs_pool_read(pl->h, pp->id, &pp->old) ?: xs_pool_copy(&pp->new, &pp->old);
		if (err)
			return err;
	}
	for (s = 0; s < c->n_svc; s++) {
		const struct xs_cfg_service *cs = &c->svc[s];
		struct xs_plan_pool *pp = NULL;

		for (i = 1; i < pl->n; i++)
			if (pl->p[i].had && !memcmp(&pl->p[i].key, &cs->key, sizeof(cs->key)))
				pp = &pl->p[i];
		xs_format_service(&cs->key, name, sizeof(name));
		if (!pp) {
			pp = &pl->p[pl->n++];
			pp->key = cs->key;
			/* A pool id free now and not taken by this plan. */
			for (; next_id < XS_MAX_POOLS; next_id++) {
				bool taken = xs_pool_in_use(pl->h, next_id);

				for (i = 1; i < pl->n && !taken; i++)
					taken = pl->p[i].had && pl->p[i].id == next_id;
				if (!taken)
					break;
			}
			if (next_id >= XS_MAX_POOLS) {
				xs_cfg_err(c, cs->line, "service %s: all %u services are in use",
					   name, XS_MAX_SERVICES);
				return -ENOSPC;
			}
			pp->id = next_id++;
			pp->new.bucket = calloc(1, sizeof(*pp->new.bucket));
			if (!pp->new.bucket)
				return -ENOMEM;
			xs_plan_say(pl, "+ service %s (%s, %s)", name, xs_algo_name(cs->algo),
				    cs->svc.encap == XS_ENCAP_L2 ? "l2" : "ipip");
		} else {
			if (pp->old.hdr.algo != cs->algo)
				xs_plan_say(pl, "~ service %s: algo %s -> %s", name,
					    xs_algo_name(pp->old.hdr.algo), xs_algo_name(cs->algo));
			if (pp->old.hdr.hand_size != cs->hand_size)
				xs_plan_say(pl, "~ service %s: hand-size %u -> %u", name,
					    pp->old.hdr.hand_size, cs->hand_size);
			if (!xs_svc_same(&pp->old_svc, &cs->svc))
				xs_plan_say(pl, "~ service %s: encap or tunnel source", name);
		}
		pp->will = true;
		pp->line = cs->line;
		pp->new_svc = cs->svc;
		pp->new_svc.id = pp->id;
		/* One seed and one set of hash fields per interface, as `seed` keeps it. */
		memcpy(pp->new.hdr.seed, q->seed, sizeof(q->seed));
		pp->new.hdr.flow_fields = q->flow_fields;
		pp->new.hdr.hand_fields = q->hand_fields;
		pp->new.hdr.algo = cs->algo;
		pp->new.hdr.hand_size = cs->hand_size;
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

/* A deterministic stream of synthetic flows (splitmix64). */
static __u64 xs_mix(__u64 *s)
{
	__u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Share of @samples synthetic flows that the new pool places elsewhere. */
static double xs_moved_share(const struct xs_pool *a, const struct xs_pool *b, __u32 samples)
{
	struct xs_decision da, db;
	struct xs_flow_key k;
	__u64 s = 0x5eed, r;
	__u32 i, moved = 0;

	for (i = 0; i < samples; i++) {
		memset(&k, 0, sizeof(k));
		r = xs_mix(&s);
		k.src[2] = k.dst[2] = htonl(0xffff);
		k.src[3] = (__be32)r;
		k.dst[3] = (__be32)(r >> 32);
		r = xs_mix(&s);
		k.sport = (__be16)r;
		k.dport = (__be16)(r >> 16);
		k.proto = (r >> 32) & 1 ? IPPROTO_TCP : IPPROTO_UDP;
		xs_decide(a, NULL, &k, &da);
		xs_decide(b, NULL, &k, &db);
		moved += da.target != db.target;
	}
	return (double)moved / samples;
}

static int xs_plan_check_sizes(struct xs_plan *pl)
{
	const struct xs_config *c = pl->c;
	char msg[256];
	__u32 i;
	int err = 0, line;

	for (i = 0; i < pl->n && !err; i++) {
		struct xs_plan_pool *pp = &pl->p[i];

		if (!pp->will)
			continue;
		xs_log_capture(msg, sizeof(msg));
		err = xs_pool_check_size(pl->h, &pp->new.hdr, pp->new.hdr.n_buckets);
		xs_log_capture(NULL, 0);
		if (!err)
			continue;
		line = pp->line;
		if (!i)
			line = c->hand_line ?: (c->n_tgt ? c->tgt[c->n_tgt - 1].line : 1);
		if (i) {
			char name[80];

			xs_format_service(&pp->key, name, sizeof(name));
			xs_cfg_err(c, line, "service %s: %s", name, msg);
		} else {
			xs_cfg_err(c, line, "queue pool: %s", msg);
		}
	}
	return err;
}

static void xs_plan_moves(struct xs_plan *pl)
{
	char name[80];
	__u32 i;

	for (i = 0; i < pl->n; i++) {
		struct xs_plan_pool *pp = &pl->p[i];

		if (!pp->had || !pp->will || xs_pool_same(&pp->old, &pp->new))
			continue;
		if (i)
			xs_format_service(&pp->key, name, sizeof(name));
		else
			snprintf(name, sizeof(name), "queues");
		if (!xs_pool_live(&pp->old) || !xs_pool_live(&pp->new)) {
			printf("  moves %s: all flows (%s targets before, %u after)\n", name,
			       xs_pool_live(&pp->old) ? "some" : "no", xs_pool_live(&pp->new));
			continue;
		}
		printf("  moves %s: %.2f%% of new flows change target (%u sampled); pinned "
		       "flows stay\n", name, 100.0 * xs_moved_share(&pp->old, &pp->new,
								      XS_APPLY_SAMPLES),
		       (unsigned int)XS_APPLY_SAMPLES);
	}
}

/* Backends in next per address: whether a removed backend's address is still someone's. */
static int xs_addr_users_build(struct xs_plan *pl)
{
	__u32 id, n;
	int err = xs_index_init(&pl->addr_users, sizeof(pl->next[0].addr));

	for (id = XS_BACKEND_BASE; !err && id < XS_MAX_TARGETS; id++) {
		if (pl->next[id].kind != XS_TARGET_BACKEND)
			continue;
		n = xs_index_get(&pl->addr_users, pl->next[id].addr);
		err = xs_index_set(&pl->addr_users, pl->next[id].addr,
				   n == XS_INDEX_NONE ? 1 : n + 1);
	}
	return err;
}

/* xs_backend_addr_used(next, @id, @addr): does a backend other than @id have @addr? */
static int xs_addr_used(struct xs_plan *pl, __u32 id, const __be32 *addr, bool *used)
{
	const struct xs_target *self = &pl->next[id];
	__u32 n;

	if (!pl->addr_users.cap) {
		int err = xs_addr_users_build(pl);

		if (err)
			return err;
	}
	n = xs_index_get(&pl->addr_users, addr);
	if (n != XS_INDEX_NONE && self->kind == XS_TARGET_BACKEND &&
	    !memcmp(self->addr, addr, sizeof(self->addr)))
		n--;
	*used = n != XS_INDEX_NONE && n > 0;
	return 0;
}

/* Is target @id's change one that must wait until the pools no longer name it? */
static bool xs_write_after(const struct xs_target *was, const struct xs_target *will)
{
	if (!(will->flags & XS_TARGET_F_ACTIVE))
		return true;
	return (will->flags & XS_TARGET_F_DRAIN) && (was->flags & XS_TARGET_F_ACTIVE) &&
	       !(was->flags & XS_TARGET_F_DRAIN);
}

static int xs_apply_targets(struct xs_plan *pl, bool after)
{
	const struct xs_handle *h = pl->h;
	struct xs_target *all = pl->all, *next = pl->next;
	bool used;
	__u32 id;
	int err;

	for (id = 0; id < XS_MAX_TARGETS; id++) {
		if (!memcmp(&all[id], &next[id], sizeof(all[id])) ||
		    xs_write_after(&all[id], &next[id]) != after)
			continue;
		if (!after && id < XS_BACKEND_BASE &&
		    (!(all[id].flags & XS_TARGET_F_ACTIVE) || all[id].qsize != next[id].qsize)) {
			err = xs_redirect_set(h, id, &next[id]);
			if (err)
				return err;
		}
		if (!after && !(all[id].flags & XS_TARGET_F_ACTIVE)) {
			err = xs_stats_reset(h, id);
			if (err)
				return err;
		}
		err = xs_target_write(h, id, &next[id]);
		if (err)
			return err;
		if (after && (all[id].flags & XS_TARGET_F_ACTIVE) &&
		    !(next[id].flags & XS_TARGET_F_ACTIVE)) {
			if (id < XS_BACKEND_BASE) {
				xs_redirect_clear(h, id, &all[id]);
			} else {
				err = xs_addr_used(pl, id, all[id].addr, &used);
				if (err)
					return err;
				if (!used)
					xs_neigh_manage(all[id].addr,
							all[id].family == 4 ? AF_INET : AF_INET6, false);
			}
		}
		if (!after && id >= XS_BACKEND_BASE && !(all[id].flags & XS_TARGET_F_ACTIVE))
			xs_neigh_manage(next[id].addr, next[id].family == 4 ? AF_INET : AF_INET6,
					true);
	}
	return 0;
}

/*
 * Every pool and service change of the plan, staged in one transaction: the
 * data plane sees all of them at once, or none (txn.h).
 */
static int xs_apply_pools(struct xs_plan *pl)
{
	struct xs_txn *t = xs_txn_begin(pl->h);
	__u32 i;
	int err = 0;

	if (!t)
		return -ENOMEM;
	for (i = 0; !err && i < pl->n; i++) {
		struct xs_plan_pool *pp = &pl->p[i];

		if (!pp->will) {
			if (pp->had)
				err = xs_txn_service_del(t, &pp->key, pp->id);
			continue;
		}
		if (!pp->had || !xs_pool_same(&pp->old, &pp->new))
			err = xs_txn_pool(t, pp->id, &pp->new);
		if (!err && i && (!pp->had || !xs_svc_same(&pp->old_svc, &pp->new_svc)))
			err = xs_txn_service(t, &pp->key, &pp->new_svc);
	}
	if (err) {
		xs_txn_abort(t);
		return err;
	}
	return xs_txn_commit(t);
}

/* A commit that failed left the running pools as they were: so must the targets be. */
static void xs_apply_targets_undo(struct xs_plan *pl)
{
	__u32 id;

	for (id = 0; id < XS_MAX_TARGETS; id++) {
		if (!memcmp(&pl->all[id], &pl->next[id], sizeof(pl->all[id])) ||
		    xs_write_after(&pl->all[id], &pl->next[id]))
			continue;
		xs_target_write(pl->h, id, &pl->all[id]);
		if (id < XS_BACKEND_BASE && !(pl->all[id].flags & XS_TARGET_F_ACTIVE))
			xs_redirect_clear(pl->h, id, &pl->next[id]);
		else if (id < XS_BACKEND_BASE && pl->all[id].qsize != pl->next[id].qsize)
			xs_redirect_set(pl->h, id, &pl->all[id]);
	}
}

/* The indexes that keep the plan linear (struct xs_plan), from the running targets and the file. */
static int xs_plan_index(struct xs_plan *pl)
{
	const struct xs_config *c = pl->c;
	__u32 i, n = XS_MAX_TARGETS - XS_BACKEND_BASE, *key;
	int err;

	key = calloc(n > c->n_be ? n : c->n_be + 1, sizeof(*key));
	pl->file_id = malloc((c->n_be + 1) * sizeof(*pl->file_id));
	if (!key || !pl->file_id) {
		free(key);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const struct xs_target *t = &pl->all[XS_BACKEND_BASE + i];

		key[i] = t->kind == XS_TARGET_BACKEND ? t->service : XS_NO_TARGET;
	}
	err = xs_groups_build(&pl->running, XS_MAX_POOLS, key, n);
	for (i = 0; i < c->n_be; i++) {
		key[i] = c->be[i].service;
		pl->file_id[i] = XS_NO_TARGET;
	}
	err = err ?: xs_groups_build(&pl->in_file, c->n_svc, key, c->n_be);
	free(key);
	pl->free_backend = XS_BACKEND_BASE;
	return err ?: xs_edit_init(&pl->edit);
}

static int xs_plan_build(struct xs_plan *pl)
{
	struct xs_service_entry *sv = NULL;
	__u32 nsv = 0;
	int err;

	pl->all = calloc(XS_MAX_TARGETS, sizeof(*pl->all));
	pl->next = calloc(XS_MAX_TARGETS, sizeof(*pl->next));
	pl->p = calloc(1 + XS_MAX_SERVICES + pl->c->n_svc, sizeof(*pl->p));
	if (!pl->all || !pl->next || !pl->p)
		return -ENOMEM;
	err = xs_targets_read(pl->h, pl->all) ?: xs_services_list(pl->h, &sv, &nsv) ?:
	      xs_plan_index(pl);
	if (err)
		goto out;
	memcpy(pl->next, pl->all, XS_MAX_TARGETS * sizeof(*pl->all));
	pl->n = 1;
	pl->p[0].had = pl->p[0].will = true;
	err = xs_pool_read(pl->h, XS_POOL_QUEUES, &pl->p[0].old) ?:
	      xs_pool_copy(&pl->p[0].new, &pl->p[0].old);
	err = err ?: xs_plan_queue_settings(pl) ?: xs_plan_queue(pl) ?:
	      xs_plan_services(pl, sv, nsv) ?: xs_plan_check_sizes(pl);
out:
	free(sv);
	return err;
}

int xs_apply(const struct xs_handle *h, const struct xs_config *c, bool dry_run)
{
	struct xs_plan pl = { .h = h, .c = c };
	bool added = false;
	__u32 i;
	int err;

	pl.out = open_memstream(&pl.text, &pl.len);
	if (!pl.out)
		return -ENOMEM;
	err = xs_plan_build(&pl);
	if (err)
		goto out;
	fflush(pl.out);
	printf("plan for %s from %s:\n%s", h->ifname, c->file, pl.text);
	if (!pl.changes) {
		printf("  no changes\n");
		goto out;
	}
	xs_plan_moves(&pl);
	if (dry_run) {
		printf("dry run: %d change%s not applied\n", pl.changes, pl.changes == 1 ? "" : "s");
		goto out;
	}
	fflush(stdout);
	/* Deliverable first, then visible in one step; out of the pools, then gone. */
	err = xs_apply_targets(&pl, false);
	err = err ?: xs_apply_pools(&pl);
	if (err) {
		xs_apply_targets_undo(&pl);
		pr_warn("%s: nothing of %s was applied\n", h->ifname, c->file);
		goto out;
	}
	err = xs_apply_targets(&pl, true);
	for (i = 0; i < XS_MAX_TARGETS; i++)
		added |= pl.next[i].kind == XS_TARGET_BACKEND && !pl.all[i].kind;
	for (i = 1; i < pl.n; i++)
		added |= pl.p[i].will && !pl.p[i].had;
	if (!err && added)
		xs_tx_ports_sync(h);
	if (err)
		pr_warn("%s: %s is live, but cleaning up after it failed part way; run it "
			"again to finish\n", h->ifname, c->file);
	else
		printf("applied %d change%s to %s\n", pl.changes, pl.changes == 1 ? "" : "s",
		       h->ifname);
out:
	xs_plan_free(&pl);
	return err;
}
