/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* What the data plane counted: per-CPU counters, per-target and per-service stats, pinned flows. */
#ifndef XS_STATS_H
#define XS_STATS_H

#include "handle.h"
#include "xdpsteer.h"

int xs_stats_read(const struct xs_handle *h, __u32 id, struct xs_target_stats *sum,
		  struct xs_target_stats *percpu);
int xs_stats_reset(const struct xs_handle *h, __u32 id);
int xs_stats_reset_service(const struct xs_handle *h, __u32 id);
int xs_service_stats_read(const struct xs_handle *h, __u32 id, struct xs_service_stats *sum);
/* Live, unexpired pins per target id (XS_MAX_TARGETS entries). */
int xs_pinned_counts(const struct xs_handle *h, const struct xs_target *all, __u32 *counts);
/* Each counter summed over the CPUs (XS_C_MAX entries). */
int xs_counters_read(const struct xs_handle *h, __u64 *sum);
/* The load that shuffle reads, by the XDP program's own rule. */
__u64 xs_stats_load(__u32 id, const struct xs_target_stats *sum);

#endif /* XS_STATS_H */
