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

/* The digits of a default, for help texts: XS_XSTR(XS_DEFAULT_QSIZE) is "2048". */
#define XS_STR(x) #x
#define XS_XSTR(x) XS_STR(x)

#endif /* XS_DEFAULTS_H */
