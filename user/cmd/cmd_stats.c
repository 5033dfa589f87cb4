// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* stats: per-target packets, bytes and queue load, and per-reason counters. */
#include <errno.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "log.h"
#include "names.h"
#include "service.h"
#include "handle.h"
#include "pool.h"
#include "stats.h"
#include "target.h"


/* @slot < 0: the target is draining and holds no slot. */
static void xs_print_target(const struct xs_handle *h, const struct xs_target *t, __u32 id,
			    int slot, __u32 pinned, const struct xs_target_stats *sum,
			    const struct xs_target_stats *pc, bool json, bool per_cpu, bool first)
{
	char name[64], ifn[IF_NAMESIZE], slotname[16];
	int cpu;

	if (!json) {
		xs_target_name(h, t, id, name, sizeof(name));
		if (slot < 0)
			snprintf(slotname, sizeof(slotname), "drain");
		else
			snprintf(slotname, sizeof(slotname), "%d", slot);
		printf("%-5s %-18s %12llu %14llu %9llu %12llu %9llu %8u\n", slotname, name,
		       (unsigned long long)sum->packets, (unsigned long long)sum->bytes,
		       (unsigned long long)xs_stats_load(id, sum), (unsigned long long)sum->dequeued,
		       (unsigned long long)sum->dropped, pinned);
		for (cpu = 0; per_cpu && cpu < h->nr_cpus; cpu++)
			printf("      on cpu %-9d %12llu %14llu %9s %12llu %9llu\n", cpu,
			       (unsigned long long)pc[cpu].packets,
			       (unsigned long long)pc[cpu].bytes, "",
			       (unsigned long long)pc[cpu].dequeued,
			       (unsigned long long)pc[cpu].dropped);
		return;
	}
	if (slot < 0)
		printf("%s{\"slot\": null, \"draining\": true, \"id\": %u, ", first ? "" : ", ", id);
	else
		printf("%s{\"slot\": %d, \"draining\": false, \"id\": %u, ", first ? "" : ", ",
		       slot, id);
	printf("\"pinned\": %u, ", pinned);
	if (t->kind == XS_TARGET_CPU)
		printf("\"cpu\": %u, ", t->cpu);
	else
		printf("\"dev\": \"%s\", ", if_indextoname(t->ifindex, ifn) ? ifn : "");
	printf("\"packets\": %llu, \"bytes\": %llu, \"load\": %llu, \"dequeued\": %llu, "
	       "\"dropped\": %llu",
	       (unsigned long long)sum->packets, (unsigned long long)sum->bytes,
	       (unsigned long long)xs_stats_load(id, sum), (unsigned long long)sum->dequeued,
	       (unsigned long long)sum->dropped);
	if (per_cpu) {
		printf(", \"per_cpu\": [");
		for (cpu = 0; cpu < h->nr_cpus; cpu++)
			printf("%s{\"cpu\": %d, \"packets\": %llu, \"bytes\": %llu, "
			       "\"dequeued\": %llu, \"dropped\": %llu}",
			       cpu ? ", " : "", cpu, (unsigned long long)pc[cpu].packets,
			       (unsigned long long)pc[cpu].bytes,
			       (unsigned long long)pc[cpu].dequeued,
			       (unsigned long long)pc[cpu].dropped);
		printf("]");
	}
	printf("}");
}

