/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Force-included (-include) into every file of the bench-only "big" build
 * (make bench builds it in $(BUILD)/big), so bench_apply can time N = 65536
 * targets without changing the defaults in include/ and user/:
 *  - XS_MAX_BACKENDS 65536 (default 8192): a target per backend IP;
 *  - XS_MAX_BUCKETS 131072 (default 65536): a full pool of 65536 weight-1
 *    backends has no room left to reweight one up;
 *  - XS_CFG_MAX_SIZE 8 MiB (default 1 MiB): 65536 backend lines are ~2.4 MB.
 * The headers define these without #ifndef, so they are included here first
 * (their include guards make later includes no-ops) and redefined after:
 * every use expands the new value.
 */
#ifndef XS_BENCH_BIG_LIMITS_H
#define XS_BENCH_BIG_LIMITS_H

#include "xdpsteer.h"
#undef XS_MAX_BACKENDS
#define XS_MAX_BACKENDS 65536
#undef XS_MAX_BUCKETS
#define XS_MAX_BUCKETS 131072

#ifndef __bpf__
#include "config.h"
#undef XS_CFG_MAX_SIZE
#define XS_CFG_MAX_SIZE (8 * 1024 * 1024)
#endif

#endif /* XS_BENCH_BIG_LIMITS_H */
