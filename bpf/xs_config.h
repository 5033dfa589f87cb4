/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The xdpsteer XDP object's configuration, in its rodata: set by the loader
 * before load; never change afterwards.
 */
#ifndef XS_CONFIG_H
#define XS_CONFIG_H

#include <linux/bpf.h>
#include "xdpsteer.h"
#include "xs_gue.h"

const volatile __u32 cfg_unparsed_verdict = XDP_PASS;
const volatile __u32 cfg_nr_cpus = 1;
const volatile __u8 cfg_flow_table = 1;
/* New pins per second per CPU (0: no limit) and the burst allowed above it. */
const volatile __u32 cfg_pin_rate = 0;
const volatile __u32 cfg_pin_burst = 1;
const volatile __u64 cfg_cache_key = 0;
/* Flow-cache slots per CPU, a power of two (attach --flow-cache-size). */
const volatile __u32 cfg_cache_slots = XS_FLOW_CACHE_SLOTS;
const volatile struct xs_timeouts cfg_timeouts = {
	.tcp = XS_S_TO_TICKS(XS_DEFAULT_TCP_TIMEOUT_S),
	.fin = XS_S_TO_TICKS(XS_DEFAULT_FIN_TIMEOUT_S),
	.udp = XS_S_TO_TICKS(XS_DEFAULT_UDP_TIMEOUT_S),
	.refresh = XS_S_TO_TICKS(XS_MAX_REFRESH_S),
};

/* A packet too big once encapsulated: enum xs_too_big, and the ICMP rate (0: no limit). */
const volatile __u32 cfg_too_big = XS_TOO_BIG_ICMP;
const volatile __u32 cfg_icmp_rate = XS_DEFAULT_ICMP_RATE;
const volatile __u32 cfg_icmp_burst = XS_DEFAULT_ICMP_BURST;

/* GUE delivery: the UDP destination port (attach --gue-port). */
const volatile __u16 cfg_gue_port = XS_DEFAULT_GUE_PORT;

/* How often the flow clock ticks: a fraction of the shortest timeout's refresh. */
const volatile __u64 cfg_clock_period_ns = 10000000ULL;

#endif /* XS_CONFIG_H */
