/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * xdpsteer agent: a daemon that keeps interfaces equal to a configuration
 * held in etcd, or in files, and announces the services' VIPs through bird2
 * while it does (docs/fleet.md). It changes state only as `apply` does:
 * xs_config_parse() or xs_config_load() builds the model, and
 * xs_model_commit() writes it, one transaction per interface.
 */
#ifndef XS_AGENT_H
#define XS_AGENT_H

#include "etcd.h"

#define XS_AGENT_MAX_IFACES 8
#define XS_AGENT_MAX_FILES 4
/* The default --run-dir, here in the initial network namespace, else under it (netns.h). */
#define XS_AGENT_RUN_DIR "/run/xdpsteer"
#define XS_AGENT_PREFIX "/xdpsteer"
#define XS_AGENT_VIP_DEV "xsvip0"
#define XS_AGENT_LEASE_TTL 10

struct xs_agent_opts {
	const char *ifaces[XS_AGENT_MAX_IFACES];
	int n_ifaces;
	/* File mode: these files, read together as `apply -f A -f B` reads them. */
	const char *files[XS_AGENT_MAX_FILES];
	int n_files;
	/* etcd mode, when etcd.endpoints is set. */
	struct xs_etcd_opts etcd;
	const char *prefix;	/* keys under it: fleet, hosts/HOST, status/HOST */
	const char *host;
	long long lease_ttl;	/* seconds: the status key outlives a dead agent this long */
	const char *run_dir;	/* the control socket, the drain mark, bird's route files */
	const char *bird;	/* bird2's control socket; NULL: announce nothing */
	const char *vip_dev;
	const char *metrics;	/* ADDR:PORT to serve /metrics on (metrics_http.h); NULL: none */
};

/* Run until SIGTERM or SIGINT. 0, or -errno if it could not start (printed). */
int xs_agent_run(const struct xs_agent_opts *o);
/*
 * Tell the agent behind @run_dir's control socket to "drain", "undrain" or
 * report its "status"; its answer, the status JSON, in *@reply (free() it).
 */
int xs_agent_control(const char *run_dir, const char *request, char **reply);

#endif /* XS_AGENT_H */
