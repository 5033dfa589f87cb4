// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * QUIC connection-ID routing (bpf/xs_quic.h): crafted QUIC packets through
 * the XDP program (BPF_PROG_TEST_RUN, private namespace, tests/prog/lb_env.h)
 * to a `quic on` service configured through the model, as `apply` does it.
 * Long-header packets are hashed; a short-header packet whose destination
 * connection id carries a live backend's server id goes to that backend,
 * whatever its addresses, so a client that moves keeps its backend.
 */
#define _GNU_SOURCE
#include <linux/bpf.h>
#include "config.h"
#include "log.h"
#include "one_cpu.h"
#include "pkt.h"
#include "test.h"

static struct prog_env env;

#include "lb_env.h"

static const struct xs_commit_opts quiet = { .quiet = true };
static const char *const addrs[] = { "10.20.0.101", "10.20.0.102", "10.20.0.103", "10.20.0.104" };
static __u32 ids[4];     /* the quic service's backends' target ids: their server ids */
static __u32 other_id;   /* a backend of the other service */

static __u64 counter(__u32 c)
{
	__u64 v[XS_C_MAX];

	return xs_counters_read(&env.h, v) ? 0 : v[c];
}

static int apply_text(const char *text)
{
	struct xs_config_src src = { .name = "quic.conf", .text = text };
	struct xs_model m;
	int err = xs_config_parse(&src, 1, env.h.nr_cpus, &m);

	if (err)
		return err;
	err = xs_model_commit(&env.h, &m, &quiet);
	xs_model_free(&m);
	return err;
}

static __u32 service_id(const char *spec)
{
	struct xs_service_key key;
	struct xs_service svc;

	if (xs_parse_service(spec, &key) || xs_service_get(&env.h, &key, &svc))
		return 0;
	return svc.id;
}

/* The target id of backend @addr of service @svc_id (0: none). */
static __u32 backend_id(__u32 svc_id, const char *addr)
{
	struct xs_target t;
	__be32 a;
	__u32 id;

	inet_pton(AF_INET, addr, &a);
	for (id = XS_BACKEND_BASE; id < XS_MAX_TARGETS; id++)
		if (!bpf_map_lookup_elem(env.h.targets_fd, &id, &t) && t.kind == XS_TARGET_BACKEND &&
		    t.service == svc_id && XS_W32C(t.addr, 3) == a)
			return id;
	return 0;
}

/* A destination connection id carrying server id @sid (version 01), 8 bytes. */
static void cid(unsigned char *c, __u32 sid, unsigned char version)
{
	unsigned int i;

	c[0] = (unsigned char)(version << 6 | (sid >> 10 & 0x3f));
	c[1] = (unsigned char)(sid >> 2);
	c[2] = (unsigned char)((sid & 3) << 6 | 0x15);
	for (i = 3; i < 8; i++)
		c[i] = (unsigned char)(0xa0 + i);
}

enum { LONG, SHORT };

/* A QUIC packet from @src:@sport to @vip:443: long header (Initial) or short, to server @sid. */
static void quic_pkt(struct pkt *p, const char *src, __u16 sport, const char *vip, int form,
		     __u32 sid, unsigned char version, unsigned int payload)
{
	unsigned char *q;

	pkt_eth(p, ETH_P_IP);
	pkt_ipv4(p, src, vip, IPPROTO_UDP, 0);
	pkt_ports(p, IPPROTO_UDP, sport, 443);
	if (form == LONG) {
		q = pkt_push(p, 1 + 4 + 1 + 8 + 1 + 8);
		q[0] = 0xc3;            /* long header, fixed bit, Initial */
		q[4] = 1;               /* version 1 */
		q[5] = 8;               /* DCID length */
		cid(q + 6, sid, version); /* even one that looks like ours: not read */
		q[14] = 8;
	} else {
		q = pkt_push(p, 1 + 8);
		q[0] = 0x41;            /* short header, fixed bit */
		cid(q + 1, sid, version);
	}
	pkt_payload(p, payload);
	pkt_finish(p);
}

