// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * xs_parse_fast() against xs_parse() (include/xs_parse.h). The XDP program
 * tries the fast parser first and keys the packet by what it returns, so on
 * every frame it accepts it must fill exactly what xs_parse() fills, and it
 * must accept every frame of the common case it claims (else established
 * flows pay for the general parser for nothing). Checked on hand-made
 * frames of each kind, then on two million random mutations of them.
 */
#include <arpa/inet.h>
#include <string.h>

#include "test.h"
#include "prog/pkt.h"
#include "xs_parse.h"

#define MUTATIONS 2000000

/* The general parser on a zeroed result, as the XDP program calls it. */
static int parse_slow(const struct pkt *p, struct xs_parsed *out)
{
	memset(out, 0, sizeof(*out));
	return xs_parse((void *)p->buf, (void *)(p->buf + p->len), out);
}

/* 0 accepted, -1 declined; a declined frame must leave @out as it was. */
static int parse_fast(const struct pkt *p, struct xs_parsed *out, int *untouched)
{
	struct xs_parsed canary;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&canary, 0, sizeof(canary));
	rc = xs_parse_fast((void *)p->buf, (void *)(p->buf + p->len), out);
	*untouched = !memcmp(out, &canary, sizeof(canary));
	return rc;
}

/* The frames xs_parse_fast() promises to take, judged from xs_parse()'s result. */
static int common_case(const struct pkt *p, const struct xs_parsed *slow)
{
	if (slow->l3_off != 14 || slow->is_frag || slow->icmp != XS_ICMP_NONE ||
	    (slow->key.proto != XS_IPPROTO_TCP && slow->key.proto != XS_IPPROTO_UDP))
		return 0;
	if (slow->family == 4)
		return p->buf[14] == 0x45;
	return p->buf[14 + 6] == slow->key.proto; /* no extension header */
}

/* One frame both ways; returns 1 if the fast parser took it. */
static int check_frame(const struct pkt *p, const char *what)
{
	struct xs_parsed slow, fast;
	int slow_rc = parse_slow(p, &slow), untouched;
	int fast_rc = parse_fast(p, &fast, &untouched);

	if (fast_rc == 0) {
		ASSERT_TRUE(slow_rc == XS_PARSE_OK, "%s: fast parser took a frame xs_parse() "
			    "rejects (counter %d)", what, slow_rc);
		ASSERT_TRUE(!memcmp(&slow, &fast, sizeof(slow)),
			    "%s: fast parser filled the result differently", what);
		return 1;
	}
	ASSERT_TRUE(untouched, "%s: declined, but wrote into the result", what);
	ASSERT_TRUE(slow_rc != XS_PARSE_OK || !common_case(p, &slow),
		    "%s: declined a frame of the common case", what);
	return 0;
}

static void v4(struct pkt *p, unsigned char proto, unsigned int payload)
{
	pkt_eth(p, ETH_P_IP);
	pkt_ipv4(p, "192.0.2.1", "198.51.100.7", proto, 0);
	pkt_ports(p, proto, 40000, 443);
	pkt_payload(p, payload);
	pkt_finish(p);
}

static void v6(struct pkt *p, unsigned char proto, unsigned int payload)
{
	pkt_eth(p, ETH_P_IPV6);
	pkt_ipv6(p, "2001:db8::1", "2001:db8:99::7", proto);
	pkt_ports(p, proto, 40000, 443);
	pkt_payload(p, payload);
	pkt_finish(p);
}

TEST(takes_the_common_case)
{
	static const unsigned int sizes[] = { 0, 1, 64, 1400 };
	struct pkt p;
	unsigned int i;
	int taken = 0;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		v4(&p, IPPROTO_TCP, sizes[i]);
		taken += check_frame(&p, "v4 tcp");
		v4(&p, IPPROTO_UDP, sizes[i]);
		taken += check_frame(&p, "v4 udp");
		v6(&p, IPPROTO_TCP, sizes[i]);
		taken += check_frame(&p, "v6 tcp");
		v6(&p, IPPROTO_UDP, sizes[i]);
		taken += check_frame(&p, "v6 udp");
	}
	ASSERT_EQ(taken, 16, "common-case frames taken by the fast parser");

	/* Ethernet padding after the IP packet is not part of it. */
	v4(&p, IPPROTO_UDP, 0);
	pkt_payload(&p, 18);
	ASSERT_EQ(check_frame(&p, "v4 udp, padded frame"), 1, "padded frame taken");
	/* TCP flags reach the result: FIN and RST decide flow ends. */
	v4(&p, IPPROTO_TCP, 10);
	p.buf[p.l4_off + 13] = XS_TCP_FIN | XS_TCP_ACK;
	ASSERT_EQ(check_frame(&p, "v4 tcp fin"), 1, "FIN frame taken");
}

