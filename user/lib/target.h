/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Queue targets: their redirect entries (cpumap, devmap) and identities. */
#ifndef XS_TARGET_H
#define XS_TARGET_H

#include <stdbool.h>
#include "state.h"

#define XS_DEFAULT_QSIZE 2048
#define XS_MAX_QSIZE 16384 /* the kernel's cpumap sanity limit */

/* Is @cpu listed in /sys/devices/system/cpu/online? */
bool xs_cpu_online(__u32 cpu);
/* The cpumap or devmap entry (and xs_dev_ids) that delivers to target @id. */
int xs_redirect_set(const struct xs_handle *h, __u32 id, const struct xs_target *t);
void xs_redirect_clear(const struct xs_handle *h, __u32 id, const struct xs_target *t);
/* A fresh non-zero uid: pinned flows of an earlier user of the id re-pin. */
__u32 xs_new_uid(void);

#endif /* XS_TARGET_H */
