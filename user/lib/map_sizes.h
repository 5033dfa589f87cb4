/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Sizes of the maps that depend on the machine or on attach options, set before load. */
#ifndef XS_MAP_SIZES_H
#define XS_MAP_SIZES_H

#include <linux/types.h>

struct xdpsteer;

/*
 * Size @skel's maps for @nr_cpus possible CPUs and a flow table of
 * @flow_entries (0: none). Attach and the tests' loader both call it, so the
 * program is tested with the maps it runs with.
 */
int xs_size_maps(struct xdpsteer *skel, int nr_cpus, __u32 flow_entries);

#endif /* XS_MAP_SIZES_H */