/* The backend address @p is tunnelled to, or 0. */
static __be32 sent_to(const struct pkt *p)
{
	unsigned char out[2048];
	__u32 out_len = sizeof(out);
	__be32 be;

	if (prog_env_run_on(&env, if_a, p->buf, p->len, 1, out, &out_len, NULL) != XDP_TX ||
	    out[14 + 9] != IPPROTO_IPIP)
		return 0;
	memcpy(&be, out + 14 + 16, 4);
	return be;
}

/* The backend the hash picks for UDP @src:@sport -> @vip:443 in service @svc_id's pool. */
static __be32 hashed(__u32 svc_id, const char *src, __u16 sport, const char *vip)
{
	struct xs_flow_key k;
	struct xs_decision d;
	struct xs_target t;
	struct xs_pool pool;
	__be32 be = 0;

	memset(&k, 0, sizeof(k));
	XS_W32(k.src, 2) = XS_W32(k.dst, 2) = htonl(0xffff);
	inet_pton(AF_INET, src, &XS_W32(k.src, 3));
	inet_pton(AF_INET, vip, &XS_W32(k.dst, 3));
	k.proto = XS_IPPROTO_UDP;
	k.sport = htons(sport);
	k.dport = htons(443);
	if (!xs_pool_read(&env.h, svc_id, &pool)) {
		if (!xs_decide(&pool, NULL, &k, &d) &&
		    !bpf_map_lookup_elem(env.h.targets_fd, &d.target, &t))
			be = XS_W32C(t.addr, 3);
		xs_pool_free(&pool);
	}
	return be;
}

static __be32 addr_of(const char *a)
{
	__be32 v;

	inet_pton(AF_INET, a, &v);
	return v;
}

static const char *const conf =
	"service 10.60.0.1:443/udp quic on\n"
	"backend 10.60.0.1:443/udp 10.20.0.101\n"
	"backend 10.60.0.1:443/udp 10.20.0.102\n"
	"backend 10.60.0.1:443/udp 10.20.0.103\n"
	"backend 10.60.0.1:443/udp 10.20.0.104\n"
	"service 10.60.0.2:443/udp\n"
	"backend 10.60.0.2:443/udp 10.20.0.101\n"
	"backend 10.60.0.2:443/udp 10.20.0.102\n"
	"backend 10.60.0.2:443/udp 10.20.0.103\n"
	"backend 10.60.0.2:443/udp 10.20.0.104\n";

/* `quic on` through the model: on a udp service, printed by show, refused on tcp. */
TEST(quic_key_of_a_service)
{
	struct xs_service_spec s;
	struct xs_model m;
	char *text = NULL, msg[256];
	size_t len = 0;
	FILE *f;
	__u32 i, svc;

	if (!ASSERT_EQ(apply_text(conf), 0, "apply"))
		exit(1);
	svc = service_id("10.60.0.1:443/udp");
	for (i = 0; i < 4; i++) {
		ids[i] = backend_id(svc, addrs[i]);
		ASSERT_TRUE(ids[i] >= XS_BACKEND_BASE, "server id of %s", addrs[i]);
	}
	other_id = backend_id(service_id("10.60.0.2:443/udp"), addrs[1]);
	printf("  server ids: %u %u %u %u; the other service's backend: %u\n", ids[0], ids[1],
	       ids[2], ids[3], other_id);
	ASSERT_EQ(xs_model_load(&env.h, &m, false), 0, "load");
	f = open_memstream(&text, &len);
	xs_config_print(&m, false, f);
	fclose(f);
	xs_model_free(&m);
	ASSERT_TRUE(strstr(text, "service 10.60.0.1:443/udp algo") &&
			    strstr(strstr(text, "service 10.60.0.1:443/udp algo"), " quic on"),
		    "show prints quic on:\n%s", text);
	free(text);
	xs_log_capture(msg, sizeof(msg));
	ASSERT_EQ(xs_service_spec_init(&s, "10.60.0.3:443/tcp"), 0, "init");
	ASSERT_TRUE(xs_service_spec_set(&s, "quic", "on") < 0, "quic on a tcp service: refused");
	xs_log_capture(NULL, 0);
	ASSERT_TRUE(strstr(msg, "udp") != NULL, "and says why: %s", msg);
}

