/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* One health probe of one backend (health.h), and the kinds of probe (probe.c). */
#ifndef XS_AGENT_PROBE_H
#define XS_AGENT_PROBE_H

#include <stdbool.h>
#include <stdint.h>
#include "health_state.h"
#include "spec.h"
#include "xs_check.h"

struct xs_probe {
	int ifc;			/* the agent's interface index */
	struct xs_check ck;
	__u16 port;			/* host order: the port probed */
	__u8 family;			/* 4 or 6 */
	int fd;				/* -1: none in flight */
	bool sent;			/* the request is out: waiting for the answer */
	__u16 dns_id;
	char buf[64];			/* the start of the answer */
	size_t have;
	long long next_at, deadline;	/* CLOCK_MONOTONIC ms */
	struct xs_health_backend h;	/* what the health file says of it */
	bool seen;			/* in the model the last sync saw */
	bool in_model_down;		/* the running state has it down (a restarted agent) */
	/* Where it sat before it went down (out of line: 1 KiB, and only a down one has it). */
	struct xs_place *place;
	bool returning;
};

/* Open the socket and connect (or send): 0, or -1 with p->h.error set. */
int xs_probe_start(struct xs_probe *p, int epfd);
/* The socket is ready (@events from epoll): 1 good, 0 not yet, -1 failed (p->h.error set). */
int xs_probe_event(struct xs_probe *p, uint32_t events);
/* Close what is in flight. */
void xs_probe_stop(struct xs_probe *p, int epfd);

#endif /* XS_AGENT_PROBE_H */
