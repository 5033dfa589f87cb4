// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Per-service flow keys: `service add ... --hash-fields LIST` and the same
 * key on a service line. The configuration goes through the model as `apply`
 * and the commands do it (config text, spec keys, xs_model_commit()); the
 * packets through the XDP program (BPF_PROG_TEST_RUN in a private namespace,
 * tests/prog/lb_env.h).
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

#define CLIENTS 200

static const struct xs_commit_opts quiet = { .quiet = true };

/* Make @h's state the configuration @text, as `apply` does. */
static int apply_text(const char *text)
{
	struct xs_config_src src = { .name = "fields.conf", .text = text };
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

/* The backend client @i's TCP packet to @vip:80 is tunnelled to (0 if it is not). */
static __be32 backend_of(__u32 i, const char *vip)
{
	unsigned char out[2048];
	__u32 out_len = sizeof(out);
	char src[32];
	struct pkt p;
	__be32 be;

	snprintf(src, sizeof(src), "198.51.%u.%u", 100 + i / 200, i % 200 + 1);
	pkt_eth(&p, ETH_P_IP);
	pkt_ipv4(&p, src, vip, IPPROTO_TCP, 0);
	pkt_ports(&p, IPPROTO_TCP, (__u16)(20000 + 7 * i), 80);
	pkt_payload(&p, 32);
	pkt_finish(&p);
	if (prog_env_run_on(&env, if_a, p.buf, p.len, 1, out, &out_len, NULL) != XDP_TX ||
	    out[14 + 9] != IPPROTO_IPIP)
		return 0;
	memcpy(&be, out + 14 + 16, 4);
	return be;
}

/* How many distinct backends CLIENTS clients reach at @vip; 0 if one was not tunnelled. */
static int spread(const char *vip)
{
	__be32 seen[8] = { 0 };
	int n = 0, i, j;

	for (i = 0; i < CLIENTS; i++) {
		__be32 be = backend_of((__u32)i, vip);

		if (!be)
			return 0;
		for (j = 0; j < n && seen[j] != be; j++)
			;
		if (j == n && n < 8)
			seen[n++] = be;
	}
	return n;
}

static const char *const conf =
	"service 10.50.0.1:80/tcp hash-fields dport\n"
	"backend 10.50.0.1:80/tcp 10.20.0.101\n"
	"backend 10.50.0.1:80/tcp 10.20.0.102\n"
	"backend 10.50.0.1:80/tcp 10.20.0.103\n"
	"backend 10.50.0.1:80/tcp 10.20.0.104\n"
	"service 10.50.0.2:80/tcp\n"
	"backend 10.50.0.2:80/tcp 10.20.0.101\n"
	"backend 10.50.0.2:80/tcp 10.20.0.102\n"
	"backend 10.50.0.2:80/tcp 10.20.0.103\n"
	"backend 10.50.0.2:80/tcp 10.20.0.104\n";

/*
 * A port-only VIP sends every client to one backend (what a peer's corpus
 * expects of `hash-fields dport`): 200 clients, one backend; the service
 * next to it, on the interface's fields (all five), spreads them over all 4.
 */
TEST(port_only_service_sends_every_client_to_one_backend)
{
	struct xs_pool pool;
	__u32 id;

	if (!ASSERT_EQ(apply_text(conf), 0, "apply"))
		return;
	id = service_id("10.50.0.1:80/tcp");
	if (!ASSERT_TRUE(id && !xs_pool_read(&env.h, id, &pool), "the service's pool"))
		return;
	ASSERT_EQ(pool.hdr.flow_fields, XS_F_DPORT, "its pool hashes the destination port only");
	ASSERT_TRUE(pool.hdr.own_fields, "its own fields");
	xs_pool_free(&pool);
	ASSERT_EQ(spread("10.50.0.1"), 1, "backends reached by 200 clients of the port-only VIP");
	ASSERT_EQ(spread("10.50.0.2"), 4, "backends reached by 200 clients of the other VIP");
	/* Two clients, the peer's case exactly, and what lookup's decision says for them. */
	{
		struct xs_flow_key k;
		struct xs_decision d;
		struct xs_target t;
		__be32 a = backend_of(1000, "10.50.0.1"), b = backend_of(1001, "10.50.0.1");

		ASSERT_TRUE(a && a == b, "two clients, one backend");
		memset(&k, 0, sizeof(k));
		XS_W32(k.dst, 2) = htonl(0xffff);
		inet_pton(AF_INET, "10.50.0.1", &XS_W32(k.dst, 3));
		k.proto = XS_IPPROTO_TCP;
		k.dport = htons(80);
		if (!xs_pool_read(&env.h, id, &pool)) {
			ASSERT_TRUE(!xs_decide(&pool, NULL, &k, &d) &&
					    !bpf_map_lookup_elem(env.h.targets_fd, &d.target, &t) &&
					    XS_W32C(t.addr, 3) == a,
				    "the decision for port 80 names that backend");
			xs_pool_free(&pool);
		}
	}
}

/* The line of @text that starts with @prefix, without its newline ("" if none). */
static void line_of(const char *text, const char *prefix, char *line, size_t len)
{
	const char *at = strstr(text, prefix), *nl;

	line[0] = 0;
	if (!at)
		return;
	nl = strchr(at, '\n');
	snprintf(line, len, "%.*s", (int)(nl ? nl - at : (long)strlen(at)), at);
}

/*
 * The service keeps its own fields when the interface's change; a service
 * without its own follows them. `show` prints the key on the service's line
 * only when it has its own, and applying what it printed changes nothing.
 */
TEST(own_fields_survive_the_interface_and_show)
{
	struct xs_settings set;
	struct xs_model m = { 0 };
	struct xs_pool p1 = { 0 }, p2 = { 0 };
	char *text = NULL, line[512];
	size_t len = 0;
	FILE *f;

	if (!ASSERT_EQ(xs_model_load(&env.h, &m, false), 0, "load"))
		return;
	set = m.set;
	ASSERT_EQ(xs_settings_set(&set, "hash-fields", "src,dst"), 0, "interface: src,dst");
	xs_model_settings(&m, &set);
	ASSERT_EQ(xs_model_commit(&env.h, &m, &quiet), 0, "commit");
	xs_model_free(&m);
	if (!ASSERT_TRUE(!xs_pool_read(&env.h, service_id("10.50.0.1:80/tcp"), &p1) &&
				 !xs_pool_read(&env.h, service_id("10.50.0.2:80/tcp"), &p2),
			 "pools"))
		return;
	ASSERT_EQ(p1.hdr.flow_fields, XS_F_DPORT, "the port-only service keeps dport");
	ASSERT_EQ(p2.hdr.flow_fields, XS_F_SRC | XS_F_DST, "the other follows the interface");
	xs_pool_free(&p1);
	xs_pool_free(&p2);

	if (!ASSERT_EQ(xs_model_load(&env.h, &m, true), 0, "load, placed"))
		return;
	f = open_memstream(&text, &len);
	xs_config_print(&m, true, f);
	fclose(f);
	xs_model_free(&m);
	line_of(text, "service 10.50.0.1:80/tcp ", line, sizeof(line));
	ASSERT_TRUE(strlen(line) > 18 && !strcmp(line + strlen(line) - 18, " hash-fields dport"),
		    "show: the port-only service's line has its key: '%s'", line);
	line_of(text, "service 10.50.0.2:80/tcp ", line, sizeof(line));
	ASSERT_TRUE(line[0] && !strstr(line, "hash-fields"),
		    "show: the other service's line has none: '%s'", line);
	/* Applying what show printed changes no pool. */
	if (!ASSERT_TRUE(!xs_pool_read(&env.h, service_id("10.50.0.1:80/tcp"), &p1) &&
				 !xs_pool_read(&env.h, service_id("10.50.0.2:80/tcp"), &p2),
			 "pools before"))
		goto out;
	ASSERT_EQ(apply_text(text), 0, "apply show's text");
	{
		struct xs_pool q1 = { 0 }, q2 = { 0 };

		if (ASSERT_TRUE(!xs_pool_read(&env.h, service_id("10.50.0.1:80/tcp"), &q1) &&
					!xs_pool_read(&env.h, service_id("10.50.0.2:80/tcp"), &q2),
				"pools after")) {
			ASSERT_TRUE(xs_pool_same(&p1, &q1) && xs_pool_same(&p2, &q2),
				    "show -> apply changes no pool");
			xs_pool_free(&q1);
			xs_pool_free(&q2);
		}
	}
	xs_pool_free(&p1);
	xs_pool_free(&p2);
out:
	free(text);
}

/* The command's key, parsed by the same table: every list, and a bad one refused. */
TEST(hash_fields_key_of_a_service)
{
	static const struct {
		const char *list;
		__u8 fields;
	} ok[] = {
		{ "src", XS_F_SRC },
		{ "src,dst", XS_F_SRC | XS_F_DST },
		{ "dport", XS_F_DPORT },
		{ "src,dst,sport,dport,proto", XS_F_ALL },
	};
	struct xs_service_spec s;
	char msg[256];
	unsigned int i;

	for (i = 0; i < XS_ARRAY_SIZE(ok); i++) {
		ASSERT_EQ(xs_service_spec_init(&s, "10.50.0.9:80/tcp"), 0, "init");
		ASSERT_EQ(s.flow_fields, 0, "by default, the interface's");
		ASSERT_EQ(xs_service_spec_set(&s, "hash-fields", ok[i].list), 0, ok[i].list);
		ASSERT_EQ(s.flow_fields, ok[i].fields, ok[i].list);
	}
	xs_log_capture(msg, sizeof(msg));
	ASSERT_TRUE(xs_service_spec_set(&s, "hash-fields", "vip") < 0, "an unknown field refused");
	xs_log_capture(NULL, 0);
	ASSERT_TRUE(strstr(msg, "hash-fields") != NULL, "the message names the key: %s", msg);
}

TEST_NEEDS(own_fields_survive_the_interface_and_show,
	   port_only_service_sends_every_client_to_one_backend) /* its services */

static int setup(void)
{
	if (stay_on_one_cpu("prog_fields"))
		exit(1);
	if (netns_setup() ||
	    sh("for i in 101 102 103 104; do ip neigh add 10.20.0.$i lladdr 02:00:00:00:01:$((i - 100)) "
	       "dev lbA nud permanent; done") ||
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

TEST_MAIN("prog_fields", setup, teardown)
