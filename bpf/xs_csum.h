/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Internet checksums (RFC 1071) of the headers the program writes or changes. */
#ifndef XS_CSUM_H
#define XS_CSUM_H

#include <linux/ip.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

static __always_inline __u16 xs_csum_fold(__u32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/*
 * RFC 1624 eqn. 3: the checksum @hc of data in which the 16-bit word @m became
 * @m2, all three as the packet holds them: HC' = ~(~HC + ~m + m'). It agrees
 * with a full recomputation except on data that sums to zero, where it gives
 * 0x0000 and a recomputation 0xffff: only an all-zero message does that, and
 * only a checksum that covers nothing else can see it (an IPv4 header, or
 * ICMPv6 with its pseudo-header, never can; ICMPv4 can: xs_echo_reply()).
 */
static __always_inline __u16 xs_csum_replace(__u16 hc, __u16 m, __u16 m2)
{
	return xs_csum_fold((__u32)(__u16)~hc + (__u16)~m + m2);
}

/* An IPv4 header's checksum, anew, over its first 20 bytes: for a header without options. */
static __always_inline void xs_ip4_csum(struct iphdr *ip)
{
	__u16 *w = (__u16 *)ip;
	__u32 sum = 0;
	int i;

	ip->check = 0;
#pragma unroll
	for (i = 0; i < (int)(sizeof(*ip) / 2); i++)
		sum += w[i];
	ip->check = xs_csum_fold(sum);
}

#endif /* XS_CSUM_H */
