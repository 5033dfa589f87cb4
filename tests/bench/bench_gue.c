// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * GUE's cost beside ipip's, both halves, under BPF_PROG_TEST_RUN in a
 * private namespace where the FIB answers:
 *  - the load balancer: an established flow sent with ipip, with GUE, and
 *    with GUE and a second hop (second chance within its window: the long
 *    way on every packet, as the recipe holds no hop list);
 *  - the backend: the decap program stripping ipip, GUE, and GUE with a hop
 *    list (the socket lookup), delivered or sent on to the next hop.
 * Each packet is rewritten, so every figure is a repeat=1 loop over distinct
 * runs (bench_lb.c says why), with the floor (a program that only returns
 * XDP_TX) timed by the same loop in the same round. Median of the rounds.
 */
#define _GNU_SOURCE
#include <linux/bpf.h>
#include <linux/tcp.h>
#include "pkt.h"
#include "quantile.h"
#include "chance.h"
#include "xs_decap.h"
#include "xs_decap.skel.h"
#include "xs_gue.h"

static struct prog_env env;

#include "lb_env.h"

#define FLOWS 20000
#define HOT 64
#define RUNS 20000
#define ROUNDS 7

static void client(struct pkt *p, __u32 i, const char *vip, __u8 ack)
{
	char src[32];

	snprintf(src, sizeof(src), "100.%u.%u.%u", (i >> 16) & 0x3f, (i >> 8) & 0xff, i & 0xff);
	pkt_eth(p, ETH_P_IP);
	pkt_ipv4(p, src, vip, IPPROTO_TCP, 0);
	pkt_ports(p, IPPROTO_TCP, (__u16)(1024 + i % 50000), 80);
	((struct tcphdr *)(p->buf + p->l4_off))->ack = ack;
	pkt_payload(p, 64);
	pkt_finish(p);
}

/* Mean kernel-timed ns of one run of @fd on @p, @n runs; -1 on a wrong verdict. */
static double runs(int fd, const struct pkt *p, __u32 n, int want)
{
	struct xdp_md ctx = { .ingress_ifindex = if_a, .data_end = p->len };
	unsigned char out[2048];
	double sum = 0;
	__u32 i;

	for (i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p->buf, .data_size_in = p->len,
			    .data_out = out, .data_size_out = sizeof(out), .ctx_in = &ctx,
			    .ctx_size_in = sizeof(ctx), .repeat = 1);

		if (bpf_prog_test_run_opts(fd, &o) || (int)o.retval != want)
			return -1;
		sum += o.duration;
	}
	return sum / n;
}

/* The same over @span flows of @vip cycled through (established after their first lap). */
static double flows(int fd, const char *vip, __u32 span)
{
	double sum = 0, d;
	struct pkt p;
	__u32 i;

	for (i = 0; i < RUNS; i++) {
		client(&p, i % span, vip, 1);
		d = runs(fd, &p, 1, XDP_TX);
		if (d < 0)
			return -1;
		sum += d;
	}
	return sum / RUNS;
}

/* A frame the load balancer sends for @vip's flow @i: the decap program's input. */
static int lb_frame(const char *vip, __u32 i, struct pkt *out)
{
	struct pkt in;

	client(&in, i, vip, 1);
	out->len = sizeof(out->buf);
	return prog_env_run_on(&env, if_a, in.buf, in.len, 1, out->buf, &out->len, NULL) ==
			       XDP_TX ? 0 : -1;
}

static int sock_srv = -1, sock_cli = -1, sock_acc = -1;

/* A real connection 100.0.0.5:1029 -> 10.97.0.3:80 in this namespace, for the socket lookup. */
static int connection(void)
{
	struct sockaddr_in vip = { .sin_family = AF_INET, .sin_port = htons(80) };
	struct sockaddr_in cli = { .sin_family = AF_INET, .sin_port = htons(1024 + 5) };
	int one = 1;

	if (sh("ip addr add 10.97.0.3/32 dev lo && ip addr add 100.0.0.5/32 dev lo"))
		return -1;
	inet_pton(AF_INET, "10.97.0.3", &vip.sin_addr);
	inet_pton(AF_INET, "100.0.0.5", &cli.sin_addr);
	sock_srv = socket(AF_INET, SOCK_STREAM, 0);
	sock_cli = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(sock_srv, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(sock_srv, (void *)&vip, sizeof(vip)) || listen(sock_srv, 4) ||
	    bind(sock_cli, (void *)&cli, sizeof(cli)) ||
	    connect(sock_cli, (void *)&vip, sizeof(vip)))
		return -1;
	sock_acc = accept(sock_srv, NULL, NULL);
	return sock_acc < 0 ? -1 : 0;
}

