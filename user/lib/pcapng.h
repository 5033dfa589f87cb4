/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A pcapng writer, as much as `xdpsteer trace --pcap` needs: a Section
 * Header, one Ethernet Interface Description with nanosecond timestamps,
 * and an Enhanced Packet Block per packet with a comment (opt_comment).
 */
#ifndef XS_PCAPNG_H
#define XS_PCAPNG_H

#include <stdio.h>
#include <linux/types.h>

/* Section Header and Interface Description (@ifname, @snaplen) into @f: 0 or -errno. */
int xs_pcapng_start(FILE *f, const char *ifname, __u32 snaplen);
/* One packet: @cap of its @len bytes, at @ts_ns (Unix time), with @comment (may be NULL). */
int xs_pcapng_packet(FILE *f, __u64 ts_ns, const void *data, __u32 cap, __u32 len,
		     const char *comment);

#endif /* XS_PCAPNG_H */
