/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A running program's load-time configuration: the const volatile globals
 * of its .rodata map, read by name through the program's BTF. Status, the
 * metrics and commit read single values; upgrade (layout.c) carries them all.
 */
#ifndef XS_RODATA_H
#define XS_RODATA_H

#include <stdbool.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "handle.h"

/*
 * The running program @prog_fd's load-time configuration variable @name
 * (rodata, e.g. "cfg_flow_table"), @size bytes, into @val: 0, or -errno
 * (-ENOENT: the program has no such variable, -EPROTO: not @size bytes).
 */
int xs_rodata_read(int prog_fd, const char *name, void *val, __u32 size);
/* @h's flow table: its entries, 0 when attached with --flow-table-size 0 (0, or -errno). */
int xs_flow_table_entries(const struct xs_handle *h, __u32 *entries);

/* The rodata map of program @prog_fd: an fd, and its info in @info; or -errno. */
int xs_prog_rodata(int prog_fd, struct bpf_map_info *info);
/* The DATASEC variable @name of @btf's section @sec: offset, size, type; false if absent. */
bool xs_datasec_var(const struct btf *btf, __u32 sec, const char *name, __u32 *off,
		    __u32 *size, __u32 *type);
/* BTF object @id as the kernel holds it; NULL if it cannot be read (btf__free() it). */
struct btf *xs_kernel_btf(__u32 id);

#endif /* XS_RODATA_H */
