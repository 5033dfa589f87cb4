// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The benchmark floor: an XDP program that returns the verdict xdpsteer
 * returns for a steered packet and does nothing else. Everything xdpsteer
 * costs is reported above this, timed the same way in the same run.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xs_floor_redirect(struct xdp_md *ctx)
{
	return XDP_REDIRECT;
}


/* The floor for the service path, whose verdict is XDP_TX. */
SEC("xdp")
int xs_floor_tx(struct xdp_md *ctx)
{
	return XDP_TX;
}

/*
 * Not a floor: the peer of the veth that live-frame runs transmit on. veth
 * delivers XDP_TX'd frames only to a peer that runs XDP; dropping them there
 * returns their pages to the run's page pool at once.
 */
SEC("xdp")
int xs_peer_drop(struct xdp_md *ctx)
{
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
