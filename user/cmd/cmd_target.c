// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* target add / del / drain / undrain / list: queue targets (cpumap CPUs, devmap interfaces). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "commands.h"
#include "json.h"
#include "log.h"
#include "pool.h"
#include "service.h"
#include "target.h"

/*
 * The running target a->pos[1..2] names: "cpu N", "dev IFNAME" or "id N".
 * No online check: a CPU that went offline can still be removed.
 */
static int xs_target_ref(const struct xs_handle *h, const struct xs_args *a, struct xs_target *t)
{
	const char *kind = a->pos[1], *val = a->pos[2];
	__u32 id;
	int ifindex;

	memset(t, 0, sizeof(*t));
	if (!strcmp(kind, "cpu")) {
		t->kind = XS_TARGET_CPU;
		return xs_parse_u32(val, "cpu", 0, XS_MAX_CPUS - 1, &t->cpu);
	}
	if (!strcmp(kind, "dev")) {
		ifindex = xs_ifindex(val);
		if (ifindex < 0)
			return ifindex;
		t->kind = XS_TARGET_DEV;
		t->ifindex = (__u32)ifindex;
		return 0;
	}
	if (strcmp(kind, "id")) {
		pr_warn("target: '%s' is not cpu, dev or id\n", kind);
		return -EINVAL;
	}
	if (xs_parse_u32(val, "target id", 0, XS_BACKEND_BASE - 1, &id))
		return -EINVAL;
	if (bpf_map_lookup_elem(h->targets_fd, &id, t) || !t->active) {
		pr_warn("%s: target id %u is not a target (xdpsteer target list %s shows them)\n",
			h->ifname, id, h->ifname);
		return -ENOENT;
	}
	return 0;
}

int xs_edit_target_add(struct xs_model *m, const struct xs_handle *h,
			      const struct xs_args *a)
{
	struct xs_target_spec s;

	return xs_target_spec_init(&s, a->pos[1], a->pos[2], h->nr_cpus) ?:
	       xs_args_keys(a, xs_target_key, &s) ?: xs_model_target_add(m, &s, 0);
}

int xs_edit_target_del(struct xs_model *m, const struct xs_handle *h,
			      const struct xs_args *a)
{
	struct xs_target t;

	return xs_target_ref(h, a, &t) ?: xs_model_target_del(m, &t);
}

int xs_edit_target_drain(struct xs_model *m, const struct xs_handle *h,
				const struct xs_args *a)
{
	struct xs_target t;

	return xs_target_ref(h, a, &t) ?: xs_model_target_drain(m, &t, true);
}

int xs_edit_target_undrain(struct xs_model *m, const struct xs_handle *h,
				  const struct xs_args *a)
{
	struct xs_target t;

	return xs_target_ref(h, a, &t) ?: xs_model_target_drain(m, &t, false);
}

int xs_cmd_target_list(const struct xs_args *a)
{
	xs_json *arr = xs_flag(a, XS_OPT_JSON) ? xj_arr() : NULL;
	struct xs_pool pool = { 0 };
	struct xs_target *all = NULL;
	struct xs_service_entry *sv = NULL;
	struct xs_handle h;
	char name[64];
	__u32 i, nsv = 0;
	int err;

	err = xs_open(a->pos[0], &h);
	if (err)
		goto out_json;
	err = -ENOMEM;
	all = calloc(XS_MAX_TARGETS, sizeof(*all));
	if (!all)
		goto out;
	err = xs_targets_read(&h, all) ?: xs_pool_read(&h, XS_POOL_QUEUES, &pool);
	if (err)
		goto out;
	/* An empty table is one line that says so, below; no header over nothing. */
	if (!arr && xs_pool_live(&pool))
		printf("%-5s %-6s %-20s %-7s %s\n", "slot", "id", "target", "qsize", "uid");
	for (i = 0; i < pool.hdr.n_buckets; i++) {
		__u32 id = pool.bucket[i];
		const struct xs_target *t = &all[id < XS_MAX_TARGETS ? id : 0];
		char ifn[IF_NAMESIZE];

		if (id == XS_NO_TARGET)
			continue; /* a hole left by a removal */
		if (arr) {
			xs_json *o = xj_obj();

			xj_u64(o, "slot", i);
			xj_u64(o, "id", id);
			if (t->kind == XS_TARGET_CPU) {
				xj_u64(o, "cpu", t->cpu);
				xj_u64(o, "qsize", t->qsize);
			} else {
				xj_str(o, "dev", if_indextoname(t->ifindex, ifn) ? ifn : "");
				xj_u64(o, "ifindex", t->ifindex);
			}
			xj_u64(o, "uid", t->uid);
			xj_push(arr, o);
			continue;
		}
		xs_target_name(&h, t, id, name, sizeof(name));
		if (t->kind == XS_TARGET_CPU)
			printf("%-5u %-6u %-20s %-7u %u\n", i, id, name, t->qsize, t->uid);
		else
			printf("%-5u %-6u %-20s %-7s %u\n", i, id, name, "-", t->uid);
	}
	if (arr) {
		err = xs_json_print(a, arr);
		arr = NULL;
	} else if (!xs_pool_live(&pool)) {
		/*
		 * The program counts what the empty queue pool passes as no_targets,
		 * but as not_vip once there are services (xdpsteer.bpf.c): then it
		 * is traffic for no VIP.
		 */
		err = xs_services_list(&h, &sv, &nsv);
		if (err)
			goto out;
		if (nsv)
			printf("(no queue targets: packets for no service pass to the stack, "
			       "counted as not_vip)\n");
		else
			printf("(no targets: packets pass to the stack, counted as no_targets)\n");
	}
out:
	xs_pool_free(&pool);
	free(all);
	free(sv);
	xs_close(&h);
out_json:
	xs_json_drop(arr);
	return err;
}
