/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The agent's health checker (docs/health.md): one probe per backend of
 * every service with a check, each a non-blocking socket on one epoll
 * descriptor that the agent's poll loop waits on. A backend that fails
 * `fall` probes in a row is down; `rise` good ones bring it back. Down is
 * an overlay on the model the agent commits (xs_checker_overlay), so a
 * re-applied file cannot undo it, and a backend comes back to the slots it
 * held.
 */
#ifndef XS_AGENT_HEALTH_H
#define XS_AGENT_HEALTH_H

#include <stdbool.h>
#include <net/if.h>
#include "handle.h"
#include "health_state.h"
#include "model.h"

struct xs_probe;

struct xs_checker {
	int epfd;
	const char *run_dir;
	struct xs_probe **p;
	__u32 n, cap;
	long long next_at;		/* the earliest deadline or start of any probe (ms) */
	char ifname[8][IF_NAMESIZE];	/* by interface index, as the agent numbers them */
	bool changed[8];		/* a backend went up or down: commit this interface */
	bool dirty[8];			/* the health file is out of date: counts changed */
	bool urgent[8];			/* and a state changed: written at once */
	long long saved_at[8];		/* when it was last written (ms) */
	/* Saved originals of the backends an overlay changed, put back by xs_checker_restore. */
	struct xs_backend_spec *saved;
	__u32 *saved_idx;
	__u32 n_saved;
	/* The services whose slot count an overlay set (the model gave none). */
	__u32 *counted;
	__u32 n_counted;
};

int xs_checker_init(struct xs_checker *c, const char *run_dir);
void xs_checker_free(struct xs_checker *c);
/*
 * The probes of interface @ifc: one per backend of each service of @m with
 * a check. New ones start unknown (down, if @m has them down: a restarted
 * agent keeps what it found); those @m no longer has go.
 */
void xs_checker_sync(struct xs_checker *c, int ifc, const char *ifname, const struct xs_model *m);
/* Read what the sockets answered, time out, start the probes due. */
void xs_checker_step(struct xs_checker *c, long long now_ms);
/* When xs_checker_step next has something to do (CLOCK_MONOTONIC ms). */
long long xs_checker_next(const struct xs_checker *c);
/*
 * Make @m say what the probes found for interface @ifc (whose running state
 * @h holds): a down backend is down (in no slot, its return slots kept), and
 * every backend of a service with one down, or coming back, is named in the
 * slots it holds, so that nothing else moves. xs_checker_restore() undoes it.
 */
int xs_checker_overlay(struct xs_checker *c, int ifc, const struct xs_handle *h,
		       struct xs_model *m);
void xs_checker_restore(struct xs_checker *c, struct xs_model *m);
/* After a commit of @ifc: @ok, the overlay is live (a backend that came back holds its slots). */
void xs_checker_committed(struct xs_checker *c, int ifc, bool ok);
/* Is some service of VIP @addr, on any interface, below its min-healthy? */
bool xs_checker_vip_down(const struct xs_checker *c, const __u8 *addr);
/* Write the health file of each interface whose health changed. */
void xs_checker_save(struct xs_checker *c);

#endif /* XS_AGENT_HEALTH_H */