/*
 * A connection: its Initial is hashed; its short-header packets go where
 * their connection id says, from the flow cache too; then the client moves
 * to another address and port, and keeps its backend.
 */
TEST(short_header_follows_its_connection_id_across_migration)
{
	const char *vip = "10.60.0.1";
	__u32 svc = service_id("10.60.0.1:443/udp"), b;
	__be32 h = hashed(svc, "198.51.100.50", 5000, vip), got;
	__u64 routed;
	struct pkt p;
	int i;

	/* The server the connection lands on is not the one the hash names. */
	b = addr_of(addrs[0]) == h ? 1 : 0;
	quic_pkt(&p, "198.51.100.50", 5000, vip, LONG, ids[b], 1, 100);
	ASSERT_EQ(sent_to(&p), h, "Initial: hashed");
	routed = counter(XS_C_QUIC_CID);
	for (i = 0; i < 3; i++) {
		quic_pkt(&p, "198.51.100.50", 5000, vip, SHORT, ids[b], 1, 60 + i);
		got = sent_to(&p);
		ASSERT_TRUE(got == addr_of(addrs[b]), "short header %d: to server id %u (%s), not "
			    "the hashed backend (got %08x)", i, ids[b], addrs[b], ntohl(got));
	}
	ASSERT_EQ(counter(XS_C_QUIC_CID) - routed, 3, "quic_cid_routed");
	/* An id naming the pinned backend itself: the cached way, still counted. */
	for (i = 0; i < 3 && addr_of(addrs[i]) != h; i++)
		;
	quic_pkt(&p, "198.51.100.50", 5000, vip, SHORT, ids[i], 1, 60);
	ASSERT_EQ(sent_to(&p), h, "id of the pinned backend");
	ASSERT_EQ(counter(XS_C_QUIC_CID) - routed, 4, "quic_cid_routed");

	/* Migration: a new address and port, the same connection id. */
	for (i = 0; i < 3; i++) {
		quic_pkt(&p, "203.0.113.9", (__u16)(6000 + i), vip, SHORT, ids[b], 1, 80);
		got = sent_to(&p);
		ASSERT_TRUE(got == addr_of(addrs[b]), "migrated (%d): still %s (got %08x, the hash "
			    "would say %08x)", i, addrs[b], ntohl(got),
			    ntohl(hashed(svc, "203.0.113.9", (__u16)(6000 + i), vip)));
	}
	/* The new path's own long-header packets are hashed. */
	quic_pkt(&p, "203.0.113.9", 6000, vip, LONG, ids[b], 1, 100);
	ASSERT_EQ(sent_to(&p), hashed(svc, "203.0.113.9", 6000, vip), "long header after migration");
}

