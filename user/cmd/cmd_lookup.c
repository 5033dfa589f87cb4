// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* lookup: the steering decision for one flow, computed with the kernel's own code. */
#include <errno.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "chance.h"
#include "cli.h"
#include "commands.h"
#include "decide.h"
#include "endpoint.h"
#include "json.h"
#include "log.h"
#include "names.h"
#include "service.h"
#include "handle.h"
#include "pool.h"
#include "stats.h"
#include "target.h"

/*
 * Second chance: the backend the pool kept from before the last change
 * chooses for @key, into *second, when it is not @first (of its family), as
 * the kernel puts it into the hop list (bpf/xs_chance.h). 1 if so, 0 if the
 * flow has one hop, -errno (printed).
 */
static int xs_lookup_second_hop(const struct xs_handle *h, const struct xs_service *svc,
				const struct xs_flow_key *key, const struct xs_target *first,
				struct xs_target *second, __u64 *seconds_left)
{
	struct xs_chance_view view;
	struct xs_decision d;
	int err, rc = 0;

	if (!svc->second_chance || svc->encap != XS_ENCAP_GUE)
		return 0;
	err = xs_chance_read(h, svc->id, &view);
	if (err || !view.open)
		return err;
	*seconds_left = view.seconds_left;
	/* No loads: the kernel takes the previous choice as placed with none. */
	if (xs_pool_live(&view.pool) && !xs_decide(&view.pool, NULL, key, &d) &&
	    !xs_chance_target(h, svc->id, d.target, second) && second->family == first->family &&
	    memcmp(second->addr, first->addr, sizeof(first->addr)))
		rc = 1;
	xs_pool_free(&view.pool);
	return rc;
}

/* Backends named in the message of an empty service before "and N more". */
#define XS_LOOKUP_WHY_MAX 8

/*
 * Why service @svc_id's pool has no live slot, as its targets say: each
 * backend and what keeps it out ("10.0.0.1 down, 10.0.0.2 drained"), or that
 * it has none. A service whose backends are all out does have backends.
 */
static int xs_lookup_why_empty(const struct xs_handle *h, __u32 svc_id, char *buf, size_t len)
{
	struct xs_target *all = calloc(XS_MAX_TARGETS, sizeof(*all));
	char addr[INET6_ADDRSTRLEN];
	__u32 id, n = 0;
	size_t off = 0;
	int err;

	if (!all) {
		pr_warn("%s: out of memory to read xs_targets\n", h->ifname);
		return -ENOMEM;
	}
	err = xs_targets_read(h, all);
	for (id = XS_BACKEND_BASE; !err && id < XS_MAX_TARGETS; id++) {
		const struct xs_target *t = &all[id];

		if (t->kind != XS_TARGET_BACKEND || !t->active || t->service != svc_id)
			continue;
		if (n++ >= XS_LOOKUP_WHY_MAX || off >= len)
			continue;
		xs_format_addr(t->addr, addr, sizeof(addr));
		off += snprintf(buf + off, len - off, "%s%s %s", n > 1 ? ", " : "no live backend: ",
				addr, t->drain && t->down ? "drained and down" : t->drain ? "drained" :
				t->down ? "down" : "in no slot");
	}
	if (!err && n > XS_LOOKUP_WHY_MAX && off < len)
		snprintf(buf + off, len - off, " and %u more", n - XS_LOOKUP_WHY_MAX);
	else if (!err && !n)
		snprintf(buf, len, "the service has no backends");
	free(all);
	return err;
}

