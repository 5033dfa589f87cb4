/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A private network namespace in which bpf_fib_lookup() answers: veths,
 * addresses, routes and permanent neighbours, and services published the way
 * the CLI publishes them. Shared by tests/prog/test_lb.c and
 * tests/bench/bench_lb.c; both define `static struct prog_env env` first.
 *
 *   lbA (ingress) 10.20.0.1/24, 2001:db8:20::1/64; backends .11 and ::11 behind it
 *   lbC           10.30.0.1/24; backend 10.30.0.22 behind it
 */
#ifndef XS_TEST_LB_ENV_H
#define XS_TEST_LB_ENV_H

#include <sched.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include "prog_env.h"
#include "service.h"
#include "txn.h"

static __u32 if_a, if_c;
static unsigned char mac_a[6], mac_c[6];
static const unsigned char mac_be[6] = { 0x02, 0, 0, 0, 0, 0x11 };
static const unsigned char mac_be2[6] = { 0x02, 0, 0, 0, 0, 0x22 };
static const __u64 seed[2] = { 0x1111111111111111ULL, 0x2222222222222222ULL };

/* The flow hash the service pools (seeded @seed) use for @key: a tunnel source's low bits come from it. */
static inline __u32 flow_hash32(const struct xs_flow_key *key)
{
	return (__u32)xs_flow_hash(seed, key, XS_F_ALL, XS_DOMAIN_FLOW);
}

/* The flow key of a TCP packet from @src:@sp to @dst:@dp (IPv4). */
static inline void v4_key(struct xs_flow_key *k, const char *src, const char *dst, __u16 sp,
			  __u16 dp)
{
	memset(k, 0, sizeof(*k));
	XS_W32(k->src, 2) = XS_W32(k->dst, 2) = htonl(0xffff);
	inet_pton(AF_INET, src, &XS_W32(k->src, 3));
	inet_pton(AF_INET, dst, &XS_W32(k->dst, 3));
	k->proto = XS_IPPROTO_TCP;
	k->sport = htons(sp);
	k->dport = htons(dp);
}

static inline int sh(const char *cmd)
{
	int rc = system(cmd);

	if (rc)
		fprintf(stderr, "  setup command failed (%d): %s\n", rc, cmd);
	return rc;
}

/* ioctl, not /sys/class/net: sysfs still shows the namespace we came from. */
static inline int read_mac(const char *ifname, unsigned char *mac)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), rc;

	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	rc = ioctl(fd, SIOCGIFHWADDR, &ifr);
	close(fd);
	if (rc)
		return -1;
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return 0;
}

static inline int netns_setup(void)
{
	if (unshare(CLONE_NEWNET)) {
		perror("unshare(CLONE_NEWNET)");
		return -1;
	}
	if (sh("ip link set lo up") ||
	    sh("ip link add lbA type veth peer name lbB && ip link set lbA up && ip link set lbB up") ||
	    sh("ip link add lbC type veth peer name lbD && ip link set lbC up && ip link set lbD up") ||
	    sh("ip link set lbA mtu 1500 && ip addr add 10.20.0.1/24 dev lbA") ||
	    sh("ip -6 addr add 2001:db8:20::1/64 dev lbA nodad") ||
	    sh("ip addr add 10.30.0.1/24 dev lbC") ||
	    sh("ip neigh add 10.20.0.11 lladdr 02:00:00:00:00:11 dev lbA nud permanent") ||
	    sh("ip -6 neigh add 2001:db8:20::11 lladdr 02:00:00:00:00:11 dev lbA nud permanent") ||
	    sh("ip neigh add 10.30.0.22 lladdr 02:00:00:00:00:22 dev lbC nud permanent") ||
	    sh("sysctl -qw net.ipv4.conf.all.forwarding=1 net.ipv6.conf.all.forwarding=1"))
		return -1;
	if_a = if_nametoindex("lbA");
	if_c = if_nametoindex("lbC");
	return read_mac("lbA", mac_a) || read_mac("lbC", mac_c) || !if_a || !if_c ? -1 : 0;
}

/* A service with the given backends (weight 1 each), published like the CLI does. */
static inline __u32 add_service(const char *spec, __u8 encap, const char *const *backends, int n)
{
	static __u32 next_id = 1, next_target = XS_BACKEND_BASE;
	struct xs_service_key key;
	struct xs_service svc = { .encap = encap };
	struct xs_pool pool = { 0 };
	__u32 i;

	if (xs_parse_service(spec, &key))
		return 0;
	xs_parse_cidr("172.16.0.0/16", AF_INET, &svc.src4, &svc.src4_bits);
	xs_parse_cidr("fd00:7873::/96", AF_INET6, svc.src6, &svc.src6_bits);
	svc.id = next_id++;
	pool.hdr.algo = XS_ALGO_JUMP;
	pool.hdr.flow_fields = XS_F_ALL;
	pool.hdr.hand_fields = XS_F_SRC;
	memcpy(pool.hdr.seed, seed, sizeof(seed));
	pool.hdr.n_buckets = n;
	pool.bucket = calloc(n, sizeof(__u32));
	for (i = 0; i < (__u32)n; i++) {
		struct xs_target t;
		struct in6_addr a6;
		struct in_addr a4;

		memset(&t, 0, sizeof(t));
		t.kind = XS_TARGET_BACKEND;
		t.active = true;
		t.uid = 77 + i;
		t.service = svc.id;
		t.weight = 1;
		if (inet_pton(AF_INET, backends[i], &a4) == 1) {
			t.family = 4;
			XS_W32(t.addr, 2) = htonl(0xffff);
			XS_W32(t.addr, 3) = a4.s_addr;
		} else {
			inet_pton(AF_INET6, backends[i], &a6);
			t.family = 6;
			memcpy(t.addr, &a6, 16);
		}
		xs_target_write(&env.h, next_target, &t);
		pool.bucket[i] = next_target++;
	}
	{
		/* As `service add` does it: pool, service, VIP and count in one commit. */
		struct xs_txn *txn = xs_txn_begin(&env.h);

		if (!txn || xs_txn_pool(txn, svc.id, &pool) || xs_txn_service(txn, &key, &svc)) {
			xs_txn_abort(txn);
			return 0;
		}
		if (xs_txn_commit(txn))
			return 0;
	}
	xs_pool_free(&pool);
	return svc.id;
}

#endif /* XS_TEST_LB_ENV_H */
