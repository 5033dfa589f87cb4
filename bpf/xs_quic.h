/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * QUIC connection-ID routing (services with `quic on`). A QUIC server puts
 * its server id into the connection ids it issues, so a packet whose
 * destination connection id carries one can be sent to that server whatever
 * its addresses: a client that changes address (connection migration, or a
 * NAT rebinding) keeps its backend.
 *
 * The encoding (the layout of Katran's version-1 connection ids, so servers
 * that already encode for Katran need nothing new): the first two bits of
 * the destination connection id are 01, the next 16 bits are the server id,
 * most significant first; the rest of the id is the server's own. The
 * server id is the backend's target id, as `xdpsteer show` (`id N`) and
 * `service list --json` print it; with a configuration applied as `show`
 * prints it, every load balancer of a fleet gives a backend the same id.
 *
 * Only short-header packets are routed so (the connection id follows the
 * first byte); long-header ones (Initial, 0-RTT, Handshake, Retry) carry a
 * connection id the client chose and are hashed as usual, as is a packet
 * whose id is of another version or names no live backend of its service.
 * The id is looked at per packet and never pinned: pins stay what the hash
 * decided, and the id, when it names a backend, overrides them.
 */
#ifndef XS_QUIC_H
#define XS_QUIC_H

#include <linux/bpf.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include "xdpsteer.h"
#include "xs_maps.h"
#include "xs_parse.h"

#define XS_QUIC_LONG_HEADER 0x80
#define XS_QUIC_CID_VERSION 1

/*
 * The server id in the destination connection id of the short-header QUIC
 * packet whose UDP header is at @l4_off, the datagram ending at @end_off;
 * 0 for none. A global subprogram: verified once.
 */
__attribute__((noinline)) __u32 xs_quic_server_id(struct xdp_md *ctx, __u32 l4_off, __u32 end_off)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	__u8 *q;

	/* The UDP header, the first byte, three bytes of connection id: in the datagram. */
	if (l4_off + 8 + 4 > end_off)
		return 0;
	/* Bounded for the verifier, out of the compiler's sight (which knows no bound). */
	XS_OPAQUE(l4_off);
	q = data + (l4_off & 0x3fff) + 8; /* frames are shorter than 16 KiB */
	if ((void *)(q + 4) > data_end || q[0] & XS_QUIC_LONG_HEADER ||
	    q[1] >> 6 != XS_QUIC_CID_VERSION)
		return 0;
	return (__u32)(q[1] & 0x3f) << 10 | (__u32)q[2] << 2 | q[3] >> 6;
}

/*
 * The backend of @svc (id @svc_id) that @p's connection id names, and its
 * target id in *@id; NULL when @p is not a short-header QUIC packet of a
 * `quic on` service or its id names no live backend of that service.
 */
static __always_inline const struct xs_target *xs_quic_backend(struct xdp_md *ctx,
								const struct xs_parsed *p,
								__u32 svc_id, __u32 *id)
{
	const struct xs_target *t;

	if (p->key.proto != IPPROTO_UDP || p->is_frag || p->icmp != XS_ICMP_NONE)
		return NULL;
	*id = xs_quic_server_id(ctx, p->l4_off, p->l3_off + p->ip_len);
	if (!*id || *id >= XS_MAX_TARGETS)
		return NULL;
	t = bpf_map_lookup_elem(&xs_targets, id);
	if (!t || t->kind != XS_TARGET_BACKEND || !t->active ||
	    t->service != svc_id)
		return NULL;
	return t;
}

#endif /* XS_QUIC_H */