/* Service 10.97.0.3:80 on .11, then changed to .12: every flow has the hops [.12, .11]. */
static int second_chance_service(void)
{
	static const char *const be[] = { "10.20.0.11" };
	struct xs_target *all = calloc(XS_MAX_TARGETS, sizeof(*all));
	struct xs_target t = { .kind = XS_TARGET_BACKEND, .active = true, .uid = 5,
			       .weight = 1, .family = 4 };
	struct xs_pool old, pool = { 0 };
	struct xs_service_key key;
	struct xs_service svc;
	struct xs_txn *txn;
	__u32 id = add_service("10.97.0.3:80/tcp", XS_ENCAP_GUE, be, 1), target = XS_MAX_TARGETS - 1;
	int err = -1;

	if (!id || !all || xs_parse_service("10.97.0.3:80/tcp", &key) ||
	    bpf_map_lookup_elem(env.h.services_fd, &key, &svc))
		goto out;
	svc.second_chance = 1;
	svc.chance_window_s = 3600;
	txn = xs_txn_begin(&env.h);
	if (!txn || xs_txn_service(txn, &key, &svc) || xs_txn_commit(txn))
		goto out;
	t.service = id;
	XS_W32(t.addr, 2) = htonl(0xffff);
	inet_pton(AF_INET, "10.20.0.12", &t.addr[12]);
	if (xs_target_write(&env.h, target, &t) || xs_targets_read(&env.h, all) ||
	    xs_pool_read(&env.h, id, &old) || xs_chance_keep(&env.h, id, &old, all, 3600))
		goto out;
	xs_pool_free(&old);
	pool.hdr = old.hdr;
	pool.hdr.n_buckets = 1;
	pool.bucket = calloc(1, sizeof(__u32));
	if (!pool.bucket)
		goto out;
	pool.bucket[0] = target;
	txn = xs_txn_begin(&env.h);
	err = !txn || xs_txn_pool(txn, id, &pool) || xs_txn_commit(txn) ? -1 : 0;
	xs_pool_free(&pool);
out:
	free(all);
	return err;
}

enum { F_FLOOR, F_IPIP, F_GUE, F_GUE2, F_HOT_FLOOR, F_HOT_IPIP, F_HOT_GUE,
       D_FLOOR, D_IPIP, D_GUE, D_HOPS_LOCAL, D_HOPS_FORWARD, D_HOPS_LAST, N_ROWS };

