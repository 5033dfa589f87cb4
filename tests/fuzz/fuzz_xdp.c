// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Differential fuzzer of the packet path: every input is a frame, run once
 * through xdpsteer_xdp with BPF_PROG_TEST_RUN and once through the userspace
 * reference (ref.h). Verdict, the target charged, every counter and the
 * output bytes must agree; any difference is printed and abort()s, which
 * libFuzzer records as a crash and saves as a reproducer.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <linux/if_ether.h>
#include "fuzz_env.h"

#define FUZZ_MIN_LEN ETH_HLEN /* BPF_PROG_TEST_RUN refuses shorter frames */
#define FUZZ_MAX_LEN 1600

/*
 * Findings so far, all fixed, each kept as a reproducer under
 * tests/fuzz/repro/ that tests/fuzz/run.sh replays first:
 *  1. icmp_error_steered was not counted when the ICMP error's flow was in
 *     the flow cache. (repro/icmp_error_cached/)
 *  2. An echo request to a VIP that xs_echo_reply() declined went up with
 *     its MACs already swapped, and ICMP (protocol 1) inside IPv6 was taken
 *     for ICMPv6. (repro/echo_pass_swapped_macs/)
 *  3. An IPv6 packet to an IPv4-mapped address matched the IPv4 VIP's
 *     service and was tunnelled as IPIP. IPv6 headers with IPv4-mapped
 *     addresses are now refused by the parser. (repro/v6_mapped_dst_ipip/)
 *  4. An echo request whose IPv4 total length ended inside its ICMP header
 *     was answered from the bytes after the datagram. (repro/echo_short_datagram/)
 *  5. An ICMPv6 error quoting an IPv4-mapped address was steered by it.
 *     (repro/v6_quote_mapped/)
 * The first three were found against a reference built on the program's
 * own parser; it agreed with the program wherever they shared a mistake.
 * The reference is now independent (ref.h), and found 4 and 5.
 */

#define XS_COUNTER_NAME(e, name, kind) #name,
static const char *const counter_names[] = { XS_COUNTERS(XS_COUNTER_NAME) };

static void dump(const char *what, const unsigned char *b, __u32 len)
{
	__u32 i;

	fprintf(stderr, "  %s (%u bytes):", what, len);
	for (i = 0; i < len; i++)
		fprintf(stderr, "%s%02x", i % 32 ? " " : "\n    ", b[i]);
	fprintf(stderr, "\n");
}

static __attribute__((noreturn)) void disagree(const unsigned char *in, __u32 len,
					       const char *why)
{
	fprintf(stderr, "fuzz: kernel and reference disagree: %s\n", why);
	dump("input", in, len);
	abort();
}

/* The tunnel frame: outer header to the backend, then the IP packet as it came. */
static const char *check_tunnel(const struct ref_result *r, const unsigned char *in, __u32 len,
				const unsigned char *out, __u32 target)
{
	const struct xs_target *be = &cfg.targets[target];
	const unsigned char *outer = out + ETH_HLEN;

	if (memcmp(out, cfg.be_mac, 6) || memcmp(out + 6, cfg.lb_mac, 6))
		return "tunnel MACs";
	if (be->family == 4) {
		__u8 want = r->inner_family == 4 ? IPPROTO_IPIP : IPPROTO_IPV6;

		if (out[12] != 0x08 || out[13] != 0x00 || outer[0] != 0x45)
			return "outer IPv4 header";
		if (outer[9] != want)
			return "outer IPv4 protocol does not name the inner family";
		if (memcmp(outer + 16, &be->addr[12], 4))
			return "outer IPv4 destination";
		if (ref_csum(outer, 20))
			return "outer IPv4 checksum";
	} else {
		__u8 want = r->inner_family == 4 ? IPPROTO_IPIP : IPPROTO_IPV6;

		if (out[12] != 0x86 || out[13] != 0xdd || outer[0] >> 4 != 6)
			return "outer IPv6 header";
		if (outer[6] != want)
			return "outer IPv6 next header";
		if (memcmp(outer + 24, be->addr, 16))
			return "outer IPv6 destination";
	}
	if (memcmp(outer + r->outer, in + r->l3_off, len - r->l3_off))
		return "inner packet changed";
	return NULL;
}

