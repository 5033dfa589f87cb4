/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The data plane's Prometheus families (docs/metrics.md names each one):
 * written from interface snapshots (snapshot.h) by `stats --format
 * prometheus` and by the agent's /metrics. A new family is one entry of
 * xs_dp_families[] (metrics.c), with an emit function if none fits.
 */
#ifndef XS_METRICS_H
#define XS_METRICS_H

#include <stdio.h>
#include "prom.h"
#include "snapshot.h"

extern const struct xs_prom_family xs_dp_families[];
extern const size_t xs_dp_n_families;

/* Every data-plane family, each with the samples of all @n snapshots. */
void xs_dp_write_prom(FILE *f, const struct xs_dp_snapshot *const *snaps, size_t n);

#endif /* XS_METRICS_H */
