// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * One change across several pools is seen by packets in one step.
 *
 * Two services, A and B, each with one backend per topology: in topology X
 * both send to 10.20.0.11, in topology Y both send to 10.30.0.22. A writer
 * thread switches X <-> Y again and again, each switch changing both pools;
 * a reader thread sends packets to A, B, A, B, ... (flow table off, so each
 * packet is decided afresh) and notes which topology each one saw.
 *
 * A packet sequence can only change topology where a switch happened, so
 * with one-step switches the reader sees at most as many changes as there
 * were switches. The same run with the two pools published one after the
 * other (each atomic alone, the way xdpsteer worked before transactions)
 * must show far more: that proves the check can see a mixed topology.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include "pkt.h"
#include "test.h"

static struct prog_env env;
#include "lb_env.h"

#define SWITCHES 40
#define SVC_A 1
#define SVC_B 2

static struct xs_service_key key_a, key_b;
static struct xs_pool pool_x[3], pool_y[3]; /* indexed by service id */
static atomic_int stop;
/* Switch k is being made while started == k + 1 > done; done == k once it returned. */
static atomic_int started, done;
static atomic_ulong reads; /* packets the reader has sent */
static bool one_step;

enum { SAW_X = 0, SAW_Y = 1, SAW_OTHER = 2 };

struct reader_result {
	unsigned long packets, changes, other, late;
	int saw[3];
};

static int topology_of(int k)
{
	return k % 2 ? SAW_Y : SAW_X; /* switch k (from 1) makes Y when odd; 0 is X */
}

static int send_one(const struct pkt *p)
{
	unsigned char out[PKT_MAX];
	__u32 out_len = sizeof(out);
	struct iphdr outer; /* copied out: the header sits at offset 14, not 4-aligned */
	char dst[INET_ADDRSTRLEN];
	int verdict = prog_env_run_on(&env, if_a, p->buf, p->len, 1, out, &out_len, NULL);

	if (verdict < 0 || verdict == XDP_PASS || out_len < sizeof(struct ethhdr) + sizeof(outer))
		return SAW_OTHER;
	memcpy(&outer, out + sizeof(struct ethhdr), sizeof(outer));
	if (outer.protocol != IPPROTO_IPIP)
		return SAW_OTHER;
	inet_ntop(AF_INET, &outer.daddr, dst, sizeof(dst));
	if (!strcmp(dst, "10.20.0.11"))
		return SAW_X;
	if (!strcmp(dst, "10.30.0.22"))
		return SAW_Y;
	return SAW_OTHER;
}

static void *reader(void *arg)
{
	struct reader_result *r = arg;
	int last = -1, seen, s0, d0, s1;
	__u16 sport = 1024;
	struct pkt p;

	while (!atomic_load(&stop)) {
		const char *vip = r->packets % 2 ? "10.99.0.2" : "10.99.0.1";

		memset(&p, 0, sizeof(p));
		pkt_eth(&p, ETH_P_IP);
		pkt_ipv4(&p, "10.20.0.100", vip, IPPROTO_TCP, 0);
		pkt_ports(&p, IPPROTO_TCP, sport++, 80);
		pkt_payload(&p, 64);
		pkt_finish(&p);
		s0 = atomic_load(&started);
		d0 = atomic_load(&done);
		seen = send_one(&p);
		s1 = atomic_load(&started);
		r->packets++;
		atomic_store(&reads, r->packets);
		r->saw[seen]++;
		if (seen == SAW_OTHER) {
			r->other++;
			continue;
		}
		/* No switch under way around this packet: it must see the last one made. */
		if (s0 == d0 && s1 == s0 && seen != topology_of(d0))
			r->late++;
		if (last >= 0 && seen != last)
			r->changes++;
		last = seen;
	}
	return NULL;
}

/* Switch both services to topology @pools: in one transaction, or one pool at a time. */
static int switch_to(struct xs_pool *pools)
{
	struct xs_txn *t;

	if (!one_step)
		return xs_pool_publish(&env.h, SVC_A, &pools[SVC_A]) ?:
		       xs_pool_publish(&env.h, SVC_B, &pools[SVC_B]);
	t = xs_txn_begin(&env.h);
	if (!t || xs_txn_pool(t, SVC_A, &pools[SVC_A]) || xs_txn_pool(t, SVC_B, &pools[SVC_B])) {
		xs_txn_abort(t);
		return -1;
	}
	return xs_txn_commit(t);
}

