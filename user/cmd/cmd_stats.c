// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* stats: per-target packets, bytes and queue load, and per-reason counters. */
#include <errno.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "health_state.h"
#include "json.h"
#include "log.h"
#include "names.h"
#include "service.h"
#include "handle.h"
#include "pool.h"
#include "metrics.h"
#include "stats.h"
#include "target.h"


/* One CPU's share of a target's counters. */
static xs_json *xs_cpu_json(int cpu, const struct xs_target_stats *pc)
{
	xs_json *o = xj_obj();

	xj_int(o, "cpu", cpu);
	xj_u64(o, "packets", pc->packets);
	xj_u64(o, "bytes", pc->bytes);
	xj_u64(o, "dequeued", pc->dequeued);
	xj_u64(o, "dropped", pc->dropped);
	return o;
}

/* @slot < 0: the target is draining and holds no slot. @arr: --json, else text. */
static void xs_print_target(const struct xs_handle *h, const struct xs_target *t, __u32 id,
			    int slot, __u32 pinned, const struct xs_target_stats *sum,
			    const struct xs_target_stats *pc, xs_json *arr, bool per_cpu)
{
	char name[64], ifn[IF_NAMESIZE], slotname[16];
	xs_json *o, *cpus;
	int cpu;

	if (!arr) {
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
	o = xj_obj();
	if (slot < 0)
		xj_add(o, "slot", NULL);
	else
		xj_int(o, "slot", slot);
	xj_bool(o, "draining", slot < 0);
	xj_u64(o, "id", id);
	xj_u64(o, "pinned", pinned);
	if (t->kind == XS_TARGET_CPU)
		xj_u64(o, "cpu", t->cpu);
	else
		xj_str(o, "dev", if_indextoname(t->ifindex, ifn) ? ifn : "");
	xj_u64(o, "packets", sum->packets);
	xj_u64(o, "bytes", sum->bytes);
	xj_u64(o, "load", xs_stats_load(id, sum));
	xj_u64(o, "dequeued", sum->dequeued);
	xj_u64(o, "dropped", sum->dropped);
	if (per_cpu) {
		cpus = xj_arr();
		for (cpu = 0; cpu < h->nr_cpus; cpu++)
			xj_push(cpus, xs_cpu_json(cpu, &pc[cpu]));
		xj_add(o, "per_cpu", cpus);
	}
	xj_push(arr, o);
}

/* Per service: its counters, then each backend's. @arr: --json, else text. */
static int xs_print_services(const struct xs_handle *h, const struct xs_target *all,
			     const __u32 *pinned, xs_json *arr, const char *run_dir)
{
	struct xs_service_entry *sv = NULL;
	struct xs_service_stats ss;
	struct xs_target_stats ts;
	struct xs_health_state hs = { 0 };
	__u32 n, i, t;
	int err;

	err = xs_services_list(h, &sv, &n);
	if (err)
		return err;
	xs_health_read(run_dir, h->ifname, &hs);
	/* A service has no_backend and too_big; a backend, pinned and open: a column each. */
	if (!arr && n)
		printf("\n%-28s %12s %14s %10s %8s %8s %8s\n", "service / backend", "packets",
		       "bytes", "no_backend", "too_big", "pinned", "open");
	for (i = 0; i < n && !err; i++) {
		char name[80], addr[INET6_ADDRSTRLEN], hbuf[160];
		xs_json *o = NULL, *bes = NULL;

		err = xs_service_stats_read(h, sv[i].svc.id, &ss);
		if (err)
			break;
		xs_format_service(&sv[i].key, name, sizeof(name));
		if (arr) {
			o = xj_obj();
			bes = xj_arr();
			xj_str(o, "service", name);
			xj_u64(o, "id", sv[i].svc.id);
			xj_u64(o, "packets", ss.packets);
			xj_u64(o, "bytes", ss.bytes);
			xj_u64(o, "no_backend", ss.no_backend);
			xj_u64(o, "too_big", ss.too_big);
			xj_add(o, "backends", bes);
			xj_push(arr, o);
		} else {
			printf("%-28s %12llu %14llu %10llu %8llu\n", name,
			       (unsigned long long)ss.packets, (unsigned long long)ss.bytes,
			       (unsigned long long)ss.no_backend, (unsigned long long)ss.too_big);
		}
		for (t = XS_BACKEND_BASE; t < XS_MAX_TARGETS; t++) {
			if (all[t].kind != XS_TARGET_BACKEND || all[t].service != sv[i].svc.id)
				continue;
			err = xs_stats_read(h, t, &ts, NULL);
			if (err)
				break;
			xs_format_addr(all[t].addr, addr, sizeof(addr));
			if (arr) {
				xs_json *b = xj_obj();

				xj_str(b, "backend", addr);
				xj_bool(b, "draining", all[t].drain);
				xj_u64(b, "pinned", pinned[t]);
				xj_u64(b, "packets", ts.packets);
				xj_u64(b, "bytes", ts.bytes);
				xj_u64(b, "flows_opened", ts.opened);
				xj_u64(b, "flows_closed", ts.closed);
				xj_u64(b, "load", xs_stats_load(t, &ts));
				xs_health_json(b, &hs, &sv[i].key, &all[t]);
				xj_push(bes, b);
			} else {
				printf("  %-26s %12llu %14llu %10s %8s %8u %8llu%s%s\n", addr,
				       (unsigned long long)ts.packets, (unsigned long long)ts.bytes,
				       "", "", pinned[t], (unsigned long long)xs_stats_load(t, &ts),
				       all[t].drain ? ", draining" : "",
				       xs_health_text(&hs, &sv[i].key, &all[t], hbuf, sizeof(hbuf)));
			}
		}
	}
	xs_health_free(&hs);
	free(sv);
	return err;
}

/* The text and --json tables. */
static int xs_stats_print(const struct xs_args *a, bool json)
{
	bool per_cpu = xs_flag(a, XS_OPT_PER_CPU);
	xs_json *doc = NULL, *tgts = NULL, *svcs = NULL, *ctrs = NULL;
	struct xs_target_stats sum, *pc = NULL;
	struct xs_target *all = NULL;
	struct xs_pool pool = { 0 };
	__u32 *pinned = NULL;
	__u64 counters[XS_C_MAX];
	struct xs_handle h;
	__u32 i;
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
	if (json) {
		/* Built whole and printed at the end: a failure part way prints nothing. */
		doc = xj_obj();
		tgts = xj_arr();
		svcs = xj_arr();
		ctrs = xj_obj();
		xj_str(doc, "ifname", h.ifname);
		xj_add(doc, "targets", tgts);
		xj_add(doc, "services", svcs);
		xj_add(doc, "counters", ctrs);
		err = doc && tgts && svcs && ctrs ? 0 : -ENOMEM;
		if (err)
			goto out;
	} else {
		printf("%-5s %-18s %12s %14s %9s %12s %9s %8s\n", "slot", "target", "packets",
		       "bytes", "load", "dequeued", "dropped", "pinned");
	}
	for (i = 0; i < pool.hdr.n_buckets; i++) {
		__u32 id = pool.bucket[i];

		if (id >= XS_MAX_TARGETS)
			continue; /* a hole */
		err = xs_stats_read(&h, id, &sum, pc);
		if (err)
			goto out;
		xs_print_target(&h, &all[id], id, (int)i, pinned[id], &sum, pc, tgts, per_cpu);
	}
	/* Draining targets hold no slot but still carry their pinned flows. */
	for (i = 0; i < XS_BACKEND_BASE; i++) {
		if (!all[i].active || !all[i].drain)
			continue;
		err = xs_stats_read(&h, i, &sum, pc);
		if (err)
			goto out;
		xs_print_target(&h, &all[i], i, -1, pinned[i], &sum, pc, tgts, per_cpu);
	}
	err = xs_print_services(&h, all, pinned, svcs, xs_arg(a, XS_OPT_RUN_DIR));
	if (err)
		goto out;
	if (!json)
		printf("\n%-16s %-5s %12s\n", "counter", "verdict", "packets");
	for (i = 0; i < XS_C_MAX; i++) {
		if (json)
			xj_u64(ctrs, xs_counter_names[i].name, counters[i]);
		else if (counters[i])
			printf("%-16s %-5s %12llu\n", xs_counter_names[i].name, xs_counter_kinds[i],
			       (unsigned long long)counters[i]);
	}
	if (json) {
		err = xs_json_print(a, doc);
		doc = NULL;
	}
out:
	xs_json_drop(doc);
	xs_pool_free(&pool);
	free(all);
	free(pc);
	free(pinned);
	xs_close(&h);
	return err;
}

enum xs_stats_format { XS_FMT_TEXT, XS_FMT_JSON, XS_FMT_PROMETHEUS };
static const struct xs_name xs_stats_formats[] = {
	{ XS_FMT_TEXT, "text" },
	{ XS_FMT_JSON, "json" },
	{ XS_FMT_PROMETHEUS, "prometheus" },
	{ 0, NULL },
};

/* --format prometheus: the families of docs/metrics.md, for node_exporter's textfile collector. */
static int xs_stats_prom(const char *ifname, const char *run_dir)
{
	struct xs_dp_snapshot s;
	const struct xs_dp_snapshot *one = &s;
	int err = xs_dp_snapshot_read(ifname, &s);

	if (err)
		return err;
	xs_dp_snapshot_health(&s, run_dir);
	xs_dp_write_prom(stdout, &one, 1);
	xs_dp_snapshot_free(&s);
	return fflush(stdout) ? -errno : 0;
}

int xs_cmd_stats(const struct xs_args *a)
{
	const char *fmt = xs_arg(a, XS_OPT_FORMAT), *watch = xs_arg(a, XS_OPT_WATCH);
	unsigned int f = xs_flag(a, XS_OPT_JSON) ? XS_FMT_JSON : XS_FMT_TEXT;
	__u64 interval_ms = 1000;

	if (fmt) {
		if (xs_name_parse(xs_stats_formats, fmt, "stats: --format", &f))
			return -EINVAL;
		if (xs_flag(a, XS_OPT_JSON) && f != XS_FMT_JSON) {
			pr_warn("stats: --json and --format %s ask for two formats; give one\n", fmt);
			return -XS_EUSAGE;
		}
	}
	if (watch) {
		if (f != XS_FMT_TEXT || xs_flag(a, XS_OPT_PER_CPU)) {
			pr_warn("stats: --watch prints rates as text; it takes no --json, --format or "
				"--per-cpu\n");
			return -XS_EUSAGE;
		}
		if (watch[0] && xs_parse_duration(watch, "stats: --watch", 100, 3600 * 1000,
						  &interval_ms))
			return -EINVAL;
		return xs_stats_watch(a->pos[0], interval_ms);
	}
	if (f == XS_FMT_PROMETHEUS) {
		if (xs_flag(a, XS_OPT_PER_CPU)) {
			pr_warn("stats: --format prometheus sums over CPUs; it takes no --per-cpu\n");
			return -XS_EUSAGE;
		}
		return xs_stats_prom(a->pos[0], xs_arg(a, XS_OPT_RUN_DIR));
	}
	return xs_stats_print(a, f == XS_FMT_JSON);
}
