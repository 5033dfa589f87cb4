/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The health of an interface's backends, as the agent last saw it: written
 * by the agent after every probe round that changed something, to
 * RUN_DIR/health-IFACE (renamed into place whole, so a reader never sees
 * half of it), and read by `stats`, `service list` and the metrics, which
 * run as separate processes (docs/health.md).
 */
#ifndef XS_HEALTH_STATE_H
#define XS_HEALTH_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "names.h"
#include "xdpsteer.h"

#define XS_HEALTH_DIR "/run/xdpsteer"
#define XS_HEALTH_ERR_LEN 48

enum xs_health {
	XS_HEALTH_UNKNOWN = 0,	/* not yet rise good or fall bad probes: counts as up */
	XS_HEALTH_UP = 1,
	XS_HEALTH_DOWN = 2,	/* out of the pool */
};

struct xs_health_backend {
	struct xs_service_key service;
	__u8 addr[16];		/* IPv4 stored IPv4-mapped */
	__u8 state;		/* enum xs_health */
	__u32 ok_run, fail_run;	/* good / failed probes in a row now */
	__u64 since;		/* wall-clock seconds: the last change of state (or the first probe) */
	__u64 probes, failures;	/* since the agent started */
	char error[XS_HEALTH_ERR_LEN];	/* why the last probe failed, or "" */
};

struct xs_health_state {
	__u64 written;		/* wall-clock seconds */
	int pid;		/* the agent's */
	__u32 n;
	struct xs_health_backend *be;
};

extern const struct xs_name xs_health_names[];	/* "unknown", "up", "down" */

/*
 * @dir's health-@ifname into @st; @dir NULL: the default run directory
 * (XS_HEALTH_DIR, keyed by network namespace as netns.h says), its
 * @ifname/ subdirectory first (the systemd unit's). -ENOENT: no agent checks it.
 */
int xs_health_read(const char *dir, const char *ifname, struct xs_health_state *st);
/* Written whole: to a temporary file renamed over the old one. */
int xs_health_write(const char *dir, const char *ifname, const struct xs_health_state *st);
void xs_health_free(struct xs_health_state *st);
/* Backend @addr of service @key, or NULL. */
const struct xs_health_backend *xs_health_find(const struct xs_health_state *st,
					       const struct xs_service_key *key,
					       const __u8 *addr);

#endif /* XS_HEALTH_STATE_H */