static void backend(__u32 id, __u32 svc, const char *addr)
{
	struct xs_target t = { .kind = XS_TARGET_BACKEND, .active = true,
			       .uid = id, .service = svc, .weight = 1, .family = 4 };

	XS_W32(t.addr, 2) = htonl(0xffff);
	inet_pton(AF_INET, addr, &t.addr[12]);
	xs_target_write(&env.h, id, &t);
}

static void pool_of(struct xs_pool *p, __u32 target)
{
	static __u32 buckets[8][1];
	static int n;

	memset(p, 0, sizeof(*p));
	memcpy(p->hdr.seed, seed, sizeof(p->hdr.seed));
	p->hdr.algo = XS_ALGO_JUMP;
	p->hdr.flow_fields = XS_F_DEFAULT_FLOW;
	p->hdr.hand_fields = XS_F_DEFAULT_HAND;
	p->hdr.n_buckets = 1;
	buckets[n][0] = target;
	p->bucket = buckets[n++];
}

static int setup(void)
{
	struct xs_service svc = { .encap = XS_ENCAP_IPIP };
	const __u32 b = XS_BACKEND_BASE;
	struct xs_txn *t;

	if (prog_env_open(&env, 0, XDP_PASS) || netns_setup() ||
	    prog_env_targets(&env, XS_ALGO_JUMP, 4, 0, seed))
		return -1;
	xs_parse_service("10.99.0.1:80/tcp", &key_a);
	xs_parse_service("10.99.0.2:80/tcp", &key_b);
	xs_parse_cidr("172.16.0.0/16", AF_INET, &svc.src4, &svc.src4_bits);
	xs_parse_cidr("fd00:7873::/96", AF_INET6, svc.src6, &svc.src6_bits);
	backend(b + 0, SVC_A, "10.20.0.11");
	backend(b + 1, SVC_B, "10.20.0.11");
	backend(b + 2, SVC_A, "10.30.0.22");
	backend(b + 3, SVC_B, "10.30.0.22");
	pool_of(&pool_x[SVC_A], b + 0);
	pool_of(&pool_x[SVC_B], b + 1);
	pool_of(&pool_y[SVC_A], b + 2);
	pool_of(&pool_y[SVC_B], b + 3);
	t = xs_txn_begin(&env.h);
	if (!t)
		return -1;
	svc.id = SVC_A;
	if (xs_txn_pool(t, SVC_A, &pool_x[SVC_A]) || xs_txn_service(t, &key_a, &svc)) {
		xs_txn_abort(t);
		return -1;
	}
	svc.id = SVC_B;
	if (xs_txn_pool(t, SVC_B, &pool_x[SVC_B]) || xs_txn_service(t, &key_b, &svc)) {
		xs_txn_abort(t);
		return -1;
	}
	return xs_txn_commit(t) || xs_tx_ports_sync(&env.h);
}

/*
 * Let the reader send a few packets on the topology just made before the
 * next switch: a fixed sleep let a loaded machine deschedule the reader
 * across a whole switch, which then went unseen. At most about a second.
 */
static void settle(void)
{
	unsigned long from = atomic_load(&reads);
	int i;

	usleep(2000);
	for (i = 0; i < 1000 && atomic_load(&reads) < from + 4; i++)
		usleep(1000);
}

/* SWITCHES switches under a reader; returns what the reader saw. */
static int churn(bool in_one_step, struct reader_result *r)
{
	pthread_t th;
	int k;

	one_step = in_one_step;
	memset(r, 0, sizeof(*r));
	atomic_store(&stop, 0);
	if (switch_to(pool_x))
		return -1;
	atomic_store(&started, 0);
	atomic_store(&done, 0);
	if (pthread_create(&th, NULL, reader, r))
		return -1;
	usleep(20000);
	for (k = 1; k <= SWITCHES; k++) {
		atomic_store(&started, k);
		if (switch_to(k % 2 ? pool_y : pool_x))
			break;
		atomic_store(&done, k);
		settle();
	}
	usleep(20000);
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	return k > SWITCHES ? 0 : -1;
}

