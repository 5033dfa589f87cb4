// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The commit (model.h): plan the model against the running state, print the
 * plan, then write it. Targets become deliverable before a pool names them;
 * every pool and service changes in one transaction (txn.h); a target goes
 * only once no pool names it. A failure before the transaction's flip
 * restores what was written, so nothing of the model is live.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include "check.h"
#include "chance.h"
#include "decide.h"
#include "rodata.h"
#include "log.h"
#include "neigh.h"
#include "plan.h"
#include "stats.h"
#include "target.h"
#include "txn.h"

#define XS_PLAN_SAMPLES 100000

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
		XS_W32(k.src, 2) = XS_W32(k.dst, 2) = htonl(0xffff);
		XS_W32(k.src, 3) = (__be32)r;
		XS_W32(k.dst, 3) = (__be32)(r >> 32);
		r = xs_mix(&s);
		k.sport = (__be16)r;
		k.dport = (__be16)(r >> 16);
		k.proto = (r >> 32) & 1 ? XS_IPPROTO_TCP : XS_IPPROTO_UDP;
		xs_decide(a, NULL, &k, &da);
		xs_decide(b, NULL, &k, &db);
		moved += da.target != db.target;
	}
	return (double)moved / samples;
}

/*
 * What happens to established flows of a pool that changes: pinned, they
 * stay; with no flow table (--flow-table-size 0) only second chance keeps
 * them, for its window, and nothing else does.
 */
static void xs_plan_established(const struct xs_plan_pool *pp, bool table, char *buf,
				size_t len)
{
	if (table)
		snprintf(buf, len, "pinned flows stay");
	else if (pp->id && pp->new_svc.second_chance)
		snprintf(buf, len, "no flow table: established flows are kept by second "
			 "chance for %us", pp->new_svc.chance_window_s);
	else
		snprintf(buf, len, "no flow table: established flows move with them");
}

static void xs_plan_moves(struct xs_plan *pl)
{
	char name[80], established[96];
	__u32 i, entries = 1;
	bool table;

	/* A table that cannot be read is taken as there: the plan claims no less than before. */
	table = xs_flow_table_entries(pl->h, &entries) || entries;
	for (i = 0; i < pl->n; i++) {
		struct xs_plan_pool *pp = &pl->p[i];

		if (!pp->had || !pp->will || xs_pool_same(&pp->old, &pp->new))
			continue;
		if (i)
			xs_format_service(&pp->key, name, sizeof(name));
		else
			snprintf(name, sizeof(name), "queues");
		/* A pool empty before and after (a new seed, say) has no flow to move. */
		if (!xs_pool_live(&pp->old) && !xs_pool_live(&pp->new)) {
			printf("  moves %s: nothing (no targets before or after)\n", name);
			continue;
		}
		if (!xs_pool_live(&pp->old) || !xs_pool_live(&pp->new)) {
			printf("  moves %s: all flows (%s targets before, %u after)\n", name,
			       xs_pool_live(&pp->old) ? "some" : "no", xs_pool_live(&pp->new));
			continue;
		}
		xs_plan_established(pp, table, established, sizeof(established));
		printf("  moves %s: %.2f%% of new flows change target (%u sampled); %s\n", name,
		       100.0 * xs_moved_share(&pp->old, &pp->new, XS_PLAN_SAMPLES),
		       (unsigned int)XS_PLAN_SAMPLES, established);
	}
}

/*
 * Without a flow table, every service the plan adds or changes whose flows
 * nothing keeps gets its warning (service.h), in a dry run too, and in the
 * agent's quiet commits: the same rule for every path a change takes.
 */
static void xs_plan_warn_flows(const struct xs_plan *pl)
{
	__u32 i, entries = 1;

	if (xs_flow_table_entries(pl->h, &entries) || entries)
		return;
	for (i = 1; i < pl->n; i++) {
		const struct xs_plan_pool *pp = &pl->p[i];

		if (!pp->will || xs_service_keeps_flows(&pp->new_svc))
			continue;
		if (pp->had && xs_pool_same(&pp->old, &pp->new) &&
		    xs_service_same(&pp->old_svc, &pp->new_svc))
			continue;
		xs_service_warn_flows(pl->h->ifname, &pp->key, &pp->new_svc);
	}
}

