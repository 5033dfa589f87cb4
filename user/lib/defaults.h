/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Every default and limit of a user-visible value, in one place: the
 * parsers, the model and the help texts (spec.c) read them from here.
 */
#ifndef XS_DEFAULTS_H
#define XS_DEFAULTS_H

#include "xdpsteer.h"

#define XS_DEFAULT_ALGO XS_ALGO_JUMP
#define XS_DEFAULT_HAND 4
#define XS_DEFAULT_QSIZE 2048
#define XS_MAX_QSIZE 16384 /* the kernel's cpumap sanity limit */
#define XS_DEFAULT_WEIGHT 1
#define XS_MAX_WEIGHT 256
#define XS_DEFAULT_ENCAP XS_ENCAP_IPIP
#define XS_DEFAULT_TUNNEL_SRC4 "172.16.0.0/16"
#define XS_DEFAULT_TUNNEL_SRC6 "fd00:7873::/96"
#define XS_DEFAULT_PIN_RATE 50000 /* new pins per second per CPU: docs/robustness.md */
/*
 * Empty slots a slot-count may add past those a pool's objects need. A new
 * flow whose slot is empty draws XS_HOLE_DRAWS more times, then walks the
 * slots one by one (include/xs_holes.h), about 15 ns a slot in the
 * kernel: 255 empty slots cost 5 us a new flow, 65535 cost 1 ms. The
 * verifier sets no lower bound (bpf_loop() allows 8M steps).
 */
#define XS_MAX_SPARE_SLOTS 256

/* The digits of a default, for help texts: XS_XSTR(XS_DEFAULT_QSIZE) is "2048". */
#define XS_STR(x) #x
#define XS_XSTR(x) XS_STR(x)

#endif /* XS_DEFAULTS_H */
