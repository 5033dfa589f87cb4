// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Reading and resetting what the data plane counted (stats.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "clock.h"
#include "log.h"
#include "stats.h"

int xs_stats_read(const struct xs_handle *h, __u32 id, struct xs_target_stats *sum,
		  struct xs_target_stats *percpu)
{
	struct xs_target_stats *v;
	int cpu, err = 0;

	v = calloc(h->nr_cpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	memset(sum, 0, sizeof(*sum));
	if (bpf_map_lookup_elem(h->stats_fd, &id, v)) {
		err = -errno;
		pr_warn("%s: cannot read xs_target_stats[%u]: %s\n", h->ifname, id,
			strerror(-err));
		goto out;
	}
	for (cpu = 0; cpu < h->nr_cpus; cpu++) {
		sum->packets += v[cpu].packets;
		sum->bytes += v[cpu].bytes;
		sum->dequeued += v[cpu].dequeued;
		sum->dropped += v[cpu].dropped;
		sum->opened += v[cpu].opened;
		sum->closed += v[cpu].closed;
	}
	if (percpu)
		memcpy(percpu, v, h->nr_cpus * sizeof(*v));
out:
	free(v);
	return err;
}

int xs_stats_reset(const struct xs_handle *h, __u32 id)
{
	struct xs_target_stats *v = calloc(h->nr_cpus, sizeof(*v));
	int err = 0;

	if (!v)
		return -ENOMEM;
	if (bpf_map_update_elem(h->stats_fd, &id, v, BPF_ANY)) {
		err = -errno;
		pr_warn("%s: cannot reset xs_target_stats[%u]: %s\n", h->ifname, id,
			strerror(-err));
	}
	free(v);
	return err;
}

int xs_stats_reset_service(const struct xs_handle *h, __u32 id)
{
	struct xs_service_stats *v = calloc(h->nr_cpus, sizeof(*v));
	int err = 0;

	if (!v)
		return -ENOMEM;
	if (bpf_map_update_elem(h->service_stats_fd, &id, v, BPF_ANY))
		err = -errno;
	free(v);
	return err;
}

int xs_service_stats_read(const struct xs_handle *h, __u32 id, struct xs_service_stats *sum)
{
	struct xs_service_stats *v = calloc(h->nr_cpus, sizeof(*v));
	int cpu, err = 0;

	if (!v)
		return -ENOMEM;
	memset(sum, 0, sizeof(*sum));
	if (bpf_map_lookup_elem(h->service_stats_fd, &id, v)) {
		err = -errno;
		pr_warn("%s: cannot read xs_service_stats[%u]: %s\n", h->ifname, id,
			strerror(-err));
	}
	for (cpu = 0; !err && cpu < h->nr_cpus; cpu++) {
		sum->packets += v[cpu].packets;
		sum->bytes += v[cpu].bytes;
		sum->no_backend += v[cpu].no_backend;
		sum->too_big += v[cpu].too_big;
	}
	free(v);
	return err;
}

/* The rule the XDP program uses, from the same header. */
__u64 xs_stats_load(__u32 id, const struct xs_target_stats *sum)
{
	return xs_target_load(id, sum->packets, sum->dequeued, sum->dropped, sum->opened,
			      sum->closed);
}

/* xs_counters holds one struct xs_counter_block per CPU, key = cpu: the sum is per counter. */
int xs_counters_read(const struct xs_handle *h, __u64 *sum)
{
	__u32 n = (__u32)h->nr_cpus, count = n, out_batch, i, c;
	struct xs_counter_block *vals = calloc(n, sizeof(*vals));
	__u32 *keys = calloc(n, sizeof(*keys));
	LIBBPF_OPTS(bpf_map_batch_opts, o);
	int err = 0;

	memset(sum, 0, XS_C_MAX * sizeof(*sum));
	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	/* One call for the whole array; ENOENT only says it reached the end. */
	if (bpf_map_lookup_batch(h->counters_fd, NULL, &out_batch, keys, vals, &count, &o) &&
	    errno != ENOENT) {
		err = -errno;
		pr_warn("%s: cannot read xs_counters: %s\n", h->ifname, strerror(-err));
		goto out;
	}
	if (count != n) {
		err = -EIO;
		pr_warn("%s: xs_counters holds %u entries, expected one per CPU (%d)\n", h->ifname,
			count, h->nr_cpus);
		goto out;
	}
	for (i = 0; i < count; i++) {
		const __u64 *row = (const __u64 *)&vals[i];

		for (c = 0; c < XS_C_MAX; c++)
			sum[c] += row[c];
	}
out:
	free(keys);
	free(vals);
	return err;
}

/*
 * Flows each target still holds: live, unexpired pins in the LRU (the pin's
 * uid is the target's), counted per target id into @counts (XS_MAX_TARGETS entries).
 * Read in batches; the table changes while it is read, so the figure is a
 * snapshot, exact only for a quiet table.
 */
int xs_pinned_counts(const struct xs_handle *h, const struct xs_target *all, __u32 *counts)
{
	LIBBPF_OPTS(bpf_map_batch_opts, bopts);
	enum { CHUNK = 4096 };
	struct xs_flow_key *keys = calloc(CHUNK, sizeof(*keys));
	struct xs_flow_pin *vals = calloc(CHUNK, sizeof(*vals));
	__u32 in_batch = 0, out_batch = 0, n, i, now, zero = 0;
	struct xs_self self;
	bool first = true;
	int err = 0, rc;

	memset(counts, 0, XS_MAX_TARGETS * sizeof(*counts));
	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	/* Expired pins wait in the LRU for their next packet: they hold nothing. */
	if (bpf_map_lookup_elem(h->self_fd, &zero, &self)) {
		err = -errno;
		pr_warn("%s: cannot read xs_self: %s\n", h->ifname, strerror(-err));
		goto out;
	}
	/* The program's own clock: CLOCK_MONOTONIC_COARSE lags it by ms. */
	now = xs_tick_now();
	do {
		n = CHUNK;
		rc = bpf_map_lookup_batch(h->flows_fd, first ? NULL : &in_batch, &out_batch, keys,
					  vals, &n, &bopts);
		if (rc && errno != ENOENT) {
			err = -errno;
			pr_warn("%s: cannot read xs_flows: %s\n", h->ifname, strerror(-err));
			break;
		}
		for (i = 0; i < n; i++) {
			__u32 t = vals[i].target;

			if (t < XS_MAX_TARGETS && all[t].active &&
			    all[t].uid == vals[i].uid &&
			    !xs_pin_expired(&vals[i], keys[i].proto, now, &self.timeouts))
				counts[t]++;
		}
		in_batch = out_batch;
		first = false;
	} while (!rc);
out:
	free(keys);
	free(vals);
	return err;
}