int main(int argc, char **argv)
{
	static const char *const be[] = { "10.20.0.11", "10.20.0.12", "10.20.0.13", "10.20.0.14" };
	const char *floor_path = argc > 1 ? argv[1] : "build/bench/floor.bpf.o";
	static double v[N_ROWS][ROUNDS];
	struct pkt d_ipip, d_gue, d_local, d_fwd, d_last;
	struct xs_decap_addr local = { 0 };
	struct xs_decap *decap;
	struct bpf_object *obj;
	int floor_fd, decap_fd, r;
	__u32 one = 1;

	if (netns_setup() ||
	    sh("for i in 12 13 14; do ip neigh add 10.20.0.$i lladdr 02:00:00:00:00:$i dev lbA "
	       "nud permanent; done") ||
	    prog_env_open(&env, 4 * FLOWS, XDP_PASS) ||
	    prog_env_targets(&env, XS_ALGO_JUMP, 0, 0, seed) ||
	    !add_service("10.97.0.1:80/tcp", XS_ENCAP_IPIP, be, 4) ||
	    !add_service("10.97.0.2:80/tcp", XS_ENCAP_GUE, be, 4) || second_chance_service() ||
	    connection()) {
		fprintf(stderr, "bench_gue: cannot set up the namespace, the program or a socket\n");
		return 1;
	}
	obj = bpf_object__open_file(floor_path, NULL);
	decap = xs_decap__open_and_load();
	if (!obj || bpf_object__load(obj) || !decap) {
		fprintf(stderr, "bench_gue: cannot load %s or the decap program\n", floor_path);
		return 1;
	}
	floor_fd = bpf_program__fd(bpf_object__find_program_by_name(obj, "xs_floor_tx"));
	decap_fd = bpf_program__fd(decap->progs.xdpsteer_decap);
	XS_W32(local.addr, 2) = htonl(0xffff);
	inet_pton(AF_INET, "10.20.0.12", &local.addr[12]);
	bpf_map_update_elem(bpf_map__fd(decap->maps.xs_decap_addrs), &local, &one, BPF_ANY);
	/* The decap program's inputs, as the load balancer makes them (all to .12). */
	if (lb_frame("10.97.0.3", 5, &d_local) || lb_frame("10.97.0.3", 6, &d_fwd) ||
	    d_local.buf[14 + 20 + 8] != 3) {
		fprintf(stderr, "bench_gue: the load balancer made no hop list\n");
		return 1;
	}
	for (r = 0; r < 20; r++) {
		if (lb_frame("10.97.0.1", r, &d_ipip) || lb_frame("10.97.0.2", r, &d_gue))
			return 1;
		if (d_ipip.buf[14 + 16 + 3] == 12 && d_gue.buf[14 + 16 + 3] == 12)
			break;
	}
	d_last = d_fwd;
	d_last.buf[14 + 20 + 8 + 4 + 3] = 1; /* at its last hop: delivered, no socket */
	inet_pton(AF_INET, "10.20.0.11", &local.addr[12]);
	bpf_map_update_elem(bpf_map__fd(decap->maps.xs_decap_addrs), &local, &one, BPF_ANY);
	inet_pton(AF_INET, "10.20.0.11", d_last.buf + 14 + 16); /* the checksum is not read */

	/* A first lap pins every flow: the rounds time established flows only. */
	if (flows(env.prog_fd, "10.97.0.1", FLOWS) < 0 || flows(env.prog_fd, "10.97.0.2", FLOWS) < 0 ||
	    flows(env.prog_fd, "10.97.0.3", FLOWS) < 0) {
		fprintf(stderr, "bench_gue: a flow was not sent\n");
		return 1;
	}
	for (r = 0; r < ROUNDS; r++) {
		v[F_FLOOR][r] = flows(floor_fd, "10.97.0.1", FLOWS);
		/* Each goes first in every other round: the order favours one otherwise. */
		if (r & 1) {
			v[F_GUE][r] = flows(env.prog_fd, "10.97.0.2", FLOWS);
			v[F_IPIP][r] = flows(env.prog_fd, "10.97.0.1", FLOWS);
		} else {
			v[F_IPIP][r] = flows(env.prog_fd, "10.97.0.1", FLOWS);
			v[F_GUE][r] = flows(env.prog_fd, "10.97.0.2", FLOWS);
		}
		v[F_GUE2][r] = flows(env.prog_fd, "10.97.0.3", FLOWS);
		v[F_HOT_FLOOR][r] = flows(floor_fd, "10.97.0.1", HOT);
		v[F_HOT_IPIP][r] = flows(env.prog_fd, "10.97.0.1", HOT);
		v[F_HOT_GUE][r] = flows(env.prog_fd, "10.97.0.2", HOT);
		v[D_FLOOR][r] = runs(floor_fd, &d_gue, RUNS, XDP_TX);
		v[D_IPIP][r] = runs(decap_fd, &d_ipip, RUNS, XDP_PASS);
		v[D_GUE][r] = runs(decap_fd, &d_gue, RUNS, XDP_PASS);
		v[D_HOPS_LOCAL][r] = runs(decap_fd, &d_local, RUNS, XDP_PASS);
		v[D_HOPS_FORWARD][r] = runs(decap_fd, &d_fwd, RUNS, XDP_TX);
		v[D_HOPS_LAST][r] = runs(decap_fd, &d_last, RUNS, XDP_PASS);
	}
	for (r = 0; r < N_ROWS; r++)
		if (quantile(v[r], ROUNDS, 0.5) < 0) {
			fprintf(stderr, "bench_gue: row %d: a run gave the wrong verdict\n", r);
			return 1;
		}
#define M(i) quantile(v[i], ROUNDS, 0.5)
#define ROW(name, i, fl)                                                                   \
	printf("  %-50s %8.1f ns %+8.1f ns  x%.2f\n", name, M(i), M(i) - M(fl), M(i) / M(fl))
	printf("load balancer, repeat=1 runs cycling through %d flows (%d runs), median of %d "
	       "rounds:\n", FLOWS, RUNS, ROUNDS);
	printf("  %-50s %8.1f ns\n", "floor (return XDP_TX), same loop", M(F_FLOOR));
	ROW("ipip, established flow", F_IPIP, F_FLOOR);
	ROW("gue, established flow", F_GUE, F_FLOOR);
	ROW("gue + second hop (the long way, two decisions)", F_GUE2, F_FLOOR);
	printf("same, cycling through %d hot flows:\n", HOT);
	printf("  %-50s %8.1f ns\n", "floor (return XDP_TX), same loop", M(F_HOT_FLOOR));
	ROW("ipip, established flow", F_HOT_IPIP, F_HOT_FLOOR);
	ROW("gue, established flow", F_HOT_GUE, F_HOT_FLOOR);
	printf("backend decap program, repeat=1 runs of one frame (%d runs), median of %d rounds:\n",
	       RUNS, ROUNDS);
	printf("  %-50s %8.1f ns\n", "floor (return XDP_TX), same loop", M(D_FLOOR));
	ROW("ipip, stripped", D_IPIP, D_FLOOR);
	ROW("gue, stripped", D_GUE, D_FLOOR);
	ROW("gue + hops, first hop, its connection: delivered", D_HOPS_LOCAL, D_FLOOR);
	ROW("gue + hops, first hop, no connection: sent on", D_HOPS_FORWARD, D_FLOOR);
	ROW("gue + hops, last hop, no connection: delivered", D_HOPS_LAST, D_FLOOR);
	printf("  the check's cost (its connection, over plain gue): %+.1f ns\n",
	       M(D_HOPS_LOCAL) - M(D_GUE));
	close(sock_acc);
	close(sock_cli);
	close(sock_srv);
	xs_decap__destroy(decap);
	bpf_object__close(obj);
	return 0;
}