/* An id that names no live backend of the service, or no id at all: hashed. */
TEST(unknown_connection_ids_fall_back_to_the_hash)
{
	static const struct {
		__u32 sid;
		unsigned char version;
		const char *what;
	} cases[] = {
		{ 0, 1, "server id 0" },
		{ 5, 1, "not a backend's id (a cpu's)" },
		{ 8000, 1, "an id no target has" },
		{ 0xffff, 1, "the largest id" },
		{ XS_NO_TARGET, 0, "a backend's id, version 00" },
		{ XS_NO_TARGET, 2, "a backend's id, version 10" },
		{ XS_NO_TARGET, 3, "a backend's id, version 11" },
	};
	const char *vip = "10.60.0.1";
	__u32 svc = service_id("10.60.0.1:443/udp"), i;
	__u64 routed = counter(XS_C_QUIC_CID);
	char src[32];
	struct pkt p;

	for (i = 0; i < XS_ARRAY_SIZE(cases); i++) {
		__u32 sid = cases[i].sid == XS_NO_TARGET ? ids[2] : cases[i].sid;

		snprintf(src, sizeof(src), "198.51.101.%u", i + 1);
		quic_pkt(&p, src, 7000, vip, SHORT, sid, cases[i].version, 40);
		ASSERT_TRUE(sent_to(&p) == hashed(svc, src, 7000, vip), "%s: hashed", cases[i].what);
	}
	/* A backend of another service. */
	quic_pkt(&p, "198.51.101.50", 7000, vip, SHORT, other_id, 1, 40);
	ASSERT_TRUE(sent_to(&p) == hashed(svc, "198.51.101.50", 7000, vip),
		    "another service's backend: hashed");
	/* A datagram too short for a connection id. */
	pkt_eth(&p, ETH_P_IP);
	pkt_ipv4(&p, "198.51.101.51", vip, IPPROTO_UDP, 0);
	pkt_ports(&p, IPPROTO_UDP, 7000, 443);
	memcpy(pkt_push(&p, 3), "\x41\x40\x00", 3);
	pkt_finish(&p);
	ASSERT_TRUE(sent_to(&p) == hashed(svc, "198.51.101.51", 7000, vip), "3 bytes: hashed");
	ASSERT_EQ(counter(XS_C_QUIC_CID) - routed, 0, "none routed by id");
	/* A service without quic: its id is not read. */
	quic_pkt(&p, "198.51.101.52", 7000, "10.60.0.2", SHORT, other_id, 1, 40);
	ASSERT_TRUE(sent_to(&p) == hashed(service_id("10.60.0.2:443/udp"), "198.51.101.52", 7000,
					  "10.60.0.2"),
		    "quic off: hashed");
}

/* A drained backend keeps its connections (its id still routes); a removed one does not. */
TEST(drained_and_removed_backends)
{
	const char *vip = "10.60.0.1";
	__u32 svc = service_id("10.60.0.1:443/udp");
	struct xs_backend_spec b;
	struct xs_model m;
	struct pkt p;

	ASSERT_EQ(xs_model_load(&env.h, &m, false) ||
			  xs_backend_spec_init(&b, "10.60.0.1:443/udp", addrs[3]) ||
			  xs_model_backend_drain(&m, &b.service, b.t.addr, true) ||
			  xs_model_commit(&env.h, &m, &quiet),
		  0, "drain");
	xs_model_free(&m);
	quic_pkt(&p, "198.51.102.1", 8000, vip, SHORT, ids[3], 1, 40);
	ASSERT_TRUE(sent_to(&p) == addr_of(addrs[3]), "drained: its connections still reach it");
	ASSERT_EQ(xs_model_load(&env.h, &m, false) ||
			  xs_model_backend_del(&m, &b.service, b.t.addr) ||
			  xs_model_commit(&env.h, &m, &quiet),
		  0, "remove");
	xs_model_free(&m);
	quic_pkt(&p, "198.51.102.2", 8000, vip, SHORT, ids[3], 1, 40);
	ASSERT_TRUE(sent_to(&p) == hashed(svc, "198.51.102.2", 8000, vip),
		    "removed: its id is unknown, hashed");
}

TEST_NEEDS(short_header_follows_its_connection_id_across_migration, quic_key_of_a_service)
TEST_NEEDS(unknown_connection_ids_fall_back_to_the_hash, quic_key_of_a_service)
TEST_NEEDS(drained_and_removed_backends, quic_key_of_a_service)

static int setup(void)
{
	if (stay_on_one_cpu("prog_quic"))
		exit(1);
	if (netns_setup() ||
	    sh("for i in 101 102 103 104; do ip neigh add 10.20.0.$i lladdr "
	       "02:00:00:00:01:$((i - 100)) dev lbA nud permanent; done") ||
	    prog_env_open(&env, 4096, XDP_PASS) || prog_env_targets(&env, XS_ALGO_JUMP, 0, 0, seed)) {
		fprintf(stderr, "FAIL: cannot set up the namespace or load the XDP program\n");
		return -1;
	}
	return 0;
}

static void teardown(void)
{
	prog_env_close(&env);
}

TEST_MAIN("prog_quic", setup, teardown)
