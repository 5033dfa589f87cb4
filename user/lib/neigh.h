/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Managed neighbour entries that keep backends' next hops resolved for XDP. */
#ifndef XS_NEIGH_H
#define XS_NEIGH_H

#include <stdbool.h>
#include <linux/types.h>

/*
 * The next hop a packet to a backend leaves by: the interface and the on-link
 * address, the backend itself or its gateway. Managed entries are made per
 * next hop, so backends behind one gateway share one.
 */
struct xs_neigh_hop {
	int oif;
	int family;		/* AF_INET or AF_INET6 */
	unsigned char addr[16];	/* the first 4 bytes for AF_INET, the rest zero */
};

/* The next hop of @addr16 (as below) into *@hop, zeroed first. 0 or -errno (not printed). */
int xs_neigh_hop(const void *addr16, int family, struct xs_neigh_hop *hop);

/* @addr IPv4-mapped or IPv6, @family AF_INET or AF_INET6. Returns 0 or -errno (printed). */
int xs_neigh_manage(const void *addr16, int family, bool add);

#endif /* XS_NEIGH_H */
