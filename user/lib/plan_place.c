// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Places a model names (plan.h): target ids and slots, as `show` prints
 * them. A pool whose objects name their slots (or whose slot count is
 * given) is built from the model alone, with no regard to the host's
 * history: every host given the same file holds the same pool, bit for bit.
 * Slots a model leaves open are filled lowest hole first, then appended, in
 * model order. Ids are the model's where it names them; one that a running
 * object of another identity holds waits for a second commit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "endpoint.h"
#include "log.h"
#include "plan.h"
#include "xs_holes.h"

bool xs_plan_claimed(const struct xs_plan *pl, __u32 id)
{
	return id < XS_MAX_TARGETS && (pl->m->claimed[id / 64] & (1ULL << (id % 64)));
}

/* The model backend that is running target @id (by service key and address), or -1. */
static int xs_model_backend_of(const struct xs_plan *pl, __u32 id,
			       const struct xs_service_entry *sv, __u32 nsv)
{
	const struct xs_target *t = &pl->all[id];
	__u32 i;
	int s;

	for (i = 0; i < nsv; i++) {
		if (sv[i].svc.id != t->service)
			continue;
		s = xs_model_find_service(pl->m, &sv[i].key);
		return s < 0 ? -1 : xs_model_find_backend(pl->m, (__u32)s, t->addr);
	}
	return -1;
}

/* The model target that is running target @id (a dev, by interface), or -1. */
static int xs_model_target_of(const struct xs_plan *pl, __u32 id)
{
	const struct xs_target *t = &pl->all[id];
	__u32 i;

	for (i = 0; i < pl->m->n_tgt; i++)
		if (pl->m->tgt[i].s.t.kind == t->kind && pl->m->tgt[i].s.t.ifindex == t->ifindex)
			return (int)i;
	return -1;
}

/*
 * Objects whose named id a running object of another identity holds wait,
 * and so does that holder when the model keeps it: the first commit frees
 * the id, the second places them.
 */
int xs_plan_defer(struct xs_plan *pl)
{
	const struct xs_model *m = pl->m;
	struct xs_service_entry *sv = NULL;
	__u32 i, nsv = 0, id;
	int j, err;

	pl->defer_tgt = calloc(m->n_tgt + 1, sizeof(*pl->defer_tgt));
	pl->defer_be = calloc(m->n_be + 1, sizeof(*pl->defer_be));
	if (!pl->defer_tgt || !pl->defer_be)
		return -ENOMEM;
	for (i = 0; i < m->n_tgt; i++) {
		const struct xs_target *t = &m->tgt[i].s.t;

		id = m->tgt[i].s.place.id;
		if (id == XS_NO_TARGET || !pl->all[id].active ||
		    (pl->all[id].kind == t->kind && pl->all[id].ifindex == t->ifindex))
			continue;
		pl->defer_tgt[i] = true;
		j = xs_model_target_of(pl, id);
		if (j >= 0)
			pl->defer_tgt[j] = true;
	}
	err = xs_services_list(pl->h, &sv, &nsv);
	for (i = 0; !err && i < m->n_be; i++) {
		const struct xs_model_backend *b = &m->be[i];

		id = b->s.place.id;
		if (id == XS_NO_TARGET || !pl->all[id].active ||
		    xs_model_backend_of(pl, id, sv, nsv) == (int)i)
			continue;
		pl->defer_be[i] = true;
		j = xs_model_backend_of(pl, id, sv, nsv);
		if (j >= 0)
			pl->defer_be[j] = true;
	}
	free(sv);
	for (i = 0; i < m->n_tgt; i++)
		pl->deferred += pl->defer_tgt[i];
	for (i = 0; i < m->n_be; i++)
		pl->deferred += pl->defer_be[i];
	return err;
}

/* One object of a pool being placed. */
struct xs_member {
	__u32 id;
	bool drain;
	__u32 weight;
	const struct xs_place *place;
	__u32 n_slots;		/* of place->slots, those that count (plan_keep.c) */
	const char *source;
	int line;
};

/* A slot a drained object will return to: no other object may take it meanwhile. */
#define XS_RESERVED (XS_NO_TARGET - 1)

/* Lowest hole of @p from *@cursor on, else a new bucket at the end. */
static __u32 xs_next_free(struct xs_pool *p, __u32 *cursor)
{
	while (*cursor < p->hdr.n_buckets && p->bucket[*cursor] != XS_NO_TARGET)
		(*cursor)++;
	if (*cursor == p->hdr.n_buckets)
		p->hdr.n_buckets++;
	return *cursor;
}

