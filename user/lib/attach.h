/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Attaching xdpsteer to an interface, and detaching it. */
#ifndef XS_ATTACH_H
#define XS_ATTACH_H

#include <xdp/libxdp.h>
#include "model.h"

/* What the object is loaded with: fixed for the attachment's life (BPF rodata, map sizes). */
struct xs_attach_cfg {
	enum xdp_attach_mode mode;
	__u32 flow_entries;	/* LRU flow pins; 0 disables pinning */
	__u32 pin_rate;		/* new pins per second per CPU; 0: no limit */
	__u32 cache_slots;	/* flow-cache slots per CPU, a power of two */
	__u32 unparsed_verdict;	/* XDP_PASS or XDP_DROP */
	__u32 too_big;		/* enum xs_too_big: ICMP back, or drop */
	__u32 gue_port;		/* gue: UDP destination port */
	struct xs_timeouts timeouts;
};

/* Attach to @ifname with @cfg, and commit @set as the first model. 0 or -errno (printed). */
int xs_attach(const char *ifname, const struct xs_attach_cfg *cfg, const struct xs_settings *set);
struct xdpsteer;
/* Pin every map of @skel (but rodata and bss) under @dir: created there, or reused. */
int xs_set_pin_paths(struct xdpsteer *skel, const char *dir);
/* Detach from @ifname and remove its pins, also when the interface is gone. */
int xs_detach(const char *ifname);

#endif /* XS_ATTACH_H */