TEST(leaves_the_rest_to_xs_parse)
{
	struct pkt p;
	int taken = 0;

	pkt_eth(&p, ETH_P_IP);
	pkt_vlan(&p, ETH_P_8021Q, 7);
	pkt_ipv4(&p, "192.0.2.1", "198.51.100.7", IPPROTO_TCP, 0);
	pkt_ports(&p, IPPROTO_TCP, 1, 2);
	pkt_finish(&p);
	taken += check_frame(&p, "vlan");

	pkt_eth(&p, ETH_P_IP);
	pkt_ipv4(&p, "192.0.2.1", "198.51.100.7", IPPROTO_TCP, 2);
	pkt_ports(&p, IPPROTO_TCP, 1, 2);
	pkt_finish(&p);
	taken += check_frame(&p, "v4 options");

	v4(&p, IPPROTO_UDP, 100);
	pkt_ipv4_frag(&p, 0, 1);
	pkt_finish(&p);
	taken += check_frame(&p, "v4 first fragment");
	pkt_ipv4_frag(&p, 3, 0);
	pkt_finish(&p);
	taken += check_frame(&p, "v4 last fragment");

	v4(&p, IPPROTO_SCTP, 8);
	taken += check_frame(&p, "sctp");

	pkt_eth(&p, ETH_P_IP);
	pkt_ipv4(&p, "192.0.2.1", "198.51.100.7", IPPROTO_ICMP, 0);
	pkt_payload(&p, 36);
	pkt_finish(&p);
	taken += check_frame(&p, "icmp");

	pkt_eth(&p, ETH_P_IPV6);
	pkt_ipv6(&p, "2001:db8::1", "2001:db8:99::7", IPPROTO_TCP);
	pkt_ip6_ext(&p, IPPROTO_DSTOPTS, 0, IPPROTO_TCP);
	pkt_ports(&p, IPPROTO_TCP, 1, 2);
	pkt_finish(&p);
	taken += check_frame(&p, "v6 extension header");

	pkt_eth(&p, ETH_P_IPV6);
	pkt_ipv6(&p, "::ffff:192.0.2.1", "2001:db8:99::7", IPPROTO_UDP);
	pkt_ports(&p, IPPROTO_UDP, 1, 2);
	pkt_finish(&p);
	taken += check_frame(&p, "v6 from an IPv4-mapped address");

	v4(&p, IPPROTO_TCP, 0);
	p.len -= 1; /* TCP header cut short */
	taken += check_frame(&p, "v4 tcp truncated");

	v4(&p, IPPROTO_UDP, 20);
	p.buf[16] = 0x05; /* tot_len past the frame */
	taken += check_frame(&p, "v4 length past the frame");

	v6(&p, IPPROTO_UDP, 20);
	p.buf[18] = 0x05; /* payload_len past the frame */
	taken += check_frame(&p, "v6 length past the frame");

	pkt_eth(&p, ETH_P_ARP);
	pkt_payload(&p, 28);
	taken += check_frame(&p, "arp");
	ASSERT_EQ(taken, 0, "frames outside the common case taken by the fast parser");
}

/* Random bytes changed in the headers, random cuts: both parsers must still agree. */
TEST(agrees_under_mutation)
{
	unsigned long long s = 0x5eed0f1a57ULL;
	struct pkt base[4], p;
	unsigned int i, taken = 0;

	v4(&base[0], IPPROTO_TCP, 32);
	v4(&base[1], IPPROTO_UDP, 32);
	v6(&base[2], IPPROTO_TCP, 32);
	v6(&base[3], IPPROTO_UDP, 32);
	for (i = 0; i < MUTATIONS && test_cur_failed == 0; i++) {
		unsigned long long r = test_rand64(&s);
		unsigned int n = 1 + (r & 3), k;

		p = base[(r >> 2) & 3];
		for (k = 0; k < n; k++) {
			unsigned long long m = test_rand64(&s);

			/* Mostly the bytes a parser reads: Ethernet type to the ports. */
			p.buf[12 + m % 64] = (unsigned char)(m >> 32);
		}
		if ((r >> 8) % 8 == 0)
			p.len = (unsigned int)((r >> 16) % (p.len + 1));
		taken += (unsigned int)check_frame(&p, "mutated frame");
	}
	printf("  %u of %u mutated frames taken by the fast parser\n", taken, i);
	/* Most mutations hit a byte that leaves the frame in the common case. */
	ASSERT_RANGE(taken, MUTATIONS / 10, MUTATIONS, "mutated frames taken");
}

TEST_MAIN("parse_fast", NULL, NULL)
