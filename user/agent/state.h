/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The agent's state, shared by its files: the loop (agent.c), applying
 * (agent_apply.c), etcd mode (agent_etcd.c), status and control (status.c).
 */
#ifndef XS_AGENT_STATE_H
#define XS_AGENT_STATE_H

#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <time.h>
#include <linux/types.h>
#include "agent.h"
#include "bgp.h"
#include "etcd.h"
#include "health.h"
#include "watch.h"

struct xs_metrics_http;

#define XS_AGENT_ERR_LEN 512
/* etcd retries: from MIN, doubled up to MAX, with jitter (agent_etcd.c) */
#define XS_BACKOFF_MIN_MS 100
#define XS_BACKOFF_MAX_MS 5000

struct xs_agent_iface {
	char name[IF_NAMESIZE];
	__u32 prog_id;		/* the attachment the last commit went to; 0: none seen */
	long long applied;	/* the revision it runs (applied to this attachment); 0: none */
	char error[XS_AGENT_ERR_LEN]; /* why the newest revision is not applied, or "" */
	time_t applied_at;	/* when a commit to it last succeeded; 0: never */
	unsigned long long apply_errors; /* commits to it that failed */
	__u32 epoch;		/* state mode: the xs_epoch its probes were synced at */
};

/* The two keys the configuration is read from, in this order. */
enum { XS_KEY_FLEET, XS_KEY_HOST, XS_N_KEYS };

struct xs_agent {
	const struct xs_agent_opts *o;
	int nr_cpus;
	time_t started;
	struct xs_agent_iface ifc[XS_AGENT_MAX_IFACES];
	int n_ifc;

	/*
	 * The configuration: the newest revision seen and why it is not applied.
	 * In etcd mode a revision is etcd's (the newest mod_revision of the two
	 * keys); in file mode, a count of the changes seen.
	 */
	long long revision;
	char error[XS_AGENT_ERR_LEN];
	bool have_config;	/* a revision was read: there is something to apply */
	unsigned long long config_errors; /* revisions that did not parse or validate */
	/* The VIPs of the configuration every interface applied, as announced. */
	struct xs_route *vips;
	int n_vips;

	/* etcd mode */
	struct xs_etcd *etcd;
	char key[XS_N_KEYS][PATH_MAX];	/* PREFIX/fleet, PREFIX/hosts/HOST */
	char source[XS_N_KEYS][PATH_MAX + 8]; /* "etcd:KEY", the name errors carry */
	char watch_prefix[PATH_MAX];	/* PREFIX/ */
	char status_key[PATH_MAX];	/* PREFIX/status/HOST */
	char *text[XS_N_KEYS];		/* the keys' values; NULL: no such key */
	size_t text_len[XS_N_KEYS];
	long long mod_rev[XS_N_KEYS];
	long long seen;			/* every event up to this store revision is in text[] */
	bool synced;			/* false: read the keys anew before watching */
	bool connected;			/* a watch is open, or being opened */
	bool etcd_up;			/* etcd answered since the last failure */
	bool apply_due;			/* a new revision was read: the loop commits it */
	long long lease;
	long long retry_at, keepalive_at; /* CLOCK_MONOTONIC ms */
	int backoff_ms;
	unsigned int jitter;		/* xorshift state for the retries' jitter */
	bool status_dirty;
	char etcd_error[XS_AGENT_ERR_LEN];
	unsigned long long etcd_errors;	/* etcd requests or watches that failed */

	/* file mode */
	struct xs_files files;
	long long pending_at;		/* apply once quiet past this (ms), 0: nothing pending */

	/* Health checks, in every mode; state mode: no files, no etcd, the running state. */
	struct xs_checker chk;
	bool state_mode;

	/* BGP and control */
	struct xs_bgp bgp;
	bool bgp_on;
	bool drained;
	bool announced;
	int ctl_fd;
	char ctl_path[PATH_MAX];
	char drain_path[PATH_MAX];

	struct xs_metrics_http *metrics; /* --metrics: the /metrics server, or NULL */
};

/* agent_apply.c: commit the newest revision to every interface: the agent's one path to a change. */
void xs_agent_apply(struct xs_agent *a);
/* agent_apply.c, state mode: interface @i's running state and checks, committed with the probes' findings if @commit. */
void xs_agent_state_apply(struct xs_agent *a, int i, bool commit);
/* agent_apply.c: announce the VIPs, or withdraw them, as the interfaces and the drain say. */
void xs_agent_announce(struct xs_agent *a);
/* agent_apply.c: the program attached to @ifname by xdpsteer, or 0. */
__u32 xs_agent_prog_id(const char *ifname);
/* agent_etcd.c: the keys under --prefix for --host (0 or -errno, printed). */
int xs_agent_keys(struct xs_agent *a);
/* agent_etcd.c: one turn of etcd mode at @now (ms): sync, watch, retry, status; *force: apply now. */
void xs_agent_etcd_step(struct xs_agent *a, long long now, bool *force);
/* status.c: the revision every interface runs: the oldest of theirs (0: one runs none). */
long long xs_agent_applied(const struct xs_agent *a);
/* The status JSON, as the status key and `agent status` show it (caller frees). */
char *xs_agent_status_json(const struct xs_agent *a);
/*
 * The control socket: listen (0 or -errno, printed), and answer one client.
 * A drain or undrain request is carried out by @drain, the loop's: status.c
 * reports the agent's state and does not change it.
 */
typedef int (*xs_drain_fn)(struct xs_agent *a, bool drain);
int xs_ctl_listen(struct xs_agent *a);
void xs_ctl_serve(struct xs_agent *a, xs_drain_fn drain);
void xs_ctl_close(struct xs_agent *a);

#endif /* XS_AGENT_STATE_H */