int xs_cmd_lookup(const struct xs_args *a)
{
	bool json = xs_flag(a, XS_OPT_JSON), pinned = false;
	struct xs_endpoint src, dst;
	struct xs_flow_key key, flow;
	struct xs_decision d;
	struct xs_flow_pin pin;
	struct xs_pool pool = { 0 };
	struct xs_target t, second = { 0 };
	struct xs_handle h;
	struct xs_service_key sk = { 0 };
	struct xs_service svc;
	__u32 pool_id = XS_POOL_QUEUES;
	__u64 *load = NULL, window_left = 0;
	__u32 target;
	int hops = 0;
	char name[80], ifn[IF_NAMESIZE], hex[24], why[512];
	xs_json *doc, *tgt;
	__u8 proto;
	int err, i;

	if (xs_parse_proto(a->pos[1], &proto) || xs_parse_endpoint(a->pos[2], "source", &src) ||
	    xs_parse_endpoint(a->pos[3], "destination", &dst) ||
	    xs_flow_key_from(proto, &src, &dst, &key))
		return -EINVAL;
	err = xs_open(a->pos[0], &h);
	if (err)
		return err;
	err = -ENOMEM;
	load = calloc(XS_MAX_TARGETS, sizeof(*load));
	if (!load)
		goto out;
	/* A flow to a VIP goes to the service's pool, as in the kernel: exact
	 * port first, then the VIP's any-port service. */
	memcpy(sk.vip, key.dst, sizeof(sk.vip));
	sk.port = key.dport;
	sk.proto = key.proto;
	if (!bpf_map_lookup_elem(h.services_fd, &sk, &svc)) {
		pool_id = svc.id;
	} else {
		sk.port = 0;
		if (!bpf_map_lookup_elem(h.services_fd, &sk, &svc))
			pool_id = svc.id;
	}
	err = xs_pool_read(&h, pool_id, &pool);
	if (err)
		goto out;
	if (!xs_pool_live(&pool)) {
		err = pool_id == XS_POOL_QUEUES ? 0 : xs_lookup_why_empty(&h, pool_id, why,
									  sizeof(why));
		if (err)
			goto out;
		xs_format_service(&sk, name, sizeof(name));
		if (pool_id == XS_POOL_QUEUES)
			pr_warn("%s has no targets: such a packet passes to the stack "
				"(no_targets)\n", h.ifname);
		else
			pr_warn("%s: %s: %s: such a packet passes to the stack (no_backend)\n",
				h.ifname, name, why);
		err = -ENOENT;
		goto out;
	}
	if (pool.hdr.algo == XS_ALGO_SHUFFLE) {
		err = xs_loads_read(&h, &pool, load);
		if (err)
			goto out;
	}
	if (xs_decide(&pool, load, &key, &d)) {
		pr_warn("%s: no live slot for this flow\n", h.ifname);
		err = -ENOENT;
		goto out;
	}
	target = d.target;

	/* A pinned flow keeps its target while that target lives, as in the kernel. */
	xs_flow_pin_key(&flow, &key, pool.hdr.flow_fields, pool_id);
	if (!bpf_map_lookup_elem(h.flows_fd, &flow, &pin) && pin.target < XS_MAX_TARGETS &&
	    !bpf_map_lookup_elem(h.targets_fd, &pin.target, &t) &&
	    t.active && t.uid == pin.uid) {
		pinned = true;
		target = pin.target;
	}
	if (target >= XS_MAX_TARGETS || bpf_map_lookup_elem(h.targets_fd, &target, &t)) {
		pr_warn("%s: slot %u names no target\n", h.ifname, d.bucket);
		err = -ENOENT;
		goto out;
	}
	if (pool_id != XS_POOL_QUEUES && t.kind == XS_TARGET_BACKEND) {
		hops = xs_lookup_second_hop(&h, &svc, &key, &t, &second, &window_left);
		if (hops < 0) {
			err = hops;
			goto out;
		}
	}
	if (!json) {
		char addr[INET6_ADDRSTRLEN];

		xs_target_name(&h, &t, target, name, sizeof(name));
		xs_format_addr(second.addr, addr, sizeof(addr));
		printf("%s%s", name, pinned ? " (pinned flow)" : "");
		if (hops)
			printf(", then %s (second chance, %llu s left)", addr,
			       (unsigned long long)window_left);
		printf("\n");
		goto out;
	}
	doc = xj_obj();
	snprintf(hex, sizeof(hex), "0x%016llx", (unsigned long long)d.flow_hash);
	xj_str(doc, "hash", hex);
	xj_str(doc, "algo", xs_name_of(xs_algo_names, pool.hdr.algo));
	xj_u64(doc, "slots", pool.hdr.n_buckets);
	xj_u64(doc, "slot", d.bucket);
	if (pool.hdr.algo == XS_ALGO_SHUFFLE) {
		xs_json *hand = xj_arr(), *hand_load = xj_arr();

		snprintf(hex, sizeof(hex), "0x%016llx", (unsigned long long)d.hand_hash);
		xj_str(doc, "hand_hash", hex);
		for (i = 0; i < (int)d.hand.n_cards; i++) {
			xj_push(hand, json_object_new_uint64(d.hand.card[i]));
			xj_push(hand_load, json_object_new_uint64(d.load[i]));
		}
		xj_add(doc, "hand", hand);
		xj_add(doc, "hand_load", hand_load);
	}
	tgt = xj_obj();
	if (t.kind == XS_TARGET_CPU) {
		xj_u64(tgt, "cpu", t.cpu);
	} else if (t.kind == XS_TARGET_BACKEND) {
		char addr[INET6_ADDRSTRLEN], sname[80];

		xs_format_addr(t.addr, addr, sizeof(addr));
		xs_format_service(&sk, sname, sizeof(sname));
		xj_str(doc, "service", sname);
		xj_str(tgt, "backend", addr);
		if (svc.second_chance) {
			/* The GUE hop list: this backend, then the previous generation's. */
			xs_json *list = xj_arr();

			xj_push(list, json_object_new_string(addr));
			if (hops) {
				xs_format_addr(second.addr, addr, sizeof(addr));
				xj_push(list, json_object_new_string(addr));
				xj_u64(doc, "second_chance_left_s", window_left);
			}
			xj_add(doc, "hops", list);
		}
	} else {
		xj_str(tgt, "dev", if_indextoname(t.ifindex, ifn) ? ifn : "");
	}
	xj_add(doc, "target", tgt);
	xj_bool(doc, "pinned", pinned);
	err = xs_json_print(a, doc);
out:
	xs_pool_free(&pool);
	free(load);
	xs_close(&h);
	return err;
}
