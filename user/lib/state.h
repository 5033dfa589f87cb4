/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The pinned state of one attachment, /sys/fs/bpf/xdpsteer/IFACE/, and the
 * typed reads and writes every command builds on.
 */
#ifndef XS_STATE_H
#define XS_STATE_H

#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include "xdpsteer.h"

#define XS_PIN_ROOT "/sys/fs/bpf/xdpsteer"

/* Pin names: maps keep their BPF names; these are the extra objects. */
#define XS_PIN_PROG_XDP "prog_xdp"
#define XS_PIN_PROG_CPUMAP "prog_cpumap"
#define XS_PIN_PROG_DEVMAP "prog_devmap"
#define XS_PIN_LINK_DROPS "link_cpumap_drops"
#define XS_PIN_POOL_FMT "pool%u"

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
	int epoch_fd;
	__u32 *epoch;		/* xs_epoch's value, mapped: see xs_epoch_bump() */
};

/* A pool as userspace edits it: the header and one target id per bucket. */
struct xs_pool {
	struct xs_pool_hdr hdr;
	__u32 *bucket;
};

int xs_check_env(void);
int xs_ifindex(const char *ifname);
int xs_pin_dir(char *buf, size_t len, const char *ifname);
int xs_pin_path(char *buf, size_t len, const char *dir, const char *name);
bool xs_is_attached(const char *ifname);
/* The attachment on @ifname: interface, pin directory, CPU count; no map opened. */
int xs_locate(const char *ifname, struct xs_handle *h);
/* xs_locate(), then every pinned map and the mapped epoch; xs_close() undoes it. */
int xs_open(const char *ifname, struct xs_handle *h);
void xs_close(struct xs_handle *h);
int xs_obj_get(const struct xs_handle *h, const char *name);
int xs_unpin_all(const char *dir);
int xs_pin_obj(int fd, const char *dir, const char *name);
int xs_chmod_pins(const char *dir);
int xs_check_iface_free(const char *ifname, int ifindex);

int xs_pool_read(const struct xs_handle *h, __u32 pool_id, struct xs_pool *p);
int xs_pool_publish(const struct xs_handle *h, __u32 pool_id, struct xs_pool *p);
int xs_pool_build(const struct xs_handle *h, __u32 pool_id, const struct xs_pool *p);
void xs_pool_free(struct xs_pool *p);
void xs_release(struct xs_handle *h, struct xs_target **all, struct xs_pool *pool);
int xs_pool_find(const struct xs_pool *p, __u32 target);
__u32 xs_pool_live(const struct xs_pool *p);
__u32 xs_pool_pick_bucket(const struct xs_pool *p, const struct xs_target *old);
void xs_pool_remove(struct xs_pool *p, __u32 slot);
int xs_pool_check_size(const struct xs_handle *h, const struct xs_pool_hdr *hdr, __u32 n);
int xs_pool_drain(struct xs_pool *p, const struct xs_target *t, __u32 id, bool drain);
int xs_drain_apply(const struct xs_handle *h, __u32 pool_id, struct xs_pool *pool,
		   struct xs_target *t, __u32 id, bool drain, const char *name);

int xs_targets_read(const struct xs_handle *h, struct xs_target *all);
/* Write target @id, then end the epoch: cached flows see the change from their next packet. */
int xs_target_write(const struct xs_handle *h, __u32 id, const struct xs_target *t);
int xs_epoch_map(struct xs_handle *h);
void xs_epoch_unmap(struct xs_handle *h);
void xs_epoch_bump(const struct xs_handle *h);
int xs_stats_read(const struct xs_handle *h, __u32 id, struct xs_target_stats *sum,
		  struct xs_target_stats *percpu);
int xs_stats_reset(const struct xs_handle *h, __u32 id);
int xs_stats_reset_service(const struct xs_handle *h, __u32 id);
int xs_service_stats_read(const struct xs_handle *h, __u32 id, struct xs_service_stats *sum);
int xs_pinned_counts(const struct xs_handle *h, const struct xs_target *all, __u32 *counts);
int xs_counters_read(const struct xs_handle *h, __u64 *sum);
__u64 xs_stats_load(__u32 id, const struct xs_target_stats *sum);

int xs_target_name(const struct xs_handle *h, const struct xs_target *t, __u32 id, char *buf,
		   size_t len);

#endif /* XS_STATE_H */
