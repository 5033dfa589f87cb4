/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Queue targets: their redirect entries (cpumap, devmap) and identities. */
#ifndef XS_TARGET_H
#define XS_TARGET_H

#include <stdbool.h>
#include "handle.h"
#include "xdpsteer.h"

/* Is @cpu listed in /sys/devices/system/cpu/online? */
bool xs_cpu_online(__u32 cpu);
/* The cpumap or devmap entry (and xs_dev_ids) that delivers to target @id. */
int xs_redirect_set(const struct xs_handle *h, __u32 id, const struct xs_target *t);
void xs_redirect_clear(const struct xs_handle *h, __u32 id, const struct xs_target *t);
/* A fresh non-zero uid: pinned flows of an earlier user of the id re-pin. */
__u32 xs_new_uid(void);

/* All XS_MAX_TARGETS entries of xs_targets, in one batch. */
int xs_targets_read(const struct xs_handle *h, struct xs_target *all);
/* Write target @id, then end the epoch: cached flows see the change from their next packet. */
int xs_target_write(const struct xs_handle *h, __u32 id, const struct xs_target *t);
/* "cpu 1", "dev eth2", "backend 10.0.0.1": how messages and show name target @id. */
int xs_target_name(const struct xs_handle *h, const struct xs_target *t, __u32 id, char *buf,
		   size_t len);

#endif /* XS_TARGET_H */