/*
 * Checksums are what random mutation cannot get right: a mutated echo
 * request almost never carries a valid checksum, so the paths where a valid
 * one matters (a reply whose checksum must be exactly a recomputation's)
 * would go untried. Half the mutants are repaired after libFuzzer's
 * mutation: the IPv4 header checksum, and an echo request's ICMP checksum
 * over its datagram (the reference's own checksum code, ref.h).
 */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static void repair(uint8_t *b, size_t len)
{
	size_t l3 = 14, type;
	uint8_t *ip, *icmp;
	__u32 dlen;

	if (len < 14)
		return;
	type = ref_get16(b + 12);
	while ((type == 0x8100 || type == 0x88a8) && l3 < 22 && len >= l3 + 4) {
		type = ref_get16(b + l3 + 2);
		l3 += 4;
	}
	ip = b + l3;
	if (type == 0x0800 && len >= l3 + 20 && (ip[0] & 0xf) == 5) {
		dlen = ref_get16(ip + 2);
		ref_put16(ip + 10, 0);
		ref_put16(ip + 10, ref_csum(ip, 20));
		icmp = ip + 20;
		if (ip[9] == IPPROTO_ICMP && dlen >= 28 && l3 + dlen <= len && icmp[0] == 8) {
			ref_put16(icmp + 2, 0);
			ref_put16(icmp + 2, ref_csum(icmp, dlen - 20));
		}
	} else if (type == 0x86dd && len >= l3 + 48 && ip[6] == IPPROTO_ICMPV6) {
		dlen = ref_get16(ip + 4);
		icmp = ip + 40;
		if (dlen >= 8 && l3 + 40 + dlen <= len && icmp[0] == 128) {
			ref_put16(icmp + 2, 0);
			ref_put16(icmp + 2, (__u16)~ref_add(ref_sum_pseudo6(ip + 8, ip + 24, dlen),
							    ref_sum(icmp, dlen)));
		}
	}
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	size = LLVMFuzzerMutate(data, size, max_size);
	if (seed & 1)
		repair(data, size);
	return size;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (fuzz_env_setup()) {
		fprintf(stderr, "fuzz: cannot set up (root, a BPF-capable kernel and iproute2 "
				"are required)\n");
		exit(1);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ref_result r;
	static unsigned char out[4096];
	__u64 c0[XS_C_MAX], c1[XS_C_MAX], p0[FUZZ_MAX_WATCH], p1[FUZZ_MAX_WATCH];
	__u32 out_len = sizeof(out), len = (__u32)size, i, charged = XS_NO_TARGET, n_charged = 0;
	const char *bad = NULL;
	char why[256];
	int ret;

	if (size < FUZZ_MIN_LEN || size > FUZZ_MAX_LEN)
		return -1; /* not added to the corpus */
	ref_run(&cfg, data, len, &r);
	if (fuzz_counters(c0) || fuzz_packets(p0))
		disagree(data, len, "cannot read the maps");
	ret = prog_env_run_on(&env, if_a, data, len, 1, out, &out_len, NULL);
	if (fuzz_counters(c1) || fuzz_packets(p1))
		disagree(data, len, "cannot read the maps");
	if (ret < 0)
		disagree(data, len, "BPF_PROG_TEST_RUN failed");

	if (ret != r.verdict) {
		snprintf(why, sizeof(why), "verdict %d, reference %d", ret, r.verdict);
		disagree(data, len, why);
	}
	for (i = 0; i < n_watch; i++) {
		if (p1[i] == p0[i])
			continue;
		charged = watch[i];
		n_charged += p1[i] - p0[i];
	}
	if (n_charged > 1 || charged != r.target) {
		snprintf(why, sizeof(why), "target %u (%u packets charged), reference %u",
			 charged, n_charged, r.target);
		disagree(data, len, why);
	}
	for (i = 0; i < XS_C_MAX; i++) {
		__u64 got = c1[i] - c0[i], want = r.counters[i];

		/* History: an earlier FIN and this SYN make a pin expire. */
		if (i == XS_C_FLOW_HIT || i == XS_C_FLOW_NEW || i == XS_C_FLOW_EXPIRED)
			continue;
		/* History too: whether the flow's cache entry holds a current recipe. */
		if (i == XS_C_RECIPE_MADE) {
			if (got > 1)
				disagree(data, len, "recipe_made rose by more than one");
			continue;
		}
		if (got != want) {
			snprintf(why, sizeof(why), "counter %s rose by %llu, reference %llu",
				 counter_names[i], (unsigned long long)got,
				 (unsigned long long)want);
			disagree(data, len, why);
		}
	}
	/* Hit or new depends on the flow table's history; that one lookup happened does not. */
	if (c1[XS_C_FLOW_HIT] - c0[XS_C_FLOW_HIT] + c1[XS_C_FLOW_NEW] - c0[XS_C_FLOW_NEW] !=
	    (__u64)r.flow_lookups)
		disagree(data, len, "flow_hit + flow_new did not rise by the flow lookups made");

	switch (r.bytes) {
	case REF_SAME:
		if (out_len != len || memcmp(out, data, len))
			bad = "frame changed";
		break;
	case REF_EXACT:
		if (out_len != r.out_len || memcmp(out, r.out, out_len))
			bad = "frame differs from the reference frame";
		break;
	case REF_TUNNEL:
		bad = out_len != r.out_len ? "tunnel frame length"
					   : check_tunnel(&r, data, len, out, r.target);
		break;
	}
	if (bad) {
		if (r.bytes == REF_EXACT)
			dump("expected", r.out, r.out_len);
		dump("output", out, out_len);
		disagree(data, len, bad);
	}
	return 0;
}