/*
 * Build @p from @mb alone: at least @count slots (a pool keeps its holes),
 * or as many as the highest named slot needs; named slots first (a drained
 * object's kept free for its return), then each object's remaining weight
 * lowest hole first, then appended. With @next, each target's first bucket
 * is set there too.
 */
static int xs_place_members(struct xs_plan *pl, struct xs_pool *p, int line, const char *what,
			    const struct xs_member *mb, __u32 n, __u32 count,
			    struct xs_target *next)
{
	__u32 i, k, b, top = count, cursor = 0, total = 0, *grown;

	for (i = 0; i < n; i++) {
		total += mb[i].drain ? 0 : mb[i].weight;
		for (k = 0; k < mb[i].n_slots; k++)
			top = mb[i].place->slots[k] + 1 > top ? mb[i].place->slots[k] + 1 : top;
	}
	grown = realloc(p->bucket, ((size_t)top + total + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	p->bucket = grown;
	p->hdr.n_buckets = top;
	for (b = 0; b < top; b++)
		p->bucket[b] = XS_NO_TARGET;
	/* Named slots first, so that the open ones fill around them. */
	for (i = 0; i < n; i++) {
		for (k = 0; !mb[i].drain && k < mb[i].n_slots; k++) {
			b = mb[i].place->slots[k];
			if (p->bucket[b] != XS_NO_TARGET) {
				xs_plan_err(pl, mb[i].line ? mb[i].source : NULL, mb[i].line ?: line,
					    "%s: slot %u is named twice", what, b);
				return -EINVAL;
			}
			p->bucket[b] = mb[i].id;
		}
	}
	/* A drained object's return slots are kept free, where no live object holds them. */
	for (i = 0; i < n; i++)
		for (k = 0; mb[i].drain && k < mb[i].n_slots; k++)
			if (p->bucket[mb[i].place->slots[k]] == XS_NO_TARGET)
				p->bucket[mb[i].place->slots[k]] = XS_RESERVED;
	for (i = 0; i < n; i++) {
		for (k = mb[i].drain ? mb[i].weight : mb[i].n_slots; k < mb[i].weight; k++)
			p->bucket[xs_next_free(p, &cursor)] = mb[i].id;
	}
	for (b = 0; b < p->hdr.n_buckets; b++)
		if (p->bucket[b] == XS_RESERVED)
			p->bucket[b] = XS_NO_TARGET;
	for (i = 0; next && i < n; i++) {
		struct xs_target *t = &next[mb[i].id];

		/* The first slot it holds, or (drained) the first it returns to. */
		t->bucket = mb[i].n_slots ? mb[i].place->slots[0] : t->bucket;
		for (b = 0; !mb[i].drain && b < p->hdr.n_buckets; b++)
			if (p->bucket[b] == mb[i].id) {
				t->bucket = b;
				break;
			}
	}
	return 0;
}

/* The members of pool @s (-1: queues) with the ids the plan gave them, or (@any) their index. */
static __u32 xs_plan_members(const struct xs_plan *pl, int s, bool any, struct xs_member *mb,
			     bool *named)
{
	const struct xs_model *m = pl->m;
	__u32 i, n = 0, id;

	*named = false;
	for (i = 0; s < 0 && i < m->n_tgt; i++) {
		id = any ? i : pl->tgt_id[i];
		if (id == XS_NO_TARGET)
			continue;
		mb[n++] = (struct xs_member){ id, m->tgt[i].s.drain, 1, &m->tgt[i].s.place,
					      m->tgt[i].s.place.n_slots, m->tgt[i].source,
					      m->tgt[i].line };
		*named |= m->tgt[i].s.place.n_slots > 0;
	}
	for (i = 0; s >= 0 && i < m->n_be; i++) {
		id = any ? i : pl->be_id[i];
		if (m->be[i].service != (__u32)s || id == XS_NO_TARGET)
			continue;
		mb[n++] = (struct xs_member){ id, m->be[i].s.drain || pl->be_down[i],
					      m->be[i].s.t.weight, &m->be[i].s.place,
					      pl->be_slots[i], m->be[i].source, m->be[i].line };
		*named |= pl->be_slots[i] > 0;
	}
	return n;
}

static void xs_pool_what(const struct xs_model *m, int s, char *buf, size_t len)
{
	if (s < 0) {
		snprintf(buf, len, "queues");
		return;
	}
	snprintf(buf, len, "service ");
	xs_format_service(&m->svc[s].s.key, buf + 8, len - 8);
}

/*
 * The empty slots @count adds to @p, built with it, past the slots its
 * objects need: at most XS_MAX_SPARE_SLOTS (defaults.h says why).
 */
static int xs_check_spare(struct xs_plan *pl, const struct xs_pool *p, int s, int line,
			  const char *what, const struct xs_member *mb, __u32 n, __u32 count)
{
	struct xs_pool bare = { 0 };
	__u32 need;
	int err;

	if (p->hdr.n_buckets <= XS_MAX_SPARE_SLOTS)
		return 0;
	err = xs_place_members(pl, &bare, line, what, mb, n, 0, NULL);
	need = bare.hdr.n_buckets;
	xs_pool_free(&bare);
	if (err || p->hdr.n_buckets - need <= XS_MAX_SPARE_SLOTS)
		return err;
	xs_plan_err(pl, s < 0 ? NULL : pl->m->svc[s].source, line,
		    "%s: slot-count %u leaves %u empty slots past the %u its objects need; a new "
		    "flow whose slot is empty draws %u more times, then walks them one by one "
		    "(about 15 ns each: 1 ms a new flow at 65536), so a slot-count may add at "
		    "most %u: use %u or less", what, count, p->hdr.n_buckets - need, need,
		    XS_HOLE_DRAWS, XS_MAX_SPARE_SLOTS, need + XS_MAX_SPARE_SLOTS);
	return -ERANGE;
}

/*
 * Every pool the model places, built whole from the model before anything
 * is written: a slot named twice, or a pool its algorithm cannot hold, is
 * refused here, not half way through a commit of two steps.
 */
int xs_plan_check_places(struct xs_plan *pl)
{
	const struct xs_model *m = pl->m;
	struct xs_member *mb = calloc((m->n_tgt > m->n_be ? m->n_tgt : m->n_be) + 1, sizeof(*mb));
	struct xs_pool scratch = { 0 };
	char what[96], msg[256];
	__u32 n, count;
	bool named;
	int s, err = 0, line;

	if (!mb)
		return -ENOMEM;
	for (s = -1; !err && s < (int)m->n_svc; s++) {
		n = xs_plan_members(pl, s, true, mb, &named);
		count = s < 0 ? m->set.slot_count : m->svc[s].s.slot_count;
		if (!named && !count && !m->placed)
			continue;
		xs_pool_what(m, s, what, sizeof(what));
		line = s < 0 ? m->hand_line : m->svc[s].line;
		scratch.hdr.algo = s < 0 ? m->set.algo : m->svc[s].s.algo;
		scratch.hdr.hand_size = s < 0 ? m->set.hand_size : m->svc[s].s.hand_size;
		err = xs_place_members(pl, &scratch, line, what, mb, n, count, NULL) ?:
		      xs_check_spare(pl, &scratch, s, line, what, mb, n, count);
		if (err)
			break;
		xs_log_capture(msg, sizeof(msg));
		err = xs_pool_check_size(what, &scratch.hdr, scratch.hdr.n_buckets);
		xs_log_capture(NULL, 0);
		if (err)
			xs_plan_err(pl, s < 0 ? NULL : m->svc[s].source, line, "%s", msg);
	}
	xs_pool_free(&scratch);
	free(mb);
	return err;
}

int xs_plan_place(struct xs_plan *pl, struct xs_plan_pool *pp, int s)
{
	const struct xs_model *m = pl->m;
	struct xs_pool before = { 0 };
	struct xs_member *mb;
	char what[96];
	__u32 n, count;
	bool named;
	int err = 0;

	count = s < 0 ? m->set.slot_count : m->svc[s].s.slot_count;
	mb = calloc((s < 0 ? m->n_tgt : m->n_be) + 1, sizeof(*mb));
	if (!mb)
		return -ENOMEM;
	n = xs_plan_members(pl, s, false, mb, &named);
	if (named || count || m->placed) {
		xs_pool_what(m, s, what, sizeof(what));
		err = xs_pool_copy(&before, &pp->new) ?:
		      xs_place_members(pl, &pp->new, pp->line, what, mb, n, count, pl->next);
		if (!err && !xs_pool_same(&before, &pp->new))
			xs_plan_say(pl, "~ %s: slots as the model places them", what);
		xs_pool_free(&before);
	}
	free(mb);
	return err;
}
