/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Jump consistent hash (Lamping and Veach, 2014), integer form.
 *
 * The paper computes j = (b + 1) * (2^31 / ((key >> 33) + 1)) in doubles. BPF
 * has no floating point, so this is ((b + 1) << 31) / ((key >> 33) + 1) in
 * 64-bit integers; tests/unit/test_jump.c checks it against the double form.
 *
 * The verifier needs a bound on the loop. The expected number of iterations
 * is ln(n) + 1 (about 12 for n = 65536); the chance of more than
 * XS_JUMP_MAX_ITER is below 1e-20 for n <= 2^20. If the bound is ever hit the
 * last bucket reached is returned, on both sides alike, so the kernel and
 * `xdpsteer lookup` still agree.
 */
#ifndef XS_JUMP_H
#define XS_JUMP_H

#include "xs_common.h"

#define XS_JUMP_MAX_ITER 64
#define XS_JUMP_MULT 2862933555777941757ULL

XS_INLINE __u32 xs_jump(__u64 key, __u32 n)
{
	__u64 b = 0, j = 0;
	__u32 i;

	for (i = 0; i < XS_JUMP_MAX_ITER; i++) {
		b = j;
		key = key * XS_JUMP_MULT + 1;
		j = ((b + 1) << 31) / ((key >> 33) + 1);
		if (j >= n)
			break;
	}
	return (__u32)b;
}

#endif /* XS_JUMP_H */
