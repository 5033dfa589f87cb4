// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The model's objects and their edits (model.h); the keys that set them are in spec.c. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "check.h"
#include "endpoint.h"
#include "log.h"
#include "model.h"
#include "names.h"
#include "service.h"

/* Key of be_by_addr: a backend is one address of one service. */
struct xs_be_key {
	__u32 service;
	__be32 addr[4];
};

static void xs_be_key(struct xs_be_key *k, __u32 svc, const __u8 *addr)
{
	memset(k, 0, sizeof(*k));
	k->service = svc;
	memcpy(k->addr, addr, sizeof(k->addr));
}

int xs_model_init(struct xs_model *m)
{
	memset(m, 0, sizeof(*m));
	xs_settings_init(&m->set);
	m->claimed = calloc(XS_MAX_TARGETS / 64 + 1, sizeof(*m->claimed));
	if (!m->claimed || xs_index_init(&m->svc_by_key, sizeof(struct xs_service_key)) ||
	    xs_index_init(&m->be_by_addr, sizeof(struct xs_be_key))) {
		xs_model_free(m);
		pr_warn("out of memory for a model\n");
		return -ENOMEM;
	}
	return 0;
}

void xs_model_free(struct xs_model *m)
{
	free(m->tgt);
	free(m->svc);
	free(m->be);
	free(m->claimed);
	xs_index_free(&m->svc_by_key);
	xs_index_free(&m->be_by_addr);
	memset(m, 0, sizeof(*m));
}

_Static_assert(offsetof(struct xs_target_spec, place.slots) + sizeof(struct xs_place) -
		       offsetof(struct xs_place, slots) == sizeof(struct xs_target_spec),
	       "a target spec ends with its slots");
_Static_assert(offsetof(struct xs_backend_spec, place.slots) + sizeof(struct xs_place) -
		       offsetof(struct xs_place, slots) == sizeof(struct xs_backend_spec),
	       "a backend spec ends with its slots");

/* A spec whose last member is its place: the fixed part, then the slots in use only. */
static void xs_copy_spec(void *dst, const void *src, size_t fixed, __u32 n_slots)
{
	memcpy(dst, src, fixed + n_slots * sizeof(__u32));
}

/* Room for one more of @n elements of @size in *@arr of capacity *@cap. */
static int xs_grow(void **arr, __u32 *cap, __u32 n, size_t size)
{
	__u32 want = *cap ? 2 * *cap : 16;
	void *p;

	if (n < *cap)
		return 0;
	p = realloc(*arr, want * size);
	if (!p) {
		pr_warn("out of memory for a model\n");
		return -ENOMEM;
	}
	*arr = p;
	*cap = want;
	return 0;
}

int xs_model_find_service(const struct xs_model *m, const struct xs_service_key *key)
{
	struct xs_service_key k;
	__u32 i;

	/* Keys are compared as bytes: copy into a zeroed key. */
	memset(&k, 0, sizeof(k));
	memcpy(k.vip, key->vip, sizeof(k.vip));
	k.port = key->port;
	k.proto = key->proto;
	i = xs_index_get(&m->svc_by_key, &k);
	return i == XS_INDEX_NONE ? -1 : (int)i;
}

int xs_model_find_backend(const struct xs_model *m, __u32 svc, const __u8 *addr)
{
	struct xs_be_key k;
	__u32 i;

	xs_be_key(&k, svc, addr);
	i = xs_index_get(&m->be_by_addr, &k);
	return i == XS_INDEX_NONE ? -1 : (int)i;
}

/* The indexes anew, after a removal renumbered the arrays. */
static int xs_model_reindex(struct xs_model *m)
{
	struct xs_be_key k;
	__u32 i;
	int err;

	xs_index_free(&m->svc_by_key);
	xs_index_free(&m->be_by_addr);
	err = xs_index_init(&m->svc_by_key, sizeof(struct xs_service_key)) ?:
	      xs_index_init(&m->be_by_addr, sizeof(struct xs_be_key));
	for (i = 0; !err && i < m->n_svc; i++)
		err = xs_index_set(&m->svc_by_key, &m->svc[i].s.key, i);
	for (i = 0; !err && i < m->n_be; i++) {
		xs_be_key(&k, m->be[i].service, m->be[i].s.t.addr);
		err = xs_index_set(&m->be_by_addr, &k, i);
	}
	if (err)
		pr_warn("out of memory for a model\n");
	return err;
}

void xs_model_settings(struct xs_model *m, const struct xs_settings *s)
{
	struct xs_settings old = m->set;

	m->set = *s;
	if (s->has_seed)
		return;
	memcpy(m->set.seed, old.seed, sizeof(old.seed));
	m->set.has_seed = old.has_seed;
}

