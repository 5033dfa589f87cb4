/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What an upgrade keeps: the pinned maps, if the new object's maps have the
 * same layout, and the running program's load-time configuration (rodata,
 * read through rodata.h).
 */
#ifndef XS_LAYOUT_H
#define XS_LAYOUT_H

#include <bpf/libbpf.h>
#include "handle.h"

/*
 * Compare every map of @obj (opened, not loaded) with its pin in @dir: map
 * type, key and value size, max_entries, flags, the BTF layout of key and
 * value, the pools' inner map, maps on one side only, XS_LAYOUT_VERSION.
 * Each difference is printed; 0 if none, else -EPROTO.
 */
int xs_layout_check(struct bpf_object *obj, const char *dir, const char *ifname);
/*
 * Copy the running program's (@old_prog_fd) rodata into @obj's, variable by
 * name. A variable in both with another size or layout is a difference
 * (printed, -EPROTO); one only the new object has keeps its default.
 */
int xs_rodata_carry(int old_prog_fd, struct bpf_object *obj, const char *ifname);
#endif /* XS_LAYOUT_H */
