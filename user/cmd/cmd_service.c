// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* service add / del / list: load-balanced VIPs, each with a pool of backends. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include "commands.h"
#include "endpoint.h"
#include "check.h"
#include "health_state.h"
#include "json.h"
#include "names.h"
#include "pool.h"
#include "service.h"
#include "stats.h"
#include "target.h"

int xs_edit_service_add(struct xs_model *m, const struct xs_handle *h,
			       const struct xs_args *a)
{
	struct xs_service_spec s;

	return xs_service_spec_init(&s, a->pos[1]) ?: xs_args_keys(a, xs_service_key, &s) ?:
	       xs_model_service_add(m, &s, 0);
}

int xs_edit_service_del(struct xs_model *m, const struct xs_handle *h,
			       const struct xs_args *a)
{
	struct xs_service_key key;

	return xs_parse_service(a->pos[1], &key) ?: xs_model_service_del(m, &key);
}

int xs_cmd_service_list(const struct xs_args *a)
{
	xs_json *arr = xs_flag(a, XS_OPT_JSON) ? xj_arr() : NULL;
	struct xs_service_entry *sv = NULL;
	struct xs_target *all = NULL;
	struct xs_health_state hs = { 0 };
	struct xs_service_spec sp = { 0 };
	struct xs_target_stats ts;
	struct xs_handle h;
	__u32 n = 0, i, t, *pinned = NULL;
	int err;

	err = xs_open(a->pos[0], &h);
	if (err)
		goto out_json;
	err = -ENOMEM;
	all = calloc(XS_MAX_TARGETS, sizeof(*all));
	pinned = calloc(XS_MAX_TARGETS, sizeof(*pinned));
	if (!all || !pinned)
		goto out;
	/* As ipvsadm -Ln: each backend's weight, state, health and its flows, pinned and open. */
	err = xs_targets_read(&h, all) ?: xs_services_list(&h, &sv, &n) ?:
	      xs_pinned_counts(&h, all, pinned);
	if (err)
		goto out;
	xs_health_read(xs_arg(a, XS_OPT_RUN_DIR), h.ifname, &hs);
	for (i = 0; i < n; i++) {
		struct xs_pool pool;
		char name[80], addr[INET6_ADDRSTRLEN];
		const struct xs_service *s = &sv[i].svc;
		xs_json *o = NULL, *bes = NULL;
		struct xs_check ck;
		char buf2[256];

		if (xs_pool_read(&h, s->id, &pool)) {
			err = -EIO;
			continue;
		}
		xs_format_service(&sv[i].key, name, sizeof(name));
		xs_check_get(&h, &sv[i].key, &ck);
		if (arr) {
			o = xj_obj();
			bes = xj_arr();
			xj_str(o, "service", name);
			xj_u64(o, "id", s->id);
			/* As show --json has them: the pool's algo and hand, the delivery. */
			sp.algo = pool.hdr.algo;
			sp.hand_size = pool.hdr.hand_size;
			sp.svc = *s;
			xs_keys_json(xs_service_keys, &sp, o, offsetof(struct xs_service_spec, svc),
				     offsetof(struct xs_service_spec, slot_count), false);
			xj_u64(o, "slots", pool.hdr.n_buckets);
			xj_u64(o, "live_slots", xs_pool_live(&pool));
			xs_check_get(&h, &sv[i].key, &ck);
			xs_check_format(&ck, buf2, sizeof(buf2));
			xj_str(o, "check", buf2[0] ? buf2 + 1 : "none");
			xj_bool(o, "second_chance", s->second_chance);
			if (s->second_chance)
				xj_u64(o, "second_chance_window_s", s->chance_window_s);
		} else if (pool.hdr.algo == XS_ALGO_SHUFFLE) {
			printf("%s id %u: shuffle (hand %u), %s, %u live of %u slots\n", name,
			       s->id, pool.hdr.hand_size, xs_name_of(xs_encap_names, s->encap),
			       xs_pool_live(&pool), pool.hdr.n_buckets);
		} else {
			printf("%s id %u: jump, %s, %u live of %u slots\n", name, s->id,
			       xs_name_of(xs_encap_names, s->encap), xs_pool_live(&pool),
			       pool.hdr.n_buckets);
		}
		if (!arr && xs_check_format(&ck, buf2, sizeof(buf2)))
			printf("  health:%s\n", buf2);
		for (t = XS_BACKEND_BASE; t < XS_MAX_TARGETS; t++) {
			if (all[t].kind != XS_TARGET_BACKEND || all[t].service != s->id)
				continue;
			err = xs_stats_read(&h, t, &ts, NULL);
			if (err)
				break;
			xs_format_addr(all[t].addr, addr, sizeof(addr));
			if (arr) {
				xs_json *b = xj_obj();

				xj_str(b, "backend", addr);
				xj_u64(b, "weight", all[t].weight);
				xj_u64(b, "id", t);
				xj_bool(b, "draining", all[t].drain);
				xj_u64(b, "pinned", pinned[t]);
				xj_u64(b, "open", xs_stats_load(t, &ts));
				xs_health_json(b, &hs, &sv[i].key, &all[t]);
				xj_push(bes, b);
			} else {
				/* No agent checks it: "unchecked" (down still shows: it is out). */
				xs_health_text(&hs, &sv[i].key, &all[t], buf2, sizeof(buf2));
				printf("  backend %-39s weight %u, %s, %u pinned, %llu open%s\n", addr,
				       all[t].weight, all[t].drain ? "draining" : "active", pinned[t],
				       (unsigned long long)xs_stats_load(t, &ts),
				       buf2[0] ? buf2 : ", health unchecked");
			}
		}
		if (arr) {
			xj_add(o, "backends", bes);
			xj_push(arr, o);
		}
		xs_pool_free(&pool);
	}
	if (arr && !err) {
		err = xs_json_print(a, arr);
		arr = NULL;
	} else if (!arr && !n) {
		printf("(no services on %s)\n", h.ifname);
	}
out:
	xs_health_free(&hs);
	free(sv);
	free(all);
	free(pinned);
	xs_close(&h);
out_json:
	xs_json_drop(arr);
	return err;
}
