// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * XDP_PASS and nothing else, for the namespace tests. veth delivers a frame
 * that its peer sends with XDP_TX (or a redirect) only when the receiving veth
 * runs an XDP program itself, so the bridge-side peer of the load balancer's
 * veth carries this one. Compiled at test time into a temporary directory:
 *   clang -O2 -g -target bpf -c xdp_pass.bpf.c -o pass.o
 */
#include <linux/bpf.h>

__attribute__((section("xdp"), used)) int xs_test_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char _license[] __attribute__((section("license"), used)) = "GPL";
