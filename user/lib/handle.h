/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The handle of one attachment: its interface, its pin directory and every
 * pinned map, opened once per command. xs_open() maps xs_epoch too, so that
 * any change can end the configuration epoch (xs_epoch_bump()).
 */
#ifndef XS_HANDLE_H
#define XS_HANDLE_H

#include <limits.h>
#include <net/if.h>
#include <linux/types.h>
#include "pins.h"

struct xs_handle {
	char ifname[IF_NAMESIZE];
	int ifindex;
	char dir[PATH_MAX];
	int nr_cpus;
	int pools_fd;
	int targets_fd;
	int stats_fd;
	int counters_fd;
	int flows_fd;
	int cpumap_fd;
	int devmap_fd;
	int self_fd;
	int dev_ids_fd;
	int services_fd;
	int vips_fd;
	int service_stats_fd;
	int tx_ports_fd;
	int service_by_id_fd;
	int pool_hdrs_fd;
	int checks_fd;		/* xs_checks: each service's health check */
	int epoch_fd;
	int prev_pools_fd;	/* second chance: xs_prev_pools, xs_prev_hdrs, xs_prev_gens, xs_prev_targets */
	int prev_hdrs_fd;
	int prev_gens_fd;
	int prev_targets_fd;
	__u32 *epoch;		/* xs_epoch's value, mapped: see xs_epoch_bump() */
};

/* The capabilities, and bpffs mounted: what every command that touches BPF needs. */
int xs_check_env(void);
int xs_ifindex(const char *ifname);
/*
 * The attachment on @ifname in this network namespace: interface, pin
 * directory, CPU count; no map opened. Refused (-ESTALE, printed) unless the
 * pinned program is the one attached to the interface here.
 */
int xs_locate(const char *ifname, struct xs_handle *h);
/* xs_locate(), then every pinned map and the mapped epoch; xs_close() undoes it. */
int xs_open(const char *ifname, struct xs_handle *h);
void xs_close(struct xs_handle *h);
/* The pinned object @name of @h's attachment: an fd, or -errno (printed). */
int xs_obj_get(const struct xs_handle *h, const char *name);
int xs_epoch_map(struct xs_handle *h);
void xs_epoch_unmap(struct xs_handle *h);
void xs_epoch_bump(const struct xs_handle *h);

#endif /* XS_HANDLE_H */