/* Per service: its counters, then each backend's. */
static int xs_print_services(const struct xs_handle *h, const struct xs_target *all,
			     const __u32 *pinned, bool json)
{
	struct xs_service_entry *sv = NULL;
	struct xs_service_stats ss;
	struct xs_target_stats ts;
	__u32 n, i, t, nb;
	int err;

	err = xs_services_list(h, &sv, &n);
	if (err)
		return err;
	if (json)
		printf("], \"services\": [");
	else if (n)
		printf("\n%-28s %12s %14s %10s %8s\n", "service / backend", "packets", "bytes",
		       "no_backend", "too_big");
	for (i = 0; i < n && !err; i++) {
		char name[80], addr[INET6_ADDRSTRLEN];

		err = xs_service_stats_read(h, sv[i].svc.id, &ss);
		if (err)
			break;
		xs_format_service(&sv[i].key, name, sizeof(name));
		if (json)
			printf("%s{\"service\": \"%s\", \"id\": %u, \"packets\": %llu, "
			       "\"bytes\": %llu, \"no_backend\": %llu, \"too_big\": %llu, "
			       "\"backends\": [",
			       i ? ", " : "", name, sv[i].svc.id, (unsigned long long)ss.packets,
			       (unsigned long long)ss.bytes, (unsigned long long)ss.no_backend,
			       (unsigned long long)ss.too_big);
		else
			printf("%-28s %12llu %14llu %10llu %8llu\n", name,
			       (unsigned long long)ss.packets, (unsigned long long)ss.bytes,
			       (unsigned long long)ss.no_backend, (unsigned long long)ss.too_big);
		for (t = XS_BACKEND_BASE, nb = 0; t < XS_MAX_TARGETS; t++) {
			if (all[t].kind != XS_TARGET_BACKEND || all[t].service != sv[i].svc.id)
				continue;
			err = xs_stats_read(h, t, &ts, NULL);
			if (err)
				break;
			xs_format_addr(all[t].addr, addr, sizeof(addr));
			if (json)
				printf("%s{\"backend\": \"%s\", \"draining\": %s, \"pinned\": %u, "
				       "\"packets\": %llu, \"bytes\": %llu, \"flows_opened\": %llu, "
				       "\"flows_closed\": %llu, \"load\": %llu}",
				       nb ? ", " : "", addr,
				       all[t].flags & XS_TARGET_F_DRAIN ? "true" : "false", pinned[t],
				       (unsigned long long)ts.packets, (unsigned long long)ts.bytes,
				       (unsigned long long)ts.opened, (unsigned long long)ts.closed,
				       (unsigned long long)xs_stats_load(t, &ts));
			else
				printf("  %-26s %12llu %14llu   %u pinned, %llu open%s\n", addr,
				       (unsigned long long)ts.packets, (unsigned long long)ts.bytes,
				       pinned[t], (unsigned long long)xs_stats_load(t, &ts),
				       all[t].flags & XS_TARGET_F_DRAIN ? ", draining" : "");
			nb++;
		}
		if (json)
			printf("]}");
	}
	free(sv);
	return err;
}

int xs_cmd_stats(const struct xs_args *a)
{
	bool json = xs_flag(a, "json"), per_cpu = xs_flag(a, "per-cpu");
	struct xs_target_stats sum, *pc = NULL;
	struct xs_target *all = NULL;
	struct xs_pool pool = { 0 };
	__u32 *pinned = NULL;
	__u64 counters[XS_C_MAX];
	struct xs_handle h;
	__u32 i, n;
	int err;

	err = xs_open(a->pos[0], &h);
	if (err)
		return err;
	err = -ENOMEM;
	all = calloc(XS_MAX_TARGETS, sizeof(*all));
	pc = calloc(h.nr_cpus, sizeof(*pc));
	if (!all || !pc)
		goto out;
	pinned = calloc(XS_MAX_TARGETS, sizeof(*pinned));
	if (!pinned)
		goto out;
	err = xs_targets_read(&h, all);
	err = err ?: xs_pool_read(&h, XS_POOL_QUEUES, &pool);
	err = err ?: xs_counters_read(&h, counters);
	err = err ?: xs_pinned_counts(&h, all, pinned);
	if (err)
		goto out;
	if (json)
		printf("{\"ifname\": \"%s\", \"targets\": [", h.ifname);
	else
		printf("%-5s %-18s %12s %14s %9s %12s %9s %8s\n", "slot", "target", "packets",
		       "bytes", "load", "dequeued", "dropped", "pinned");
	for (i = 0, n = 0; i < pool.hdr.n_buckets; i++) {
		__u32 id = pool.bucket[i];

		if (id >= XS_MAX_TARGETS)
			continue; /* a hole */
		err = xs_stats_read(&h, id, &sum, pc);
		if (err)
			goto out;
		xs_print_target(&h, &all[id], id, (int)i, pinned[id], &sum, pc, json, per_cpu,
				n++ == 0);
	}
	/* Draining targets hold no slot but still carry their pinned flows. */
	for (i = 0; i < XS_BACKEND_BASE; i++) {
		if ((all[i].flags & (XS_TARGET_F_ACTIVE | XS_TARGET_F_DRAIN)) !=
		    (XS_TARGET_F_ACTIVE | XS_TARGET_F_DRAIN))
			continue;
		err = xs_stats_read(&h, i, &sum, pc);
		if (err)
			goto out;
		xs_print_target(&h, &all[i], i, -1, pinned[i], &sum, pc, json, per_cpu, n++ == 0);
	}
	err = xs_print_services(&h, all, pinned, json);
	if (err)
		goto out;
	if (json)
		printf("], \"counters\": {");
	else
		printf("\n%-16s %-5s %12s\n", "counter", "verdict", "packets");
	for (i = 0; i < XS_C_MAX; i++) {
		if (json)
			printf("%s\"%s\": %llu", i ? ", " : "", xs_counter_names[i].name,
			       (unsigned long long)counters[i]);
		else if (counters[i])
			printf("%-16s %-5s %12llu\n", xs_counter_names[i].name, xs_counter_kinds[i],
			       (unsigned long long)counters[i]);
	}
	if (json)
		printf("}}\n");
out:
	xs_pool_free(&pool);
	free(all);
	free(pc);
	free(pinned);
	xs_close(&h);
	return err;
}