/* Claim target id @p->id for one object: two objects never name the same id. */
static int xs_claim(struct xs_model *m, const struct xs_place *p, const char *what)
{
	__u32 id = p->id;

	if (id == XS_NO_TARGET)
		return 0;
	if (m->claimed[id / 64] & (1ULL << (id % 64))) {
		pr_warn("%s: id %u is already another object's\n", what, id);
		return -EEXIST;
	}
	m->claimed[id / 64] |= 1ULL << (id % 64);
	return 0;
}

static void xs_unclaim(struct xs_model *m, const struct xs_place *p)
{
	if (p->id != XS_NO_TARGET)
		m->claimed[p->id / 64] &= ~(1ULL << (p->id % 64));
}

/* Where an object was declared: "line 3" in the source being read, else "FILE:3". */
static const char *xs_where(const struct xs_model *m, const char *source, int line, char *buf,
			    size_t len)
{
	if (source == m->source || !source)
		snprintf(buf, len, "line %d", line);
	else
		snprintf(buf, len, "%s:%d", source, line);
	return buf;
}

static bool xs_same_target(const struct xs_target *a, const struct xs_target *b)
{
	return a->kind == b->kind &&
	       (a->kind == XS_TARGET_CPU ? a->cpu == b->cpu : a->ifindex == b->ifindex);
}

static int xs_model_find_target(const struct xs_model *m, const struct xs_target *t)
{
	__u32 i;

	for (i = 0; i < m->n_tgt; i++)
		if (xs_same_target(&m->tgt[i].s.t, t))
			return (int)i;
	return -1;
}

/* "cpu 1", "dev eth2": how a queue target is named in messages. */
static const char *xs_spec_name(const struct xs_target_spec *s, char *buf, size_t len)
{
	if (s->t.kind == XS_TARGET_CPU)
		snprintf(buf, len, "cpu %u", s->t.cpu);
	else
		snprintf(buf, len, "dev %s", s->ifname[0] ? s->ifname : "(gone)");
	return buf;
}

int xs_model_target_add(struct xs_model *m, const struct xs_target_spec *s, int line)
{
	int i = xs_model_find_target(m, &s->t);
	char name[IF_NAMESIZE + 8], where[300];

	if (i >= 0) {
		xs_spec_name(s, name, sizeof(name));
		if (m->tgt[i].line)
			pr_warn("target %s is already declared at %s\n", name,
				xs_where(m, m->tgt[i].source, m->tgt[i].line, where, sizeof(where)));
		else
			pr_warn("target %s is already a target\n", name);
		return -EEXIST;
	}
	snprintf(where, sizeof(where), "target %s", xs_spec_name(s, name, sizeof(name)));
	if (xs_grow((void **)&m->tgt, &m->cap_tgt, m->n_tgt, sizeof(*m->tgt)) ||
	    xs_claim(m, &s->place, where))
		return -EINVAL;
	xs_copy_spec(&m->tgt[m->n_tgt].s, s, offsetof(struct xs_target_spec, place.slots),
		     s->place.n_slots);
	m->tgt[m->n_tgt].source = m->source;
	m->tgt[m->n_tgt++].line = line;
	return 0;
}

/* The target @t names (kind, and cpu or ifindex); -ENOENT printed when it is not one. */
static int xs_model_target_get(const struct xs_model *m, const struct xs_target *t)
{
	struct xs_target_spec s = { .t = *t };
	char name[IF_NAMESIZE + 8];
	int i = xs_model_find_target(m, t);

	if (i >= 0)
		return i;
	if (t->kind == XS_TARGET_DEV && !if_indextoname(t->ifindex, s.ifname))
		s.ifname[0] = 0;
	pr_warn("%s is not a target (target list shows them)\n", xs_spec_name(&s, name, sizeof(name)));
	return -ENOENT;
}

int xs_model_target_del(struct xs_model *m, const struct xs_target *t)
{
	int i = xs_model_target_get(m, t);

	if (i < 0)
		return i;
	xs_unclaim(m, &m->tgt[i].s.place);
	memmove(&m->tgt[i], &m->tgt[i + 1], (m->n_tgt - (__u32)i - 1) * sizeof(*m->tgt));
	m->n_tgt--;
	return 0;
}

static int xs_drain_flag(bool *flag, bool drain, const char *what)
{
	if (*flag == drain) {
		pr_warn("%s is %s draining\n", what, drain ? "already" : "not");
		return -EALREADY;
	}
	*flag = drain;
	return 0;
}

int xs_model_target_drain(struct xs_model *m, const struct xs_target *t, bool drain)
{
	char name[IF_NAMESIZE + 16], what[IF_NAMESIZE + 24];
	int i = xs_model_target_get(m, t);

	if (i < 0)
		return i;
	snprintf(what, sizeof(what), "target %s", xs_spec_name(&m->tgt[i].s, name, sizeof(name)));
	return xs_drain_flag(&m->tgt[i].s.drain, drain, what);
}

