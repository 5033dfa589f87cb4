// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The data plane's Prometheus families (metrics.h). Names follow the
 * Prometheus conventions: the xdpsteer_ prefix, _total on counters, bytes
 * and seconds as base units, and one name per quantity with labels for the
 * iface, target, service, backend or reason it is about. Counters are summed
 * over the CPUs (snapshot.c) and written as exact integers.
 */
#include <stddef.h>
#include "metrics.h"
#include "names.h"

#define XS_U64_AT(p, off) (*(const __u64 *)((const char *)(p) + (off)))

static void xs_emit_reasons(FILE *f, const struct xs_prom_family *fam, const void *src)
{
	const struct xs_dp_snapshot *s = src;
	unsigned int c;

	for (c = 0; c < XS_C_MAX; c++) {
		struct xs_prom_label l[] = { { "iface", s->ifname },
					     { "reason", xs_counter_names[c].name },
					     { "verdict", xs_counter_kinds[c] } };

		xs_prom_sample_u64(f, fam->name, l, 3, s->counters[c]);
	}
}

/* fam->field: offset of a __u64 in struct xs_dp_target. */
static void xs_emit_target(FILE *f, const struct xs_prom_family *fam, const void *src)
{
	const struct xs_dp_snapshot *s = src;
	__u32 i;

	for (i = 0; i < s->n_targets; i++) {
		struct xs_prom_label l[] = { { "iface", s->ifname },
					     { "target", s->targets[i].name } };

		xs_prom_sample_u64(f, fam->name, l, 2, XS_U64_AT(&s->targets[i], fam->field));
	}
}

/* fam->field: offset of a __u64 in struct xs_dp_service. */
static void xs_emit_service(FILE *f, const struct xs_prom_family *fam, const void *src)
{
	const struct xs_dp_snapshot *s = src;
	__u32 i;

	for (i = 0; i < s->n_services; i++) {
		struct xs_prom_label l[] = { { "iface", s->ifname },
					     { "service", s->services[i].name } };

		xs_prom_sample_u64(f, fam->name, l, 2, XS_U64_AT(&s->services[i], fam->field));
	}
}

/* fam->field: offset of a __u64 in struct xs_dp_backend. */
static void xs_emit_backend(FILE *f, const struct xs_prom_family *fam, const void *src)
{
	const struct xs_dp_snapshot *s = src;
	__u32 i;

	for (i = 0; i < s->n_backends; i++) {
		const struct xs_dp_backend *b = &s->backends[i];
		struct xs_prom_label l[] = { { "iface", s->ifname },
					     { "service", b->service->name },
					     { "backend", b->addr } };

		xs_prom_sample_u64(f, fam->name, l, 3, XS_U64_AT(b, fam->field));
	}
}

/* fam->field: offset of a __u64 in struct xs_dp_snapshot. */
static void xs_emit_iface(FILE *f, const struct xs_prom_family *fam, const void *src)
{
	struct xs_prom_label l[] = { { "iface", ((const struct xs_dp_snapshot *)src)->ifname } };

	xs_prom_sample_u64(f, fam->name, l, 1, XS_U64_AT(src, fam->field));
}

/* The pool's identity: equal digests on two hosts, equal decisions. */
static void xs_emit_config(FILE *f, const struct xs_prom_family *fam, const void *src)
{
	const struct xs_dp_snapshot *s = src;
	struct xs_prom_label l[] = { { "iface", s->ifname },
				     { "algo", s->algo },
				     { "digest", s->digest },
				     { "seed_digest", s->seed_digest } };

	xs_prom_sample_u64(f, fam->name, l, 4, 1);
}

#define TGT(f) offsetof(struct xs_dp_target, f)
#define SVC(f) offsetof(struct xs_dp_service, f)
#define BE(f) offsetof(struct xs_dp_backend, f)
#define SNAP(f) offsetof(struct xs_dp_snapshot, f)