TEST(one_step_switch_across_pools)
{
	struct reader_result atomic_r, split_r;

	if (!ASSERT_EQ(setup(), 0, "setup"))
		return;
	if (!ASSERT_EQ(churn(true, &atomic_r), 0, "switches in one step"))
		return;
	printf("  one step:  %lu packets, %d switches, %lu topology changes seen, %lu late, "
	       "%lu unsteered\n", atomic_r.packets, SWITCHES, atomic_r.changes, atomic_r.late,
	       atomic_r.other);
	ASSERT_EQ(atomic_r.other, 0, "packets not steered to either topology");
	ASSERT_EQ(atomic_r.late, 0, "packets that saw a switched-out topology after it returned");
	ASSERT_TRUE(atomic_r.changes <= SWITCHES, "%lu changes seen for %d switches: a mix",
		    atomic_r.changes, SWITCHES);
	/* Not vacuous: the reader was there for nearly every switch. */
	ASSERT_TRUE(atomic_r.changes >= SWITCHES - 2 && atomic_r.saw[SAW_X] && atomic_r.saw[SAW_Y],
		    "reader saw only %lu of %d switches", atomic_r.changes, SWITCHES);

	if (!ASSERT_EQ(churn(false, &split_r), 0, "switches pool by pool"))
		return;
	printf("  pool by pool: %lu packets, %d switches, %lu topology changes seen\n",
	       split_r.packets, SWITCHES, split_r.changes);
	ASSERT_TRUE(split_r.changes > 2 * SWITCHES,
		    "the check cannot see mixing: only %lu changes pool by pool", split_r.changes);
	prog_env_close(&env);
}

/*
 * Pool ids are free or taken in the live generation only. Services added and
 * removed one transaction at a time, each taking the first free id, must
 * never share an id (the inactive generation lags one transaction behind and
 * must not be read for this).
 */
TEST(ids_follow_the_live_generation)
{
	struct xs_service_key key;
	bool live[16] = { false };
	struct xs_pool pool;
	char spec[40];
	__u32 step, id, reused = 0;

	if (!ASSERT_EQ(prog_env_open(&env, 0, XDP_PASS), 0, "load") ||
	    !ASSERT_EQ(prog_env_targets(&env, XS_ALGO_JUMP, 4, 0, seed), 0, "queue pool"))
		goto out;
	pool_of(&pool, XS_BACKEND_BASE);
	for (step = 0; step < 40; step++) {
		struct xs_service svc = { .encap = XS_ENCAP_IPIP };
		struct xs_txn *t = xs_txn_begin(&env.h);
		bool add = step % 3 != 2;

		for (id = 1; id < 16 && xs_pool_in_use(&env.h, id); id++)
			;
		for (__u32 i = 1; i < 16; i++)
			ASSERT_EQ(xs_pool_in_use(&env.h, i), live[i], "in use iff live");
		if (!add) {
			/* Remove the lowest live one, so its id comes back. */
			for (id = 1; id < 16 && !live[id]; id++)
				;
		}
		if (!ASSERT_TRUE(t && id < 16, "step %u: no id", step))
			break;
		snprintf(spec, sizeof(spec), "10.98.0.%u:80/tcp", id);
		xs_parse_service(spec, &key);
		svc.id = id;
		if (add) {
			reused += !live[id] && id < step;
			ASSERT_EQ(xs_txn_pool(t, id, &pool) || xs_txn_service(t, &key, &svc), 0,
				  "stage add");
		} else {
			ASSERT_EQ(xs_txn_service_del(t, &key, id), 0, "stage removal");
		}
		if (!ASSERT_EQ(xs_txn_commit(t), 0, "commit"))
			break;
		live[id] = add;
	}
	ASSERT_TRUE(reused > 0, "no id was ever given out again after a removal");
out:
	prog_env_close(&env);
}

TEST_MAIN("prog_txn", NULL, NULL)
