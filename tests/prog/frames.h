/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Service-path frames byte for byte (tests/prog/test_lb.c, test_gue.c,
 * test_chance.c, test_hops.c): the outer header the load balancer writes
 * in front of a client's IPv4 packet, and the check that a frame the
 * program sent is exactly the one expected.
 */
#ifndef XS_TEST_FRAMES_H
#define XS_TEST_FRAMES_H

#include <arpa/inet.h>
#include <string.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include "pkt.h"
#include "test.h"

/* @in's IPv4 packet, after its Ethernet header (and tags): the inner packet of a tunnel. */
static inline const struct iphdr *frame_inner4(const struct pkt *in, __u32 *len)
{
	const struct iphdr *inner = (const void *)(in->buf + in->l3_off);

	*len = ntohs(inner->tot_len);
	return inner;
}

/*
 * Start @want as the frame towards IPv4 backend @backend for inner packet
 * @in: Ethernet from @smac to @dmac, then the outer IPv4 header of
 * protocol @proto with @extra bytes (UDP and GUE) to come between it and
 * the inner packet. Its source is 172.16.0.0/16 with the flow's low 16
 * hash bits (the services' src4 in lb_env.h), DSCP and ECN are copied from
 * the inner header, TTL 64. The caller pushes the @extra bytes and the
 * inner packet.
 */
static inline void frame_outer4(struct pkt *want, const struct pkt *in, const unsigned char *dmac,
				const unsigned char *smac, const char *backend, __u32 hash,
				__u8 proto, __u32 extra)
{
	__u32 inner_len;
	const struct iphdr *inner = frame_inner4(in, &inner_len);
	struct ethhdr *eth;
	struct iphdr *ip;

	memset(want, 0, sizeof(*want));
	eth = pkt_push(want, sizeof(*eth));
	memcpy(eth->h_dest, dmac, 6);
	memcpy(eth->h_source, smac, 6);
	eth->h_proto = htons(ETH_P_IP);
	ip = pkt_push(want, sizeof(*ip));
	ip->version = 4;
	ip->ihl = 5;
	ip->tos = inner->tos;
	ip->tot_len = htons(inner_len + sizeof(*ip) + extra);
	ip->ttl = 64;
	ip->protocol = proto;
	ip->saddr = htonl(0xac100000 | (hash & 0xffff));
	inet_pton(AF_INET, backend, &ip->daddr);
	ip->check = pkt_csum(ip, sizeof(*ip));
}

/* The frame the program sent (@out, @out_len) is @want, byte for byte; the first difference is named. */
static inline void check_frame(const struct pkt *want, const unsigned char *out, __u32 out_len,
			       const char *what)
{
	__u32 i;

	if (!ASSERT_EQ(out_len, want->len, what))
		return;
	for (i = 0; i < out_len; i++) {
		if (out[i] != want->buf[i]) {
			ASSERT_TRUE(0, "%s: byte %u is 0x%02x, want 0x%02x", what, i, out[i],
				    want->buf[i]);
			return;
		}
	}
}

#endif /* XS_TEST_FRAMES_H */
