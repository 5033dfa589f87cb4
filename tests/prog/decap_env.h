/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The backend's decap program loaded from its skeleton for BPF_PROG_TEST_RUN
 * (tests/prog/test_gue.c, test_chance.c, test_hops.c): its counters summed
 * over CPUs, its local addresses, a run of one frame.
 */
#ifndef XS_TEST_DECAP_ENV_H
#define XS_TEST_DECAP_ENV_H

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "xs_decap.h"
#include "xs_decap.skel.h"

static struct xs_decap *decap;

static inline __u64 decap_counter(__u32 c)
{
	int n = libbpf_num_possible_cpus(), i;
	struct xs_decap_counter_block v[n];
	__u32 zero = 0;
	__u64 sum = 0;

	/* One block per CPU, a field per counter in enum order. */
	if (c >= XS_D_MAX ||
	    bpf_map_lookup_elem(bpf_map__fd(decap->maps.xs_decap_counters), &zero, v))
		return 0;
	for (i = 0; i < n; i++)
		sum += ((const __u64 *)&v[i])[c];
	return sum;
}

/* @addr (IPv4 or IPv6) is one of this host's: tunnels to it are decapsulated. */
static inline void decap_add_local(const char *addr)
{
	struct xs_decap_addr a = { 0 };
	__u32 one = 1;

	if (inet_pton(AF_INET, addr, &a.addr[12]) == 1)
		XS_W32(a.addr, 2) = htonl(0xffff);
	else
		inet_pton(AF_INET6, addr, a.addr);
	bpf_map_update_elem(bpf_map__fd(decap->maps.xs_decap_addrs), &a, &one, BPF_ANY);
}

/* One run of @in (@len bytes) received on @ifindex (0: none); its verdict, or -errno. */
static inline int decap_run_on(__u32 ifindex, const void *in, __u32 len, unsigned char *out,
			       __u32 *out_len)
{
	struct xdp_md ctx = { .data_end = len, .ingress_ifindex = ifindex };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in, .data_size_in = len, .data_out = out,
		    .data_size_out = *out_len, .ctx_in = ifindex ? &ctx : NULL,
		    .ctx_size_in = ifindex ? sizeof(ctx) : 0, .repeat = 1);

	if (bpf_prog_test_run_opts(bpf_program__fd(decap->progs.xdpsteer_decap), &o))
		return -errno;
	*out_len = o.data_size_out;
	return (int)o.retval;
}

#endif /* XS_TEST_DECAP_ENV_H */
