/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Pin directories: one per attachment, /sys/fs/bpf/xdpsteer/IFACE/ in the
 * initial network namespace, /sys/fs/bpf/xdpsteer/netns:COOKIE/IFACE/ in any
 * other (netns.h), holding the program, its maps and the live pools. Directory 0700, pins 0600, and
 * nothing in it is trusted that xdpsteer did not make (no symlinks).
 */
#ifndef XS_PINS_H
#define XS_PINS_H

#include <stdbool.h>
#include <stddef.h>

#define XS_PIN_ROOT "/sys/fs/bpf/xdpsteer"

/* Pin names: maps keep their BPF names; these are the extra objects. */
#define XS_PIN_PROG_XDP "prog_xdp"
#define XS_PIN_PROG_CPUMAP "prog_cpumap"
#define XS_PIN_PROG_DEVMAP "prog_devmap"
#define XS_PIN_LINK_DROPS "link_cpumap_drops"
#define XS_PIN_POOL_FMT "pool%u"

/* This namespace's directory of attachments: XS_PIN_ROOT, or under it (netns.h). */
int xs_pins_root(char *buf, size_t len);
int xs_pin_dir(char *buf, size_t len, const char *ifname);
int xs_pin_path(char *buf, size_t len, const char *dir, const char *name);
/* 0, -errno from lstat, or -ELOOP (printed) for a symlink. */
int xs_check_not_link(const char *path);
bool xs_is_attached(const char *ifname);
int xs_unpin_all(const char *dir);
/*
 * Is program @id one of the XDP programs on @ifindex in this namespace (the
 * legacy one, a libxdp dispatcher's, the offloaded one)? @running gets the
 * interface's main program id, 0 if it has none.
 */
bool xs_xdp_runs(int ifindex, __u32 id, __u32 *running);
/*
 * 0 if the program pinned as @prog in @dir is attached to @ifindex in this
 * network namespace; else -ESTALE, printed with what is there and what to do.
 */
int xs_pin_owner_check(const char *dir, const char *prog, const char *ifname, int ifindex);
int xs_pin_obj(int fd, const char *dir, const char *name);
int xs_chmod_pins(const char *dir);
int xs_check_iface_free(const char *ifname, int ifindex);

#endif /* XS_PINS_H */