/* The next hop of backend @t (neigh.h). */
static int xs_backend_hop(const struct xs_target *t, struct xs_neigh_hop *hop)
{
	return xs_neigh_hop(t->addr, t->family == 4 ? AF_INET : AF_INET6, hop);
}

/*
 * The next hops the backends that stay in next leave by. A managed
 * neighbour entry is made per next hop, not per backend: backends behind one
 * gateway share the gateway's. A backend with no route needs no entry.
 */
static int xs_hop_users_build(struct xs_plan *pl)
{
	struct xs_neigh_hop hop;
	__u32 id;
	int err = xs_index_init(&pl->hop_users, sizeof(hop));

	for (id = XS_BACKEND_BASE; !err && id < XS_MAX_TARGETS; id++) {
		if (pl->next[id].kind != XS_TARGET_BACKEND || !pl->next[id].active ||
		    xs_backend_hop(&pl->next[id], &hop))
			continue;
		err = xs_index_set(&pl->hop_users, &hop, 1);
	}
	return err;
}

/* Does a backend that stays still need the neighbour entry made for removed backend @t? */
static int xs_hop_used(struct xs_plan *pl, const struct xs_target *t, bool *used)
{
	struct xs_neigh_hop hop;

	*used = false;
	if (!pl->hop_users.cap) {
		int err = xs_hop_users_build(pl);

		if (err)
			return err;
	}
	/* No route: xs_neigh_manage() says so and removes nothing. */
	if (xs_backend_hop(t, &hop))
		return 0;
	*used = xs_index_get(&pl->hop_users, &hop) != XS_INDEX_NONE;
	return 0;
}

/* Is target @id's change one that must wait until the pools no longer name it? */
static bool xs_write_after(const struct xs_target *was, const struct xs_target *will)
{
	if (!will->active)
		return true;
	/* Out of every slot now, the operator's drain or the check's down. */
	return (will->drain || will->down) && was->active && !(was->drain || was->down);
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
		    (!all[id].active || all[id].qsize != next[id].qsize)) {
			err = xs_redirect_set(h, id, &next[id]);
			if (err)
				return err;
		}
		if (!after && !all[id].active) {
			err = xs_stats_reset(h, id);
			if (err)
				return err;
		}
		err = xs_target_write(h, id, &next[id]);
		if (err)
			return err;
		if (after && all[id].active &&
		    !next[id].active) {
			if (id < XS_BACKEND_BASE) {
				xs_redirect_clear(h, id, &all[id]);
			} else {
				err = xs_hop_used(pl, &all[id], &used);
				if (err)
					return err;
				if (!used)
					xs_neigh_manage(all[id].addr,
							all[id].family == 4 ? AF_INET : AF_INET6, false);
			}
		}
		if (!after && id >= XS_BACKEND_BASE && !all[id].active)
			xs_neigh_manage(next[id].addr, next[id].family == 4 ? AF_INET : AF_INET6,
					true);
	}
	return 0;
}

/*
 * Second chance: a service pool about to change keeps the live one for its
 * window (chance.h), before the flip, so that the first packet of the new
 * generation already finds it. Any other service forgets what it kept.
 */
static int xs_apply_chances(struct xs_plan *pl)
{
	__u32 i;
	int err;

	for (i = 1; i < pl->n; i++) {
		struct xs_plan_pool *pp = &pl->p[i];

		if (!pp->will || !pp->new_svc.second_chance) {
			if (pp->had)
				xs_chance_drop(pl->h, pp->id);
			continue;
		}
		if (!pp->had || xs_pool_same(&pp->old, &pp->new))
			continue;
		err = xs_chance_keep(pl->h, pp->id, &pp->old, pl->all, pp->new_svc.chance_window_s);
		if (err)
			return err;
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
		if (!err && i && (!pp->had || !xs_service_same(&pp->old_svc, &pp->new_svc)))
			err = xs_txn_service(t, &pp->key, &pp->new_svc);
	}
	err = err ?: xs_apply_chances(pl);
	if (err) {
		xs_txn_abort(t);
		return err;
	}
	return xs_txn_commit(t);
}

/*
 * The health checks of the services: the agent's, never the data plane's,
 * so written once the pools are live (a check of a service not yet there
 * would be harmless too). A removed service's goes with it.
 */
