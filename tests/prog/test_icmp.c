// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ICMP that the load balancer answers itself, under BPF_PROG_TEST_RUN in a
 * private namespace (tests/prog/lb_env.h): echo replies to VIPs, checked
 * byte for byte against a reply built here with a full checksum
 * recomputation, and the requests it declines, each with its counter.
 *
 * Services as in the reports this test answers: ipip services on
 * 10.200.1.1, 10.200.1.3 and fc00:1::1 with backends 10.0.0.1-3.
 */
#define _GNU_SOURCE
#include <linux/bpf.h>
#include "one_cpu.h"
#include "pkt.h"
#include "test.h"

static struct prog_env env;

#include "lb_env.h"

#define XS_COUNTER_NAME(e, name, kind) #name,
static const char *const counter_names[] = { XS_COUNTERS(XS_COUNTER_NAME) };

static void counters(__u64 *c)
{
	if (xs_counters_read(&env.h, c))
		memset(c, 0, sizeof(__u64) * XS_C_MAX);
}

/* Exactly the counters in @want (terminated by XS_C_MAX) rose, by one each. */
static void counters_rose(const __u64 *before, const int *want, const char *what)
{
	__u64 after[XS_C_MAX], delta[XS_C_MAX] = { 0 };
	int i;

	counters(after);
	for (i = 0; want[i] != XS_C_MAX; i++)
		delta[want[i]]++;
	for (i = 0; i < XS_C_MAX; i++)
		ASSERT_TRUE(after[i] - before[i] == delta[i], "%s: counter %s rose by %llu, want %llu",
			    what, counter_names[i], (unsigned long long)(after[i] - before[i]),
			    (unsigned long long)delta[i]);
}

static int unhex(const char *s, unsigned char *out, __u32 max)
{
	__u32 n = 0;

	for (; s[0] && s[1] && n < max; s += 2)
		sscanf(s, "%2hhx", &out[n++]);
	return (int)n;
}

/* The Internet checksum of @len bytes, added to @sum (host order, unfolded). */
static __u32 sum16(const unsigned char *b, __u32 len, __u32 sum)
{
	__u32 i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (__u32)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		sum += (__u32)(b[len - 1] << 8);
	return sum;
}