const struct xs_prom_family xs_dp_families[] = {
	{ "xdpsteer_reason_packets_total", "counter",
	  "Packets the XDP program counted under each reason (verdict: pass, drop, tx, or info "
	  "for a reason that is not a verdict, so a packet may count under several)",
	  xs_emit_reasons, 0 },
	{ "xdpsteer_target_packets_total", "counter", "Packets steered to the queue target",
	  xs_emit_target, TGT(st.packets) },
	{ "xdpsteer_target_bytes_total", "counter", "Bytes steered to the queue target",
	  xs_emit_target, TGT(st.bytes) },
	{ "xdpsteer_target_dequeued_packets_total", "counter",
	  "Packets the target's cpumap or devmap program saw", xs_emit_target,
	  TGT(st.dequeued) },
	{ "xdpsteer_target_dropped_packets_total", "counter",
	  "Packets dropped on enqueue to the target's cpumap queue", xs_emit_target,
	  TGT(st.dropped) },
	{ "xdpsteer_target_pinned_flows", "gauge", "Live, unexpired flow pins the target holds",
	  xs_emit_target, TGT(pinned) },
	{ "xdpsteer_target_draining", "gauge", "1 while the target is draining (no new flows)",
	  xs_emit_target, TGT(draining) },
	{ "xdpsteer_service_packets_total", "counter", "Packets to the service's VIP and port",
	  xs_emit_service, SVC(st.packets) },
	{ "xdpsteer_service_bytes_total", "counter", "Bytes to the service's VIP and port",
	  xs_emit_service, SVC(st.bytes) },
	{ "xdpsteer_service_no_backend_packets_total", "counter",
	  "Packets passed to the stack because the service had no live backend",
	  xs_emit_service, SVC(st.no_backend) },
	{ "xdpsteer_service_too_big_packets_total", "counter",
	  "Packets too big once encapsulated: answered with ICMP or dropped", xs_emit_service,
	  SVC(st.too_big) },
	{ "xdpsteer_backend_packets_total", "counter", "Packets sent to the backend",
	  xs_emit_backend, BE(st.packets) },
	{ "xdpsteer_backend_bytes_total", "counter", "Bytes sent to the backend",
	  xs_emit_backend, BE(st.bytes) },
	{ "xdpsteer_backend_flows_opened_total", "counter", "Flows pinned to the backend",
	  xs_emit_backend, BE(st.opened) },
	{ "xdpsteer_backend_flows_closed_total", "counter",
	  "Of those, flows seen ending (TCP FIN or RST from the client)", xs_emit_backend,
	  BE(st.closed) },
	{ "xdpsteer_backend_pinned_flows", "gauge", "Live, unexpired flow pins the backend holds",
	  xs_emit_backend, BE(pinned) },
	{ "xdpsteer_backend_draining", "gauge", "1 while the backend is draining (no new flows)",
	  xs_emit_backend, BE(draining) },
	{ "xdpsteer_backend_weight", "gauge", "Slots the backend holds in its service's pool",
	  xs_emit_backend, BE(weight) },
	{ "xdpsteer_backend_health_checked", "gauge",
	  "1 when an agent's health check covers the backend (docs/health.md)", xs_emit_backend,
	  BE(checked) },
	{ "xdpsteer_backend_healthy", "gauge",
	  "0 while the backend's health check holds it out of the pool, else 1", xs_emit_backend,
	  BE(healthy) },
	{ "xdpsteer_backend_health_last_change_timestamp_seconds", "gauge",
	  "When the backend's health last changed state (Unix time)", xs_emit_backend,
	  BE(health_since) },
	{ "xdpsteer_backend_health_probes_total", "counter",
	  "Health probes sent to the backend since the agent started", xs_emit_backend,
	  BE(probes) },
	{ "xdpsteer_backend_health_probe_failures_total", "counter",
	  "Of those, probes that failed", xs_emit_backend, BE(probe_failures) },
	{ "xdpsteer_pinned_flows", "gauge", "Live, unexpired flow pins of every target",
	  xs_emit_iface, SNAP(pinned) },
	{ "xdpsteer_flow_table_size", "gauge", "The most flow pins the table holds (LRU); 0: the table is off",
	  xs_emit_iface, SNAP(flow_table_size) },
	{ "xdpsteer_pool_slots", "gauge", "Slots of the queue targets' pool", xs_emit_iface,
	  SNAP(slots) },
	{ "xdpsteer_config_info", "gauge",
	  "Always 1: the queue pool's algorithm, digest and seed digest, as `status` shows them",
	  xs_emit_config, 0 },
};
const size_t xs_dp_n_families = sizeof(xs_dp_families) / sizeof(xs_dp_families[0]);

void xs_dp_write_prom(FILE *f, const struct xs_dp_snapshot *const *snaps, size_t n)
{
	xs_prom_write(f, xs_dp_families, xs_dp_n_families, (const void *const *)snaps, n);
}
