/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Managed neighbour entries that keep backends' next hops resolved for XDP. */
#ifndef XS_NEIGH_H
#define XS_NEIGH_H

#include <stdbool.h>
#include <linux/types.h>

/* @addr IPv4-mapped or IPv6, @family AF_INET or AF_INET6. Returns 0 or -errno (printed). */
int xs_neigh_manage(const void *addr16, int family, bool add);

#endif /* XS_NEIGH_H */
