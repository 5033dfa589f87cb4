/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The fuzzer's world: a private network namespace (tests/prog/lb_env.h) so
 * bpf_fib_lookup() answers, the XDP object loaded unattached, a queue pool
 * of CPU and device targets with a hole, and three services. The reference
 * gets a snapshot of that configuration read back from the maps.
 */
#ifndef XS_FUZZ_ENV_H
#define XS_FUZZ_ENV_H

#include <arpa/inet.h>
#include <linux/bpf.h>
#include "prog_env.h"

static struct prog_env env;

#include "lb_env.h"
#include "ref.h"

#define FUZZ_QUEUE_TARGETS 5
#define FUZZ_HOLE 2
#define FUZZ_MAX_WATCH 16

static const char *const fuzz_services[] = {
	"10.99.0.1:80/tcp",         /* ipip, IPv4 and IPv6 backends */
	"10.99.0.1:*/udp",          /* L2, any port */
	"[2001:db8:99::1]:443/tcp", /* ip6ip6 */
	"10.99.0.1:443/udp",        /* ipip, quic on: backends 388 and 389 (gen_corpus.c) */
};

static struct ref_config cfg;
static __u32 watch[FUZZ_MAX_WATCH], n_watch;

static inline void fuzz_watch(const struct xs_pool *p)
{
	__u32 i;

	for (i = 0; i < p->hdr.n_buckets && n_watch < FUZZ_MAX_WATCH; i++)
		if (p->bucket[i] != XS_NO_TARGET)
			watch[n_watch++] = p->bucket[i];
}

/* Turn quic on for service @spec, as `quic on` does. */
static inline int fuzz_quic_on(const char *spec)
{
	struct xs_service_key key;
	struct xs_service svc;
	struct xs_txn *txn;

	if (xs_parse_service(spec, &key) || xs_service_get(&env.h, &key, &svc))
		return -1;
	svc.quic = 1;
	txn = xs_txn_begin(&env.h);
	if (!txn || xs_txn_service(txn, &key, &svc)) {
		xs_txn_abort(txn);
		return -1;
	}
	return xs_txn_commit(txn);
}

static inline int fuzz_env_setup(void)
{
	static const char *const be_mixed[] = { "10.20.0.11", "2001:db8:20::11" };
	static const char *const be_v4[] = { "10.20.0.11" };
	static const char *const be_v6[] = { "2001:db8:20::11" };
	int i;

	/* ICMP "too big" without a rate limit: every answer is then the same. */
	struct prog_env_cfg pcfg = { .flow_entries = XS_DEFAULT_FLOW_ENTRIES,
				     .unparsed_verdict = XDP_PASS, .icmp_rate = -1 };

	if (netns_setup() || prog_env_open_cfg(&env, &pcfg) ||
	    prog_env_targets(&env, XS_ALGO_JUMP, 0, FUZZ_QUEUE_TARGETS, seed))
		return -1;
	/* A hole sends the keys that land on it through the redraw path. */
	env.pool.bucket[FUZZ_HOLE] = XS_NO_TARGET;
	if (xs_pool_publish(&env.h, XS_POOL_QUEUES, &env.pool) ||
	    !add_service(fuzz_services[0], XS_ENCAP_IPIP, be_mixed, 2) ||
	    !add_service(fuzz_services[1], XS_ENCAP_L2, be_v4, 1) ||
	    !add_service(fuzz_services[2], XS_ENCAP_IPIP, be_v6, 1) ||
	    !add_service(fuzz_services[3], XS_ENCAP_IPIP, be_mixed, 2) || fuzz_quic_on(fuzz_services[3]))
		return -1;

	/* The reference sees what the kernel sees: read it all back. */
	if (xs_pool_read(&env.h, XS_POOL_QUEUES, &cfg.queues) ||
	    xs_targets_read(&env.h, cfg.targets))
		return -1;
	fuzz_watch(&cfg.queues);
	for (i = 0; i < (int)XS_ARRAY_SIZE(fuzz_services); i++) {
		struct ref_service *s = &cfg.svc[cfg.n_svc];

		if (xs_parse_service(fuzz_services[i], &s->key) ||
		    bpf_map_lookup_elem(env.h.services_fd, &s->key, &s->svc) ||
		    xs_pool_read(&env.h, s->svc.id, &s->pool))
			return -1;
		fuzz_watch(&s->pool);
		cfg.n_svc++;
	}
	/* The QUIC seeds name backends 388 and 389: they must be the quic service's. */
	if (cfg.targets[388].service != cfg.svc[3].svc.id ||
	    cfg.targets[389].service != cfg.svc[3].svc.id || !cfg.svc[3].svc.quic)
		return -1;
	memcpy(cfg.lb_mac, mac_a, 6);
	memcpy(cfg.be_mac, mac_be, 6);
	return 0;
}

/* Every counter, summed over CPUs (xs_counters_read() does it in one syscall). */
static inline int fuzz_counters(__u64 *sum)
{
	return xs_counters_read(&env.h, sum);
}

static inline int fuzz_packets(__u64 *packets)
{
	struct xs_target_stats s;
	__u32 i;

	for (i = 0; i < n_watch; i++) {
		if (xs_stats_read(&env.h, watch[i], &s, NULL))
			return -1;
		packets[i] = s.packets;
	}
	return 0;
}

#endif /* XS_FUZZ_ENV_H */
