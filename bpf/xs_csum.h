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
