// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Canonical state: two load balancers with different histories (adds,
 * removals, drains, re-adds, weight changes, seed rotations, services that
 * come and go), then the same configuration, as `show` printed it on one of
 * them and as the fleet hands it to the other. Every pool must be bit for
 * bit the same on both, and every flow must leave both programs as the same
 * bytes: 100,000 flows to a jump service and 100,000 to a shuffle service.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <linux/bpf.h>
#include "config.h"
#include "log.h"
#include "prog_env.h"
#include "pkt.h"
#include "test.h"

static struct prog_env env, env_b; /* host A (lb_env.h's env) and host B */
#include "lb_env.h"

#define FLOWS 100000
#define ADDRS 48

static const char *const services[] = { "10.40.0.1:80/tcp", "10.40.0.2:53/udp" };
static const struct xs_commit_opts quiet = { .quiet = true };

static void backend_addr(unsigned int i, char *buf, size_t len)
{
	snprintf(buf, len, "10.20.0.%u", 100 + i % ADDRS);
}

/* One random change of @h's state, as a command makes it: load, edit, commit. */
static int random_change(const struct xs_handle *h, __u64 *rng, bool extra_services)
{
	struct xs_backend_spec b;
	struct xs_service_spec s;
	struct xs_settings set;
	struct xs_model m;
	char addr[32], seed[40], refused[256];
	__u64 r = test_rand64(rng);
	int err;

	if (xs_model_load(h, &m, false))
		return -1;
	/* A refused edit changes nothing, and is history too: its message is not news. */
	xs_log_capture(refused, sizeof(refused));
	backend_addr((unsigned int)(r >> 8), addr, sizeof(addr));
	switch (r % 8) {
	case 0:
	case 1:
	case 2: /* add a backend (refused if it is there: that is history too) */
		err = xs_backend_spec_init(&b, services[(r >> 16) & 1], addr);
		b.t.weight = 1 + (__u16)((r >> 20) % 3);
		err = err ?: xs_model_backend_add(&m, &b, 0);
		break;
	case 3:
		err = xs_backend_spec_init(&b, services[(r >> 16) & 1], addr) ?:
		      xs_model_backend_del(&m, &b.service, b.t.addr);
		break;
	case 4:
		err = xs_backend_spec_init(&b, services[(r >> 16) & 1], addr) ?:
		      xs_model_backend_drain(&m, &b.service, b.t.addr, (r >> 24) & 1);
		break;
	case 5:
		err = xs_backend_spec_init(&b, services[(r >> 16) & 1], addr) ?:
		      xs_model_backend_weight(&m, &b.service, b.t.addr, 1 + (__u16)((r >> 24) % 4));
		break;
	case 6: /* a new seed */
		set = m.set;
		snprintf(seed, sizeof(seed), "%016llx%016llx", (unsigned long long)test_rand64(rng),
			 (unsigned long long)test_rand64(rng));
		err = xs_settings_set(&set, "seed", seed);
		if (!err)
			xs_model_settings(&m, &set);
		break;
	default: /* a service that comes and goes: it takes pool and backend ids */
		if (!extra_services) {
			err = -1;
			break;
		}
		err = xs_service_spec_init(&s, "10.40.0.9:80/tcp");
		if (!err && xs_model_find_service(&m, &s.key) >= 0)
			err = xs_model_service_del(&m, &s.key);
		else if (!err)
			err = xs_model_service_add(&m, &s, 0) ?:
			      xs_backend_spec_init(&b, "10.40.0.9:80/tcp", addr) ?:
			      xs_model_backend_add(&m, &b, 0);
		break;
	}
	xs_log_capture(NULL, 0);
	if (!err)
		err = xs_model_commit(h, &m, &quiet);
	xs_model_free(&m);
	return err;
}

/* The first commit, as attach makes it, with the services: a jump one and a shuffle one. */
static int base_state(const struct xs_handle *h)
{
	struct xs_service_spec s;
	struct xs_model m;
	int err = xs_model_init(&m);

	err = err ?: xs_settings_set(&m.set, "seed", "random");
	err = err ?: xs_service_spec_init(&s, services[0]) ?: xs_model_service_add(&m, &s, 0);
	err = err ?: xs_service_spec_init(&s, services[1]) ?:
	      xs_service_spec_set(&s, "algo", "shuffle") ?: xs_model_service_add(&m, &s, 0);
	err = err ?: xs_model_commit(h, &m, &quiet);
	xs_model_free(&m);
	return err;
}

/* Host A's running state, placed, as `show` prints it. */
static char *show_text(const struct xs_handle *h)
{
	struct xs_model m;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (xs_model_load(h, &m, true))
		return NULL;
	f = open_memstream(&text, &len);
	if (f) {
		xs_config_print(&m, true, f);
		fclose(f);
	}
	xs_model_free(&m);
	return text;
}

/* Pool of the service named @svc on host @h, read from the live generation. */
static int service_pool(const struct xs_handle *h, const char *svc, struct xs_pool *p)
{
	struct xs_service_key key;
	struct xs_service s;

	return xs_parse_service(svc, &key) ?: xs_service_get(h, &key, &s) ?:
	       xs_pool_read(h, s.id, p);
}

