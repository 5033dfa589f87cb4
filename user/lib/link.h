/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* What an interface is joined to: where a frame sent out of it comes back in. */
#ifndef XS_LINK_H
#define XS_LINK_H

/*
 * The interface of this network namespace that receives what is sent out
 * of @ifindex: its veth peer, when the peer lives here. 0: none (not a veth,
 * or its peer is in another namespace), or -errno.
 */
int xs_link_veth_peer(int ifindex);

#endif /* XS_LINK_H */