int xs_model_service_add(struct xs_model *m, const struct xs_service_spec *s, int line)
{
	int i = xs_model_find_service(m, &s->key);
	char name[80], where[300];

	xs_format_service(&s->key, name, sizeof(name));
	if (i >= 0) {
		if (m->svc[i].line)
			pr_warn("service %s is already declared at %s\n", name,
				xs_where(m, m->svc[i].source, m->svc[i].line, where, sizeof(where)));
		else
			pr_warn("service %s already exists\n", name);
		return -EEXIST;
	}
	if (xs_check_validate(&s->check, s->check_given, &s->key))
		return -EINVAL;
	if (m->n_svc >= XS_MAX_SERVICES) {
		pr_warn("service %s: all %u services are in use; the limit is XS_MAX_SERVICES in "
			"include/xdpsteer.h (raise it and rebuild)\n", name, XS_MAX_SERVICES);
		return -ENOSPC;
	}
	if (s->svc.second_chance && s->svc.encap != XS_ENCAP_GUE) {
		pr_warn("service %s: second-chance needs encap gue (the hop list travels in the "
			"GUE header)\n", name);
		return -EINVAL;
	}
	if (xs_grow((void **)&m->svc, &m->cap_svc, m->n_svc, sizeof(*m->svc)))
		return -ENOMEM;
	m->svc[m->n_svc].s = *s;
	m->svc[m->n_svc].line = line;
	m->svc[m->n_svc].source = m->source;
	if (xs_index_set(&m->svc_by_key, &m->svc[m->n_svc].s.key, m->n_svc)) {
		pr_warn("out of memory for a model\n");
		return -ENOMEM;
	}
	m->n_svc++;
	return 0;
}

/* The service @key names; -ENOENT printed when there is none. */
static int xs_model_service_get(const struct xs_model *m, const struct xs_service_key *key,
				const char *what)
{
	int i = xs_model_find_service(m, key);
	char name[80];

	if (i >= 0)
		return i;
	xs_format_service(key, name, sizeof(name));
	pr_warn("%sno service %s (declare it first: a 'service %s' line above, or "
		"`xdpsteer service add`)\n", what, name, name);
	return -ENOENT;
}

int xs_model_service_del(struct xs_model *m, const struct xs_service_key *key)
{
	int s = xs_model_service_get(m, key, "");
	__u32 i, kept = 0;

	if (s < 0)
		return s;
	for (i = 0; i < m->n_be; i++) {
		if (m->be[i].service == (__u32)s) {
			xs_unclaim(m, &m->be[i].s.place);
			continue;
		}
		m->be[kept] = m->be[i];
		m->be[kept].service -= m->be[kept].service > (__u32)s;
		kept++;
	}
	m->n_be = kept;
	memmove(&m->svc[s], &m->svc[s + 1], (m->n_svc - (__u32)s - 1) * sizeof(*m->svc));
	m->n_svc--;
	return xs_model_reindex(m);
}

static bool xs_vip_is_v4(const struct xs_service_key *key)
{
	return !XS_W32C(key->vip, 0) && !XS_W32C(key->vip, 1) && XS_W32C(key->vip, 2) == htonl(0xffff);
}

int xs_model_backend_add(struct xs_model *m, const struct xs_backend_spec *s, int line)
{
	char name[80], addr[INET6_ADDRSTRLEN], what[INET6_ADDRSTRLEN + 16], where[300];
	struct xs_be_key k;
	int svc, i;

	xs_format_addr(s->t.addr, addr, sizeof(addr));
	snprintf(what, sizeof(what), "backend %s: ", addr);
	svc = xs_model_service_get(m, &s->service, what);
	if (svc < 0)
		return svc;
	xs_format_service(&s->service, name, sizeof(name));
	if (m->svc[svc].s.svc.encap == XS_ENCAP_IPIP && !xs_vip_is_v4(&s->service) &&
	    s->t.family == 4) {
		pr_warn("backend %s: %s is IPv6 and the backend IPv4: ipip carries IPv6 in IPv6 "
			"only; use an IPv6 backend\n", addr, name);
		return -EINVAL;
	}
	i = xs_model_find_backend(m, (__u32)svc, s->t.addr);
	if (i >= 0) {
		if (m->be[i].line)
			pr_warn("backend %s of %s is already declared at %s\n", addr, name,
				xs_where(m, m->be[i].source, m->be[i].line, where, sizeof(where)));
		else
			pr_warn("backend %s is already a backend of %s\n", addr, name);
		return -EEXIST;
	}
	/* More slots than weight: shown output whose weight was lowered, or an error (plan_keep.c). */
	if (m->n_be >= XS_MAX_BACKENDS) {
		pr_warn("backend %s: all %u backends are in use; the limit is XS_MAX_BACKENDS in "
			"include/xdpsteer.h (raise it and rebuild)\n", addr, XS_MAX_BACKENDS);
		return -ENOSPC;
	}
	snprintf(what, sizeof(what), "backend %s", addr);
	if (xs_grow((void **)&m->be, &m->cap_be, m->n_be, sizeof(*m->be)) ||
	    xs_claim(m, &s->place, what))
		return -EINVAL;
	xs_copy_spec(&m->be[m->n_be].s, s, offsetof(struct xs_backend_spec, place.slots),
		     s->place.n_slots);
	/* Slots without a weight: the backend holds as many as it lists. */
	if (!s->weight_set && s->place.n_slots)
		m->be[m->n_be].s.t.weight = (__u16)s->place.n_slots;
	m->be[m->n_be].service = (__u32)svc;
	m->be[m->n_be].line = line;
	m->be[m->n_be].source = m->source;
	xs_be_key(&k, (__u32)svc, s->t.addr);
	if (xs_index_set(&m->be_by_addr, &k, m->n_be)) {
		pr_warn("out of memory for a model\n");
		return -ENOMEM;
	}
	m->n_be++;
	return 0;
}