static int setup(void)
{
	char cmd[128];
	int i;

	if (netns_setup() || prog_env_open(&env, 4096, XDP_PASS) ||
	    prog_env_open(&env_b, 4096, XDP_PASS))
		return -1;
	/* Every backend address has a neighbour: both hosts send the same frames. */
	for (i = 0; i < ADDRS; i++) {
		snprintf(cmd, sizeof(cmd), "ip neigh add 10.20.0.%d lladdr 02:00:00:00:01:%02x "
			 "dev lbA nud permanent", 100 + i, i);
		if (sh(cmd))
			return -1;
	}
	return 0;
}

static void teardown(void)
{
	prog_env_close(&env_b);
	prog_env_close(&env);
}

TEST(histories_converge_to_the_same_pools)
{
	__u64 rng_a = 0xa11ce, rng_b = 0xb0b;
	struct xs_config_src src;
	struct xs_pool pa, pb;
	struct xs_model m;
	char *text;
	int i, same = 0;

	if (!ASSERT_EQ(base_state(&env.h), 0, "host A's services") ||
	    !ASSERT_EQ(base_state(&env_b.h), 0, "host B's services"))
		return;
	/* B first takes ids A will not give the same backends. */
	for (i = 0; i < 400; i++)
		random_change(&env_b.h, &rng_b, true);
	for (i = 0; i < 300; i++)
		random_change(&env.h, &rng_a, false);
	text = show_text(&env.h);
	if (!ASSERT_TRUE(text != NULL, "show of host A"))
		return;
	src = (struct xs_config_src){ .name = "fleet.conf", .text = text };
	if (ASSERT_EQ(xs_config_parse(&src, 1, env_b.h.nr_cpus, &m), 0, "parse A's show") &&
	    ASSERT_EQ(xs_model_commit(&env_b.h, &m, &quiet), 0, "commit it on B"))
		xs_model_free(&m);
	free(text);
	for (i = 0; i < 2; i++) {
		if (!ASSERT_EQ(service_pool(&env.h, services[i], &pa), 0, "A's pool") ||
		    !ASSERT_EQ(service_pool(&env_b.h, services[i], &pb), 0, "B's pool"))
			return;
		printf("  %s: %u slots, %u live, digest %08x on A, %08x on B\n", services[i],
		       pa.hdr.n_buckets, xs_pool_live(&pa), pa.hdr.digest, pb.hdr.digest);
		same += !memcmp(&pa.hdr, &pb.hdr, sizeof(pa.hdr)) &&
			!memcmp(pa.bucket, pb.bucket, pa.hdr.n_buckets * sizeof(__u32));
		ASSERT_TRUE(xs_pool_live(&pa) > 4, "the history left backends in %s", services[i]);
		xs_pool_free(&pa);
		xs_pool_free(&pb);
	}
	ASSERT_EQ(same, 2, "pools bit for bit the same");
}

/* Every flow to either service leaves host A and host B as the same frame. */
TEST(every_flow_the_same_on_both_hosts)
{
	__u64 rng = 0xf10;
	unsigned char out_a[512], out_b[512];
	__u32 cap = sizeof(out_a);
	__u32 len_a, len_b, agree[2] = { 0 }, sent[2] = { 0 };
	int i, svc, ret_a, ret_b;

	for (i = 0; i < 2 * FLOWS; i++) {
		__u64 r = test_rand64(&rng);
		char src[32];
		struct pkt p;

		svc = i & 1;
		snprintf(src, sizeof(src), "198.51.%u.%u", (unsigned int)(r >> 8) & 255,
			 (unsigned int)(r >> 16) & 255);
		pkt_eth(&p, ETH_P_IP);
		pkt_ipv4(&p, src, svc ? "10.40.0.2" : "10.40.0.1",
			 svc ? IPPROTO_UDP : IPPROTO_TCP, 0);
		pkt_ports(&p, svc ? IPPROTO_UDP : IPPROTO_TCP, (__u16)(1024 + (r >> 32) % 60000),
			  svc ? 53 : 80);
		pkt_finish(&p);
		len_a = len_b = cap;
		ret_a = prog_env_run_on(&env, if_c, p.buf, p.len, 1, out_a, &len_a, NULL);
		ret_b = prog_env_run_on(&env_b, if_c, p.buf, p.len, 1, out_b, &len_b, NULL);
		sent[svc]++;
		agree[svc] += ret_a == ret_b && len_a == len_b && !memcmp(out_a, out_b, len_a) &&
			      len_a > p.len;
	}
	printf("  jump: %u of %u flows the same on both hosts, encapsulated\n", agree[0], sent[0]);
	printf("  shuffle: %u of %u flows the same on both hosts, encapsulated\n", agree[1],
	       sent[1]);
	ASSERT_EQ(agree[0], FLOWS, "jump flows that agree");
	ASSERT_EQ(agree[1], FLOWS, "shuffle flows that agree");
}
TEST_NEEDS(every_flow_the_same_on_both_hosts, histories_converge_to_the_same_pools);

TEST_MAIN("prog_canonical", setup, teardown)
