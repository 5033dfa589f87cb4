// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The agent's Prometheus families (docs/metrics.md): what it follows, what
 * each interface runs, when it last committed and how often that failed.
 * The data plane's families (user/lib/metrics.c) follow, one group each for
 * every attached interface. A new agent family is one line of the table,
 * made by AGENT_VALUE or IFACE_VALUE from the expression it samples.
 */
#include <errno.h>
#include <stdlib.h>
#include "metrics.h"
#include "metrics_http.h"
#include "state.h"

/* A sample of the whole agent: @expr over `a`. */
#define AGENT_VALUE(fn, expr)                                                              \
	static void fn(FILE *f, const struct xs_prom_family *fam, const void *src)         \
	{                                                                                  \
		const struct xs_agent *a = src;                                            \
		xs_prom_sample(f, fam->name, NULL, 0, (double)(expr));                     \
	}
/* A sample per interface: @expr over `a` and `x`, the interface. */
#define IFACE_VALUE(fn, expr)                                                              \
	static void fn(FILE *f, const struct xs_prom_family *fam, const void *src)         \
	{                                                                                  \
		const struct xs_agent *a = src;                                            \
		int i;                                                                     \
		for (i = 0; i < a->n_ifc; i++) {                                           \
			const struct xs_agent_iface *x = &a->ifc[i];                       \
			struct xs_prom_label l[] = { { "iface", x->name } };               \
			(void)a;                                                           \
			xs_prom_sample(f, fam->name, l, 1, (double)(expr));                \
		}                                                                          \
	}
/* Only in etcd mode: a file-following agent has no etcd to report on. */
#define ETCD_VALUE(fn, expr)                                                               \
	static void fn(FILE *f, const struct xs_prom_family *fam, const void *src)         \
	{                                                                                  \
		const struct xs_agent *a = src;                                            \
		if (a->etcd)                                                               \
			xs_prom_sample(f, fam->name, NULL, 0, (double)(expr));             \
	}

AGENT_VALUE(xs_m_started, a->started)
AGENT_VALUE(xs_m_revision, a->revision)
AGENT_VALUE(xs_m_config_error, a->error[0] != 0)
AGENT_VALUE(xs_m_config_errors, a->config_errors)
AGENT_VALUE(xs_m_drained, a->drained)
AGENT_VALUE(xs_m_vips, a->announced ? a->n_vips : 0)
ETCD_VALUE(xs_m_etcd_up, a->etcd_up)
ETCD_VALUE(xs_m_etcd_errors, a->etcd_errors)
IFACE_VALUE(xs_m_attached, x->prog_id != 0)
IFACE_VALUE(xs_m_applied, x->applied)
IFACE_VALUE(xs_m_applied_at, x->applied_at)
IFACE_VALUE(xs_m_apply_errors, x->apply_errors)
IFACE_VALUE(xs_m_iface_error, x->error[0] != 0)

static const struct xs_prom_family xs_agent_families[] = {
	{ "xdpsteer_agent_start_time_seconds", "gauge",
	  "When the agent started, in seconds since the Unix epoch", xs_m_started, 0 },
	{ "xdpsteer_agent_config_revision", "gauge",
	  "The newest configuration revision the agent read (etcd: its mod revision; files: a "
	  "count of the changes seen)", xs_m_revision, 0 },
	{ "xdpsteer_agent_config_error", "gauge",
	  "1 while the newest revision is not applied everywhere (agent status says why)",
	  xs_m_config_error, 0 },
	{ "xdpsteer_agent_config_errors_total", "counter",
	  "Revisions that did not parse or validate, and were not applied", xs_m_config_errors,
	  0 },
	{ "xdpsteer_agent_drained", "gauge", "1 while the host is drained (its VIPs withdrawn)",
	  xs_m_drained, 0 },
	{ "xdpsteer_agent_announced_vips", "gauge", "VIPs announced through bird2",
	  xs_m_vips, 0 },
	{ "xdpsteer_agent_etcd_up", "gauge", "1 while etcd answers (etcd mode only)",
	  xs_m_etcd_up, 0 },
	{ "xdpsteer_agent_etcd_errors_total", "counter",
	  "etcd requests and watches that failed (etcd mode only)", xs_m_etcd_errors, 0 },
	{ "xdpsteer_agent_attached", "gauge", "1 while xdpsteer is attached to the interface",
	  xs_m_attached, 0 },
	{ "xdpsteer_agent_applied_revision", "gauge",
	  "The configuration revision the interface runs; 0: none of this agent's",
	  xs_m_applied, 0 },
	{ "xdpsteer_agent_last_apply_timestamp_seconds", "gauge",
	  "When a commit to the interface last succeeded, in seconds since the Unix epoch; 0: "
	  "never", xs_m_applied_at, 0 },
	{ "xdpsteer_agent_apply_errors_total", "counter",
	  "Commits of a revision to the interface that failed", xs_m_apply_errors, 0 },
	{ "xdpsteer_agent_iface_error", "gauge",
	  "1 while the interface does not run the newest revision", xs_m_iface_error, 0 },
};

int xs_agent_metrics_write(const struct xs_agent *a, FILE *f)
{
	struct xs_dp_snapshot snap[XS_AGENT_MAX_IFACES];
	const struct xs_dp_snapshot *read[XS_AGENT_MAX_IFACES];
	const void *agent = a;
	size_t n = 0, i;
	int k;

	xs_prom_write(f, xs_agent_families, sizeof(xs_agent_families) / sizeof(xs_agent_families[0]),
		      &agent, 1);
	/* A detached interface has no maps to read; xdpsteer_agent_attached says so. */
	for (k = 0; k < a->n_ifc; k++)
		if (a->ifc[k].prog_id && !xs_dp_snapshot_read(a->ifc[k].name, &snap[n])) {
			xs_dp_snapshot_health(&snap[n], a->chk.run_dir);
			read[n] = &snap[n];
			n++;
		}
	xs_dp_write_prom(f, read, n);
	for (i = 0; i < n; i++)
		xs_dp_snapshot_free(&snap[i]);
	return ferror(f) ? -EIO : 0;
}
