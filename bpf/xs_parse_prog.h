/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The packet parser (xs_parse.h) as one global subprogram of the steering
 * program, called by its decision and by the trace's slow path (xs_trace.h).
 */
#ifndef XS_PARSE_PROG_H
#define XS_PARSE_PROG_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "xs_parse.h"

/*
 * The parser as a global subprogram: verified once, and its result reaches
 * the caller as plain data. Inlined, every way through the parser (VLAN
 * depth, family, extension headers, ICMP kind, fragment) was a distinct
 * verifier state for the whole rest of the program: 992,246 of the
 * 1,000,000 instructions the verifier allows.
 */
__attribute__((noinline)) int xs_parse_global(struct xdp_md *ctx, struct xs_parsed *p)
{
	if (!p)
		return XS_C_TRUNC_ETH;
	return xs_parse((void *)(long)ctx->data, (void *)(long)ctx->data_end, p);
}

#endif /* XS_PARSE_PROG_H */
