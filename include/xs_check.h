/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A service's health check, as the running state keeps it: xs_checks maps a
 * service key to one. The data plane never reads it; it lives in a pinned
 * map beside the services so that `xdpsteer agent IFACE` finds the checks of
 * the state an interface already has, with no file and no etcd, and so that
 * `show` and `service list` print them (docs/health.md).
 */
#ifndef XS_CHECK_H
#define XS_CHECK_H

#include <linux/types.h>
#include "xs_common.h"

enum XS_ENUM8 xs_check_kind {
	XS_CHECK_NONE = 0,	/* no check: every backend counts as up */
	XS_CHECK_TCP = 1,	/* a connect() that completes */
	XS_CHECK_HTTP = 2,	/* GET PATH answered with status EXPECT */
	XS_CHECK_UDP = 3,	/* a datagram answered (by EXPECT-SEND's text, if given) */
	XS_CHECK_DNS = 4,	/* a DNS query answered with the same id */
};

/* What happens to flows pinned to a backend its check takes out. */
enum XS_ENUM8 xs_check_policy {
	XS_DOWN_REDECIDE = 0,	/* they are decided again: the backend is dead */
	XS_DOWN_DRAIN = 1,	/* they stay, as on `backend drain`: only new flows avoid it */
};

#define XS_CHECK_PATH_LEN 64
#define XS_CHECK_SEND_LEN 32

struct xs_check {
	enum xs_check_kind kind;
	__u8 rise;		/* good checks in a row that bring a backend back */
	__u8 fall;		/* failed checks in a row that take it out */
	enum xs_check_policy on_down;
	__u16 port;		/* host order; 0: the service's port */
	__u16 expect;		/* http: the status wanted */
	__u32 interval_ms;
	__u32 timeout_ms;
	__u32 min_healthy;	/* fewer backends up than this: the service is reported down */
	char path[XS_CHECK_PATH_LEN];	/* http: what GET asks for */
	char send[XS_CHECK_SEND_LEN];	/* udp: the payload (empty: one zero byte) */
	char reply[XS_CHECK_SEND_LEN];	/* udp: what the answer must start with (empty: any) */
};
_Static_assert(sizeof(struct xs_check) == 148, "xs_check keeps its layout");

#endif /* XS_CHECK_H */