static int xs_apply_checks(struct xs_plan *pl)
{
	struct xs_check none;
	__u32 i;
	int err = 0;

	xs_check_init(&none);
	for (i = 1; i < pl->n; i++) {
		struct xs_plan_pool *pp = &pl->p[i];
		const struct xs_check *want = pp->will ? &pp->new_check : &none;

		if (!xs_check_same(&pp->old_check, want)) {
			int e = xs_check_put(pl->h, &pp->key, want);

			if (e)
				err = e; /* the last failure; the others are printed */
		}
	}
	return err;
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
		if (id < XS_BACKEND_BASE && !pl->all[id].active)
			xs_redirect_clear(pl->h, id, &pl->next[id]);
		else if (id < XS_BACKEND_BASE && pl->all[id].qsize != pl->next[id].qsize)
			xs_redirect_set(pl->h, id, &pl->all[id]);
	}
}

/*
 * One commit: plan @m against the running state, print the plan, write it.
 * *@again is set when objects wait for a second commit (plan.h): this one
 * freed the ids they name.
 */
static int xs_commit_once(const struct xs_handle *h, const struct xs_model *m,
			  const struct xs_commit_opts *o, bool *again)
{
	struct xs_plan pl = { .h = h, .m = m, .origin = o->origin };
	const char *what = o->origin ?: "the change";
	bool added = false;
	__u32 i;
	int err, e;

	*again = false;
	pl.out = open_memstream(&pl.text, &pl.len);
	if (!pl.out) {
		pr_warn("%s: out of memory for the plan of %s\n", h->ifname, what);
		return -ENOMEM;
	}
	err = xs_plan_build(&pl);
	if (err)
		goto out;
	fflush(pl.out);
	if (o->origin && !o->quiet)
		printf("plan for %s from %s%s:\n%s", h->ifname, o->origin,
		       pl.deferred ? " (first of two steps: free the ids it names)" : "", pl.text);
	else if (!o->quiet)
		printf("%s:\n%s", h->ifname, pl.text);
	if (!pl.changes) {
		if (!o->quiet)
			printf("  no changes\n");
		goto out;
	}
	if (!o->quiet)
		xs_plan_moves(&pl);
	fflush(stdout);
	xs_plan_warn_flows(&pl);
	if (o->dry_run) {
		printf("dry run: %d change%s not applied%s\n", pl.changes,
		       pl.changes == 1 ? "" : "s",
		       pl.deferred ? "; a second step would then place the rest" : "");
		goto out;
	}
	fflush(stdout);
	/* Deliverable first, then visible in one step; out of the pools, then gone. */
	err = xs_apply_targets(&pl, false);
	err = err ?: xs_apply_pools(&pl);
	if (err) {
		xs_apply_targets_undo(&pl);
		pr_warn("%s: nothing of %s was applied\n", h->ifname, what);
		goto out;
	}
	err = xs_apply_targets(&pl, true);
	e = xs_apply_checks(&pl);
	if (e)
		err = e;
	for (i = 0; i < XS_MAX_TARGETS; i++)
		added |= pl.next[i].kind == XS_TARGET_BACKEND && !pl.all[i].kind;
	for (i = 1; i < pl.n; i++)
		added |= pl.p[i].will && !pl.p[i].had;
	if (!err && added)
		xs_tx_ports_sync(h);
	if (err)
		pr_warn("%s: %s is live, but cleaning up after it failed part way; run it "
			"again to finish\n", h->ifname, what);
	else if (!o->quiet)
		printf("applied %d change%s to %s\n", pl.changes, pl.changes == 1 ? "" : "s",
		       h->ifname);
	*again = !err && pl.deferred;
out:
	xs_plan_free(&pl);
	return err;
}

int xs_model_commit(const struct xs_handle *h, const struct xs_model *m,
		    const struct xs_commit_opts *o)
{
	bool again;
	int err = xs_commit_once(h, m, o, &again);

	/* The second step: every id the model names is free, or its own, now. */
	if (!err && again)
		err = xs_commit_once(h, m, o, &again);
	if (!err && again) {
		pr_warn("%s: ids the model names are still held by others after two steps\n",
			h->ifname);
		err = -EAGAIN;
	}
	return err;
}
