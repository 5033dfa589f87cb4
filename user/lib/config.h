/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The declarative configuration of one interface, as `xdpsteer show` prints
 * it and `xdpsteer apply` reads it: one object per line (README, "Changing
 * the topology"). Parsing and validation never touch a map.
 */
#ifndef XS_CONFIG_H
#define XS_CONFIG_H

#include <stdbool.h>
#include <stdio.h>
#include "index.h"
#include "service.h"

/* Overridable at build time (-DXS_CFG_MAX_SIZE=...), as the bench's big build does. */
#ifndef XS_CFG_MAX_SIZE
#define XS_CFG_MAX_SIZE (1024 * 1024)
#endif

struct xs_cfg_target {
	struct xs_target t; /* kind, cpu or ifindex, qsize */
	char ifname[IF_NAMESIZE];
	bool drain;
	int line;
};

struct xs_cfg_service {
	struct xs_service_key key;
	struct xs_service svc; /* encap and tunnel sources; id unset */
	__u8 algo, hand_size;
	int line;
};

struct xs_cfg_backend {
	__u32 service; /* index into xs_config.svc */
	struct xs_target t; /* kind, family, addr, weight */
	bool drain;
	int line;
};

struct xs_config {
	const char *file;
	bool has_seed;
	__u64 seed[2];
	__u8 algo, hand_size, flow_fields, hand_fields;
	int hand_line; /* where the queue pool's hand size was set, else 0 */
	struct xs_cfg_target *tgt;
	struct xs_cfg_service *svc;
	struct xs_cfg_backend *be;
	__u32 n_tgt, n_svc, n_be;
	struct xs_index svc_by_key;	/* service key -> index into svc */
	struct xs_index be_by_addr;	/* (index into svc, address) -> index into be */
};

/*
 * Read and validate @file against the running host (CPUs, interfaces, local
 * addresses). Every error is one line on stderr: "FILE:LINE: what is wrong".
 */
int xs_config_load(const char *file, int nr_cpus, struct xs_config *c);
void xs_config_free(struct xs_config *c);
/* Index into c->be of the backend @addr of service @svc (index into c->svc), or -1. */
int xs_cfg_find_backend(const struct xs_config *c, __u32 svc, const __be32 *addr);
/* Report an error at @line of @c's file (one line, to stderr). */
void xs_cfg_err(const struct xs_config *c, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* XS_CONFIG_H */
