// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The trace's records under BPF_PROG_TEST_RUN, for the frames the fast
 * parser leaves to the global one (tests/ns/test_trace.sh sends only plain
 * UDP): a VLAN-tagged packet is keyed and filtered by its flow like any
 * other, a frame that cannot be keyed is traced by its reason, and a
 * filter that matches neither yields no record. Each record's reasons are
 * the counters that moved.
 */
#include <linux/bpf.h>
#include "prog_env.h"

static struct prog_env env; /* expect.h's helpers name it */
#include "expect.h"
#include "xs_trace_rec.h"

struct seen {
	int n;
	struct xs_trace_rec last;
};

static int take(void *ctx, void *data, size_t size)
{
	struct seen *s = ctx;

	if (size >= sizeof(s->last))
		memcpy(&s->last, data, sizeof(s->last));
	s->n++;
	return 0;
}

static void vlan_udp(struct pkt *p, const char *src)
{
	pkt_eth(p, ETH_P_IP);
	pkt_vlan(p, ETH_P_8021Q, 7);
	pkt_ipv4(p, src, "10.0.0.1", IPPROTO_UDP, 0);
	pkt_ports(p, IPPROTO_UDP, 4000, 53);
	pkt_payload(p, 8);
	pkt_finish(p);
}

/* Arm the trace with @f (owner set), run @p once, and read what the ring holds. */
static int traced(struct prog_env *e, struct ring_buffer *rb, struct xs_trace_filter *f,
		  const struct pkt *p, struct seen *s, __u64 *before, __u64 *after)
{
	__u32 zero = 0;

	f->owner = 1;
	memset(s, 0, sizeof(*s));
	if (bpf_map_update_elem(bpf_map__fd(e->skel->maps.xs_trace_filter), &zero, f, BPF_ANY))
		return -1;
	e->skel->bss->xs_trace_on = 1;
	counters(e, before);
	prog_env_run(e, p->buf, p->len, 1, NULL, NULL, NULL);
	counters(e, after);
	e->skel->bss->xs_trace_on = 0;
	return ring_buffer__consume(rb);
}

static __u64 moved(const __u64 *before, const __u64 *after)
{
	__u64 m = 0;
	int c;

	for (c = 0; c < XS_C_MAX; c++)
		if (after[c] != before[c])
			m |= 1ULL << c;
	return m;
}

TEST(slow_parser_frames)
{
	static const __u64 seed[2] = { 5, 6 };
	__u64 before[XS_C_MAX], after[XS_C_MAX];
	struct xs_trace_filter f = { 0 };
	struct ring_buffer *rb = NULL;
	struct xs_flow_key k;
	struct prog_env e;
	struct seen s;
	struct pkt p;

	if (!ASSERT_EQ(prog_env_open(&e, 1024, XDP_PASS), 0, "load") ||
	    !ASSERT_EQ(prog_env_targets(&e, XS_ALGO_JUMP, 0, 2, seed), 0, "targets"))
		goto out;
	rb = ring_buffer__new(bpf_map__fd(e.skel->maps.xs_trace_ring), take, &s, NULL);
	if (!ASSERT_TRUE(rb, "ring buffer"))
		goto out;

	/* A VLAN-tagged flow from 10.9.0.5, and a filter on its /24. */
	vlan_udp(&p, "10.9.0.5");
	key_v4(&k, "10.9.0.5", "10.0.0.1", IPPROTO_UDP, 4000, 53);
	f.fields = XS_TF_CLIENT;
	memset(f.client_mask, 0xff, 15);
	memcpy(f.client, "\0\0\0\0\0\0\0\0\0\0\xff\xff\x0a\x09\x00", 15);
	traced(&e, rb, &f, &p, &s, before, after);
	ASSERT_EQ(s.n, 1, "records of a VLAN-tagged packet the filter takes");
	ASSERT_EQ(memcmp(&s.last.key, &k, sizeof(k)), 0, "its key is its flow's");
	ASSERT_EQ(s.last.reasons, moved(before, after), "its reasons are the counters that moved");
	ASSERT_EQ(s.last.target, prog_env_pinned(&e, &k), "its target is the pinned one");
	ASSERT_EQ(s.last.pkt_len, p.len, "its length");
	ASSERT_EQ(s.last.cap_len, p.len, "bytes captured (the whole short frame)");
	ASSERT_EQ(memcmp(s.last.data, p.buf, p.len), 0, "the bytes are the frame's");

	/* The same filter, another client: nothing. */
	vlan_udp(&p, "10.8.0.5");
	traced(&e, rb, &f, &p, &s, before, after);
	ASSERT_EQ(s.n, 0, "records of a VLAN-tagged packet the filter does not take");

	/* A frame that cannot be keyed (ARP): traced by its reason, with no filter. */
	pkt_eth(&p, ETH_P_ARP);
	pkt_payload(&p, 28);
	pkt_finish(&p);
	memset(&f, 0, sizeof(f));
	traced(&e, rb, &f, &p, &s, before, after);
	ASSERT_EQ(s.n, 1, "records of an ARP frame, no filter");
	ASSERT_EQ(s.last.reasons, 1ULL << XS_C_NOT_IP, "its reason");
	ASSERT_EQ(s.last.verdict, XDP_PASS, "its verdict");
	ASSERT_EQ(s.last.target, XS_NO_TARGET, "its target");
	f.fields = XS_TF_REASON;
	f.reasons = 1ULL << XS_C_FLOW_HIT;
	traced(&e, rb, &f, &p, &s, before, after);
	ASSERT_EQ(s.n, 0, "records of an ARP frame, filter reason flow_hit");
out:
	ring_buffer__free(rb);
	prog_env_close(&e);
}

TEST_MAIN("prog_trace", NULL, NULL)