static __u16 fold(__u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

static void put16(unsigned char *b, __u16 v)
{
	b[0] = v >> 8;
	b[1] = v & 0xff;
}

/*
 * The reply to the echo request @in (untagged), built the slow way: MACs and
 * addresses swapped, TTL 64, type 0 or 129, and the checksum computed afresh
 * over the whole message (and IPv6's pseudo-header).
 */
static void reply_of(const unsigned char *in, __u32 len, unsigned char *out)
{
	unsigned char tmp[16];

	memcpy(out, in, len);
	memcpy(out, in + 6, 6);
	memcpy(out + 6, in, 6);
	if (in[12] == 0x08) {
		unsigned char *ip = out + 14, *icmp = ip + 20;
		__u32 ip_len = (__u32)(ip[2] << 8 | ip[3]);

		memcpy(tmp, ip + 12, 4);
		memcpy(ip + 12, ip + 16, 4);
		memcpy(ip + 16, tmp, 4);
		ip[8] = 64;
		put16(ip + 10, 0);
		put16(ip + 10, fold(sum16(ip, 20, 0)));
		icmp[0] = 0;
		put16(icmp + 2, 0);
		put16(icmp + 2, fold(sum16(icmp, ip_len - 20, 0)));
	} else {
		unsigned char *ip6 = out + 14, *icmp = ip6 + 40;
		__u32 plen = (__u32)(ip6[4] << 8 | ip6[5]), sum;

		memcpy(tmp, ip6 + 8, 16);
		memcpy(ip6 + 8, ip6 + 24, 16);
		memcpy(ip6 + 24, tmp, 16);
		ip6[7] = 64;
		icmp[0] = 129;
		put16(icmp + 2, 0);
		sum = sum16(ip6 + 8, 32, plen + IPPROTO_ICMPV6);
		put16(icmp + 2, fold(sum16(icmp, plen, sum)));
	}
}

/* Send @in; the reply must be exactly reply_of(@in), and counted. */
static int expect_reply(const unsigned char *in, __u32 len, const char *what)
{
	unsigned char out[2048], want[2048];
	__u32 out_len = sizeof(out), i;
	__u64 before[XS_C_MAX];
	int ret;

	counters(before);
	ret = prog_env_run_on(&env, if_a, in, len, 1, out, &out_len, NULL);
	if (!ASSERT_TRUE(ret == XDP_TX && out_len == len, "%s: verdict %d, %u bytes", what, ret,
			 out_len))
		return -1;
	counters_rose(before, (const int[]){ XS_C_ICMP_ECHO, XS_C_MAX }, what);
	reply_of(in, len, want);
	for (i = 0; i < len; i++)
		if (!ASSERT_TRUE(out[i] == want[i], "%s: byte %u is 0x%02x, want 0x%02x", what, i,
				 out[i], want[i]))
			return -1;
	return 0;
}

/* The report: id 0, seq 0, no payload, to 10.200.1.3. The reply is all zero
 * but for its checksum, which must be 0xffff: 0x0000 fails every receiver. */
TEST(echo_reply_of_zeros_has_checksum_ffff)
{
	unsigned char in[128];
	int len = unhex("02000000000001000000000008004500001c000100004001ad6cc0a80101"
			"0ac801030800f7ff00000000",
			in, sizeof(in));

	if (expect_reply(in, (__u32)len, "id 0 seq 0, no payload"))
		return;
	/* And the very bytes the report expects. */
	{
		unsigned char out[128];
		__u32 out_len = sizeof(out);

		prog_env_run_on(&env, if_a, in, (__u32)len, 1, out, &out_len, NULL);
		ASSERT_EQ(out[14 + 20 + 2] << 8 | out[14 + 20 + 3], 0xffff, "ICMP checksum");
	}
}

/* A valid echo request of @plen payload bytes (random, or @fill) to @vip. */
static __u32 echo4(unsigned char *b, const char *src, const char *vip, __u8 code, __u16 id,
		   __u16 seq, __u32 plen, int fill)
{
	struct pkt p;
	__u8 *icmp;
	__u32 i;

	pkt_eth(&p, ETH_P_IP);
	pkt_ipv4(&p, src, vip, IPPROTO_ICMP, 0);
	icmp = pkt_push(&p, 8 + plen);
	icmp[0] = 8;
	icmp[1] = code;
	put16(icmp + 4, id);
	put16(icmp + 6, seq);
	for (i = 0; i < plen; i++)
		icmp[8 + i] = fill >= 0 ? (__u8)fill : (__u8)random();
	put16(icmp + 2, fold(sum16(icmp, 8 + plen, 0)));
	pkt_finish(&p);
	memcpy(b, p.buf, p.len);
	return p.len;
}

static __u32 echo6(unsigned char *b, const char *src, const char *vip, __u8 code, __u16 id,
		   __u16 seq, __u32 plen)
{
	struct pkt p;
	__u8 *icmp;
	__u32 i, sum;

	pkt_eth(&p, ETH_P_IPV6);
	pkt_ipv6(&p, src, vip, IPPROTO_ICMPV6);
	icmp = pkt_push(&p, 8 + plen);
	icmp[0] = 128;
	icmp[1] = code;
	put16(icmp + 4, id);
	put16(icmp + 6, seq);
	for (i = 0; i < plen; i++)
		icmp[8 + i] = (__u8)random();
	pkt_finish(&p);
	sum = sum16(p.buf + p.l3_off + 8, 32, 8 + plen + IPPROTO_ICMPV6);
	put16(icmp + 2, fold(sum16(icmp, 8 + plen, sum)));
	memcpy(b, p.buf, p.len);
	return p.len;
}

/*
 * The checksum update against a full recomputation, on random requests and
 * on the ones where an update can go wrong: messages that sum to zero (all
 * zero, of every length: only 0xffff is right) and to minus zero (0xffff
 * words: 0x0000 is what a recomputation gives).
 */
TEST(echo_reply_checksum_equals_recomputation)
{
	unsigned char in[1600];
	char src[32], what[96];
	__u32 i, len, n = 0;

	srandom(1624);
	for (i = 0; i < 20000; i++) {
		__u32 plen = (__u32)random() % (i & 1 ? 64 : 1400);
		__u8 code = random() % 8 ? 0 : (__u8)random();

		snprintf(src, sizeof(src), "192.168.%u.%u", (i >> 8) & 0xff, i & 0xff);
		len = echo4(in, src, "10.200.1.3", code, (__u16)random(), (__u16)random(), plen,
			    random() % 4 ? -1 : 0);
		snprintf(what, sizeof(what), "random request %u (%u payload bytes)", i, plen);
		if (expect_reply(in, len, what))
			break;
		n++;
	}
	for (i = 0; i < 64; i++) {
		len = echo4(in, "192.168.1.1", "10.200.1.3", 0, 0, 0, i, 0);
		snprintf(what, sizeof(what), "all-zero message, %u payload bytes", i);
		if (expect_reply(in, len, what))
			break;
		/* One 0xffff word where the zeros were: it sums to minus zero. */
		len = echo4(in, "192.168.1.1", "10.200.1.3", 0, 0xffff, 0, i, 0);
		snprintf(what, sizeof(what), "minus-zero message, %u payload bytes", i);
		if (expect_reply(in, len, what))
			break;
		len = echo4(in, "192.168.1.1", "10.200.1.3", 0, 0, 0, i + 2, 0);
		in[len - 2] = in[len - 1] = 0xff; /* its checksum is unchanged: ~0 + 0 */
		snprintf(what, sizeof(what), "minus zero in the payload, %u bytes", i + 2);
		if (expect_reply(in, len, what))
			break;
		n += 3;
	}
	for (i = 0; i < 5000; i++) {
		__u32 plen = (__u32)random() % 1200;

		snprintf(src, sizeof(src), "fc00:2::%x", i + 1);
		len = echo6(in, src, "fc00:1::1", random() % 8 ? 0 : (__u8)random(),
			    (__u16)random(), (__u16)random(), plen);
		snprintf(what, sizeof(what), "random IPv6 request %u (%u payload bytes)", i, plen);
		if (expect_reply(in, len, what))
			break;
		n++;
	}
	printf("  %u echo replies equal to the recomputed ones\n", n);
}

/* A request the program will not answer goes up untouched, and is counted. */
static void expect_declined(const char *hex, const char *what)
{
	unsigned char in[256], out[2048];
	__u32 out_len = sizeof(out);
	__u64 before[XS_C_MAX];
	int len = unhex(hex, in, sizeof(in)), ret;

	counters(before);
	ret = prog_env_run_on(&env, if_a, in, (__u32)len, 1, out, &out_len, NULL);
	ASSERT_EQ(ret, XDP_PASS, what);
	ASSERT_TRUE(out_len == (__u32)len && !memcmp(out, in, out_len), "%s: frame unchanged", what);
	counters_rose(before, (const int[]){ XS_C_ICMP_ECHO_PASS, XS_C_MAX }, what);
}

TEST(declined_echo_requests_are_counted)
{
	expect_declined("020000000000010000000000080046000020000100004001aa68c0a801010ac80101"
			"010101010800f7ff00000000",
			"to a VIP, with IPv4 options");
	expect_declined("02000000000001000000000086dd6000000000100040fc0000020000000000000000"
			"00000001fc000001000000000000000000000001"
			"3a00010400000000800087b600000000",
			"ICMPv6 behind a hop-by-hop header");
}

/* ---- ICMP "too big" --------------------------------------------------- */

static __u64 delta(const __u64 *before, int c)
{
	__u64 now[XS_C_MAX];

	counters(now);
	return now[c] - before[c];
}

/* A @ip_len-byte packet of @proto from @src:5000 to @vip:80, DF set or not, @tags VLAN tags. */
static __u32 big_pkt(unsigned char *b, const char *src, const char *vip, __u8 proto, __u32 ip_len,
		     int df, int tags)
{
	int v6 = strchr(vip, ':') != NULL;
	struct pkt p;
	int i;

	pkt_eth(&p, v6 ? ETH_P_IPV6 : ETH_P_IP);
	for (i = 0; i < tags; i++)
		pkt_vlan(&p, i ? ETH_P_8021Q : ETH_P_8021AD, (unsigned short)(100 + i));
	if (v6)
		pkt_ipv6(&p, src, vip, proto);
	else
		pkt_ipv4(&p, src, vip, proto, 0);
	if (proto == IPPROTO_TCP || proto == IPPROTO_UDP)
		pkt_ports(&p, proto, 5000, 80);
	pkt_payload(&p, ip_len - (p.len - p.l3_off));
	pkt_finish(&p);
	if (!v6 && df) {
		struct iphdr *ip = (struct iphdr *)(p.buf + p.l3_off);

		ip->frag_off |= htons(0x4000);
		ip->check = 0;
		ip->check = pkt_csum(ip, 20);
	}
	memcpy(b, p.buf, p.len);
	return p.len;
}

/*
 * The answer to @in, built here: its L2 header with the MACs swapped (tags
 * kept), a new IP header from the VIP to the client, the ICMP header with
 * @mtu, and the first 128 bytes of the packet; checksums computed afresh.
 */
static __u32 too_big_of(const unsigned char *in, __u32 l3, __u32 mtu, unsigned char *out)
{
	const unsigned char *ip = in + l3;
	int v6 = (ip[0] >> 4) == 6;
	__u32 hdr = v6 ? 40 : 20, n = 0, sum;
	unsigned char *nip, *icmp;

	memcpy(out, in + 6, 6);
	memcpy(out + 6, in, 6);
	memcpy(out + 12, in + 12, l3 - 12);
	n = l3;
	nip = out + n;
	memset(nip, 0, hdr + 8);
	icmp = nip + hdr;
	memcpy(icmp + 8, ip, 128);
	if (!v6) {
		nip[0] = 0x45;
		put16(nip + 2, 20 + 8 + 128);
		nip[8] = 64;
		nip[9] = IPPROTO_ICMP;
		memcpy(nip + 12, ip + 16, 4);
		memcpy(nip + 16, ip + 12, 4);
		put16(nip + 10, fold(sum16(nip, 20, 0)));
		icmp[0] = 3;
		icmp[1] = 4;
		put16(icmp + 6, (__u16)mtu);
		put16(icmp + 2, fold(sum16(icmp, 136, 0)));
	} else {
		nip[0] = 0x60;
		put16(nip + 4, 136);
		nip[6] = IPPROTO_ICMPV6;
		nip[7] = 64;
		memcpy(nip + 8, ip + 24, 16);
		memcpy(nip + 24, ip + 8, 16);
		icmp[0] = 2;
		icmp[4] = (__u8)(mtu >> 24);
		icmp[5] = (__u8)(mtu >> 16);
		icmp[6] = (__u8)(mtu >> 8);
		icmp[7] = (__u8)mtu;
		sum = sum16(nip + 8, 32, 136 + IPPROTO_ICMPV6);
		put16(icmp + 2, fold(sum16(icmp, 136, sum)));
	}
	return l3 + hdr + 136;
}

/* Send @in: answered with exactly too_big_of(@in, @l3, @mtu), counted icmp_too_big_sent. */
static void expect_too_big(const unsigned char *in, __u32 len, __u32 l3, __u32 mtu,
			   const char *what)
{
	unsigned char out[2048], want[512];
	__u32 out_len = sizeof(out), want_len = too_big_of(in, l3, mtu, want), i;
	__u64 before[XS_C_MAX];
	int ret;

	counters(before);
	ret = prog_env_run_on(&env, if_a, in, len, 1, out, &out_len, NULL);
	ASSERT_EQ(ret, XDP_TX, what);
	ASSERT_EQ(delta(before, XS_C_ICMP_TOO_BIG), 1, what);
	ASSERT_EQ(delta(before, XS_C_TOO_BIG), 0, what);
	if (!ASSERT_EQ(out_len, want_len, what))
		return;
	for (i = 0; i < out_len; i++)
		if (!ASSERT_TRUE(out[i] == want[i], "%s: byte %u is 0x%02x, want 0x%02x", what, i,
				 out[i], want[i]))
			return;
}

/* Send @in: dropped, too_big, no ICMP. */
static void expect_too_big_drop(const unsigned char *in, __u32 len, const char *what)
{
	__u64 before[XS_C_MAX];

	counters(before);
	ASSERT_EQ(prog_env_run_on(&env, if_a, in, len, 1, NULL, NULL, NULL), XDP_DROP, what);
	ASSERT_EQ(delta(before, XS_C_TOO_BIG), 1, what);
	ASSERT_EQ(delta(before, XS_C_ICMP_TOO_BIG), 0, what);
}

/*
 * 1500 bytes with DF to a VIP whose backends lie behind lbA (MTU 1500): 1520
 * once encapsulated, so it is answered, with the 1480 bytes that fit. The
 * same flow's next packet, sent from its cached recipe, gets the same answer.
 */
TEST(too_big_with_df_gets_fragmentation_needed)
{
	unsigned char in[1600];
	__u32 len = big_pkt(in, "192.168.7.1", "10.200.1.3", IPPROTO_UDP, 1500, 1, 0);

	expect_too_big(in, len, 14, 1480, "UDP, DF");
	expect_too_big(in, len, 14, 1480, "UDP, DF, again (from the flow cache)");
	len = big_pkt(in, "192.168.7.2", "10.200.1.3", IPPROTO_UDP, 1481, 1, 0);
	expect_too_big(in, len, 14, 1480, "one byte too many");
	len = big_pkt(in, "192.168.7.3", "10.200.1.3", IPPROTO_UDP, 1480, 1, 0);
	{
		__u64 before[XS_C_MAX];

		counters(before);
		ASSERT_EQ(prog_env_run_on(&env, if_a, in, len, 1, NULL, NULL, NULL), XDP_TX,
			  "1480 bytes fit: tunnelled");
		ASSERT_EQ(delta(before, XS_C_ICMP_TOO_BIG) + delta(before, XS_C_TOO_BIG), 0,
			  "1480 bytes: neither answered nor dropped");
	}
	len = big_pkt(in, "192.168.7.4", "10.200.1.3", IPPROTO_UDP, 1500, 1, 2);
	expect_too_big(in, len, 22, 1480, "two VLAN tags: the answer keeps them");
}

TEST(too_big_answered_only_where_a_router_would)
{
	unsigned char in[1600];
	__u32 len;

	len = big_pkt(in, "192.168.8.1", "10.200.1.3", IPPROTO_UDP, 1500, 0, 0);
	expect_too_big_drop(in, len, "IPv4 without DF");
	/* Fragments carry no ports: they reach only an any-port service. */
	len = big_pkt(in, "192.168.8.2", "10.200.1.5", IPPROTO_UDP, 1500, 1, 0);
	in[14 + 6] |= 0x01; /* offset 256 bytes: not the first fragment */
	expect_too_big_drop(in, len, "a later fragment");
	/* A "fragmentation needed" about a backend's reply (10.200.1.3:80 ->
	 * 192.168.8.3:5000), padded to 1500 bytes: steered to the flow's
	 * backend, and too big for the tunnel; never an error about an error. */
	len = big_pkt(in, "192.168.8.4", "10.200.1.3", IPPROTO_ICMP, 1500, 1, 0);
	{
		unsigned char q[64];

		big_pkt(q, "10.200.1.3", "192.168.8.3", IPPROTO_UDP, 28, 0, 0);
		memset(in + 34, 0, 8);
		in[34] = 3;
		in[35] = 4;
		memcpy(in + 42, q + 14, 28);
		/* The quote's ports: 80 -> 5000, reversed to the client's flow. */
		put16(in + 42 + 20, 80);
		put16(in + 42 + 22, 5000);
	}
	expect_too_big_drop(in, len, "an ICMP error: never an error about one");
}

/*
 * IPv6 to an IPv6 backend (40 bytes of IP6IP6) and IPv4 to an IPv6 backend
 * (IPv4-in-IPv6): the MTU that fits counts the outer header of the backend's
 * family.
 */
TEST(too_big_ipv6_gets_packet_too_big)
{
	unsigned char in[1600];
	__u32 len;

	len = big_pkt(in, "fc00:2::7", "fc00:1::2", IPPROTO_TCP, 1500, 0, 0);
	expect_too_big(in, len, 14, 1460, "IPv6 TCP, IP6IP6");
	len = big_pkt(in, "fc00:2::8", "fc00:1::2", IPPROTO_UDP, 1500, 0, 1);
	expect_too_big(in, len, 18, 1460, "IPv6 UDP, one VLAN tag");
	len = big_pkt(in, "192.168.9.1", "10.200.1.4", IPPROTO_TCP, 1470, 1, 0);
	expect_too_big(in, len, 14, 1460, "IPv4 in IPv6: 40 bytes of outer header");
}

/* At most the burst, then the rate: the rest are dropped and counted. */
TEST(too_big_answers_are_rate_limited)
{
	unsigned char in[1600];
	char src[32];
	__u64 before[XS_C_MAX], sent, limited;
	__u32 i, len;

	counters(before);
	for (i = 0; i < 3 * XS_DEFAULT_ICMP_BURST; i++) {
		snprintf(src, sizeof(src), "192.168.10.%u", i % 250 + 1);
		len = big_pkt(in, src, "10.200.1.3", IPPROTO_UDP, 1500, 1, 0);
		prog_env_run_on(&env, if_a, in, len, 1, NULL, NULL, NULL);
	}
	sent = delta(before, XS_C_ICMP_TOO_BIG);
	limited = delta(before, XS_C_ICMP_LIMITED);
	printf("  %d packets too big: %llu answered, %llu over the rate\n",
	       3 * XS_DEFAULT_ICMP_BURST, (unsigned long long)sent, (unsigned long long)limited);
	ASSERT_TRUE(sent + limited == 3 * XS_DEFAULT_ICMP_BURST, "every one answered or limited");
	ASSERT_TRUE(sent <= XS_DEFAULT_ICMP_BURST + 20, "answered: the burst and what the rate "
		    "refilled meanwhile (%llu)", (unsigned long long)sent);
	ASSERT_EQ(delta(before, XS_C_TOO_BIG), limited, "the limited ones are dropped as too_big");
}

/* attach --too-big drop: count and drop, as before. */
TEST(too_big_drop_policy)
{
	static const char *const be[] = { "10.0.0.1" };
	struct prog_env_cfg cfg = { .flow_entries = 4096, .unparsed_verdict = XDP_PASS,
				    .too_big = XS_TOO_BIG_DROP };
	struct prog_env saved = env;
	unsigned char in[1600];
	__u32 len;

	if (!ASSERT_EQ(prog_env_open_cfg(&env, &cfg), 0, "load with --too-big drop") ||
	    !ASSERT_EQ(prog_env_targets(&env, XS_ALGO_JUMP, 0, 0, seed), 0, "empty queue pool") ||
	    !ASSERT_TRUE(add_service("10.200.1.3:80/udp", XS_ENCAP_IPIP, be, 1), "service")) {
		env = saved;
		return;
	}
	len = big_pkt(in, "192.168.11.1", "10.200.1.3", IPPROTO_UDP, 1500, 1, 0);
	expect_too_big_drop(in, len, "DF, policy drop");
	prog_env_close(&env);
	env = saved;
}

static int setup(void)
{
	static const char *const be[] = { "10.0.0.1", "10.0.0.2", "10.0.0.3" };
	static const char *const be6[] = { "2001:db8:20::11" };

	if (stay_on_one_cpu("prog_icmp"))
		exit(1);
	if (netns_setup() || sh("ip route add 10.0.0.0/24 dev lbA") ||
	    sh("for i in 1 2 3; do ip neigh add 10.0.0.$i lladdr 02:00:00:00:00:11 dev lbA "
	       "nud permanent; done") ||
	    prog_env_open(&env, 4096, XDP_PASS) || prog_env_targets(&env, XS_ALGO_JUMP, 0, 0, seed) ||
	    !add_service("10.200.1.1:80/udp", XS_ENCAP_IPIP, be, 3) ||
	    !add_service("10.200.1.3:80/udp", XS_ENCAP_IPIP, be, 3) ||
	    !add_service("[fc00:1::1]:80/udp", XS_ENCAP_IPIP, be, 0) ||
	    !add_service("[fc00:1::2]:80/tcp", XS_ENCAP_IPIP, be6, 1) ||
	    !add_service("[fc00:1::2]:80/udp", XS_ENCAP_IPIP, be6, 1) ||
	    !add_service("10.200.1.4:80/tcp", XS_ENCAP_IPIP, be6, 1) ||
	    !add_service("10.200.1.5:*/udp", XS_ENCAP_IPIP, be, 3)) {
		fprintf(stderr, "FAIL: cannot set up the namespace or load the XDP program\n");
		return -1;
	}
	return 0;
}

static void teardown(void)
{
	prog_env_close(&env);
}

TEST_MAIN("prog_icmp", setup, teardown)
