// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The benchmark floor: an XDP program that returns the verdict xdpsteer
 * returns for a steered packet and does nothing else. Everything xdpsteer
 * costs is reported above this, timed the same way in the same run.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

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

/*
 * Not a floor but a baseline: the least a CPU-steering program can do.
 * Parse Ethernet, IPv4 and the ports, hash the 4-tuple with jhash, redirect
 * to CPU hash % 2. No state, no counters: what xdpsteer's CPU path is
 * compared with (bench_scale.c).
 */
struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct bpf_cpumap_val);
} jh_cpumap SEC(".maps");

/*
 * The references' whole parse: an IPv4 packet (Ethernet, no tags) and the
 * four bytes of its ports; NULL for anything else, which they pass.
 */
static __always_inline struct iphdr *ref_ipv4(struct xdp_md *ctx, __u32 **ports)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return NULL;
	*ports = (void *)ip + ip->ihl * 4;
	if ((void *)(*ports + 1) > end)
		return NULL;
	return ip;
}

static __always_inline __u32 rol32(__u32 w, int s)
{
	return (w << s) | (w >> (32 - s));
}

/* Bob Jenkins' lookup3 final mix of three words (jhash_3words), written from the paper. */
static __always_inline __u32 jhash3(__u32 a, __u32 b, __u32 c, __u32 initval)
{
	a += 0xdeadbeef + (3 << 2) + initval;
	b += 0xdeadbeef + (3 << 2) + initval;
	c += 0xdeadbeef + (3 << 2) + initval;
	c ^= b; c -= rol32(b, 14);
	a ^= c; a -= rol32(c, 11);
	b ^= a; b -= rol32(a, 25);
	c ^= b; c -= rol32(b, 16);
	a ^= c; a -= rol32(c, 4);
	b ^= a; b -= rol32(a, 14);
	c ^= b; c -= rol32(b, 24);
	return c;
}

SEC("xdp")
int xs_jhash_redirect(struct xdp_md *ctx)
{
	__u32 *ports;
	struct iphdr *ip = ref_ipv4(ctx, &ports);

	if (!ip)
		return XDP_PASS;
	return bpf_redirect_map(&jh_cpumap, jhash3(ip->saddr, ip->daddr, *ports, 0) % 2, 0);
}

/*
 * Not a floor but a reference for the many-flows rows: one lookup of the
 * packet's 40-byte key (addresses, ports, protocol) in an LRU hash
 * of 24-byte values, inserting on a miss, then XDP_TX. As Katran's balancer
 * does per packet for a flow it already knows, and no more: what keeping a
 * flow's state in a kernel LRU costs at least (bench_scale.c, "one LRU").
 * The bench loads it afresh, with a table of xdpsteer's size, for each run.
 */
struct one_key {
	__u32 saddr, daddr, ports;
	__u32 pad[6];
	__u8 proto;
	__u8 pad8[3];
};

struct one_val {
	__u32 pos, flags;
	__u64 seen, hash;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);	/* sized by the bench */
	__type(key, struct one_key);
	__type(value, struct one_val);
} one_lru SEC(".maps");

SEC("xdp")
int xs_one_lru(struct xdp_md *ctx)
{
	struct one_key k = {};
	struct one_val v = {}, *found;
	__u32 *ports;
	struct iphdr *ip = ref_ipv4(ctx, &ports);

	if (!ip)
		return XDP_PASS;
	k.saddr = ip->saddr;
	k.daddr = ip->daddr;
	k.ports = *ports;
	k.proto = ip->protocol;
	found = bpf_map_lookup_elem(&one_lru, &k);
	if (!found) {
		v.pos = k.saddr;
		bpf_map_update_elem(&one_lru, &k, &v, BPF_ANY);
	}
	return XDP_TX;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
