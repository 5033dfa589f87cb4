/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The network namespace a command runs in, and the directories keyed by it.
 * Interface names are per namespace but bpffs and /run are not: state made
 * for eth0 in one namespace must never be found by eth0 in another.
 */
#ifndef XS_NETNS_H
#define XS_NETNS_H

#include <stddef.h>
#include <linux/types.h>

/* The directory of one namespace under a root: ROOT/netns:COOKIE. */
#define XS_NETNS_DIR_FMT "%s/netns:%llu"

/* 1 in the initial network namespace, 0 in any other. */
int xs_netns_is_init(void);
/* This namespace's cookie (SO_NETNS_COOKIE): 0 or -errno (printed). */
int xs_netns_cookie(__u64 *cookie);
/* @root itself in the initial namespace, else @root/netns:COOKIE. 0 or -errno (printed). */
int xs_netns_dir(char *buf, size_t len, const char *root);
/* Create @root and this namespace's directory under it (mode 0700 or @mode). */
int xs_netns_mkdir(const char *root, unsigned int mode);
/* Remove this namespace's directory under @root if it is empty (not @root itself). */
void xs_netns_rmdir(const char *root);

#endif /* XS_NETNS_H */