/* The backend @addr of service @key; -ENOENT printed when it is not one. */
static int xs_model_backend_get(const struct xs_model *m, const struct xs_service_key *key,
				const __u8 *addr)
{
	char name[80], a[INET6_ADDRSTRLEN];
	int svc = xs_model_service_get(m, key, ""), i;

	if (svc < 0)
		return svc;
	i = xs_model_find_backend(m, (__u32)svc, addr);
	if (i >= 0)
		return i;
	xs_format_service(key, name, sizeof(name));
	xs_format_addr(addr, a, sizeof(a));
	pr_warn("%s is not a backend of %s (service list shows them)\n", a, name);
	return -ENOENT;
}

int xs_model_backend_del(struct xs_model *m, const struct xs_service_key *key,
			 const __u8 *addr)
{
	int i = xs_model_backend_get(m, key, addr);

	if (i < 0)
		return i;
	xs_unclaim(m, &m->be[i].s.place);
	memmove(&m->be[i], &m->be[i + 1], (m->n_be - (__u32)i - 1) * sizeof(*m->be));
	m->n_be--;
	return xs_model_reindex(m);
}

int xs_model_backend_drain(struct xs_model *m, const struct xs_service_key *key,
			   const __u8 *addr, bool drain)
{
	char name[80], a[INET6_ADDRSTRLEN], what[200];
	int i = xs_model_backend_get(m, key, addr);

	if (i < 0)
		return i;
	xs_format_service(key, name, sizeof(name));
	xs_format_addr(addr, a, sizeof(a));
	snprintf(what, sizeof(what), "backend %s of %s", a, name);
	return xs_drain_flag(&m->be[i].s.drain, drain, what);
}

int xs_model_backend_weight(struct xs_model *m, const struct xs_service_key *key,
			    const __u8 *addr, __u16 weight)
{
	int i = xs_model_backend_get(m, key, addr);

	if (i < 0)
		return i;
	if (weight < 1 || weight > XS_MAX_WEIGHT) {
		pr_warn("weight: %u is not from 1 to %u\n", weight, XS_MAX_WEIGHT);
		return -EINVAL;
	}
	m->be[i].s.t.weight = weight;
	m->be[i].s.weight_set = true;
	if (m->be[i].s.place.n_slots > weight)
		m->be[i].s.place.n_slots = weight;
	return 0;
}

/* The lowest id in [@lo, @hi) no object names, claimed for @p; XS_NO_TARGET when none is left. */
static void xs_claim_lowest(struct xs_model *m, struct xs_place *p, __u32 lo, __u32 hi)
{
	__u32 id;

	for (id = lo; id < hi; id++) {
		if (m->claimed[id / 64] & (1ULL << (id % 64)))
			continue;
		p->id = id;
		m->claimed[id / 64] |= 1ULL << (id % 64);
		return;
	}
}

void xs_model_canonical(struct xs_model *m)
{
	__u32 i;

	for (i = 0; i < m->n_tgt; i++)
		if (m->tgt[i].s.t.kind == XS_TARGET_DEV && m->tgt[i].s.place.id == XS_NO_TARGET)
			xs_claim_lowest(m, &m->tgt[i].s.place, XS_DEV_BASE, XS_BACKEND_BASE);
	for (i = 0; i < m->n_be; i++)
		if (m->be[i].s.place.id == XS_NO_TARGET)
			xs_claim_lowest(m, &m->be[i].s.place, XS_BACKEND_BASE, XS_MAX_TARGETS);
	m->placed = true;
}
