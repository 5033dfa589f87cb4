/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Services (VIP:PORT/PROTO) and their backends, as kept in the pinned maps. */
#ifndef XS_SERVICE_H
#define XS_SERVICE_H

#include "endpoint.h"
#include "defaults.h"
#include "handle.h"
#include "xdpsteer.h"


struct xs_service_entry {
	struct xs_service_key key;
	struct xs_service svc;
};

/* "VIP:PORT/PROTO", "[VIP6]:PORT/PROTO"; PORT may be * for the any-port service. */
int xs_parse_service(const char *s, struct xs_service_key *key);
int xs_format_service(const struct xs_service_key *key, char *buf, size_t len);
/* Look a service up by key; -ENOENT (with a message) if it is not there. */
int xs_service_get(const struct xs_handle *h, const struct xs_service_key *key,
		   struct xs_service *svc);
/* All services, sorted by id; *n set. Caller frees. */
int xs_services_list(const struct xs_handle *h, struct xs_service_entry **out, __u32 *n);
int xs_parse_cidr(const char *s, int family, void *addr, __u8 *host_bits);
/* Is @addr (IPv4-mapped or IPv6) configured on any interface of this namespace? */
bool xs_addr_is_local(const void *addr16);
/* Make every interface a possible egress for tunnelled and L2 traffic. */
int xs_tx_ports_sync(const struct xs_handle *h);

/* Does a backend other than @id, of any service, have address @addr? */
bool xs_backend_addr_used(const struct xs_target *all, __u32 id, const __be32 *addr);
/* Target id of backend @addr of service @svc_id, or XS_NO_TARGET. */
__u32 xs_backend_find(const struct xs_target *all, __u32 svc_id, const __be32 *addr);
/* An IPv4 or IPv6 address into a backend descriptor (kind, family, addr). */
int xs_parse_backend(const char *s, struct xs_target *t);
__u32 xs_backend_uid(void);

/*
 * Without a flow table (attach --flow-table-size 0), does anything keep a
 * service's established flows where they are when its pool changes? Only
 * second chance, which is gue's: an ipip or l2 service's flows move.
 */
bool xs_service_keeps_flows(const struct xs_service *svc);
/* The warning, on stderr, for a service of an attachment without a flow table that does not. */
void xs_service_warn_flows(const char *ifname, const struct xs_service_key *key,
			   const struct xs_service *svc);

/* Same delivery (encap, tunnel sources)? The id is not compared. */
bool xs_service_same(const struct xs_service *a, const struct xs_service *b);

/* Adjust xs_self.n_services by @delta: 0 lets packets skip the service lookup. */
int xs_self_services(const struct xs_handle *h, int delta);
/* Count one more (+1) or one fewer (-1) service on @key's VIP in xs_vips. */
int xs_vip_ref(const struct xs_handle *h, const struct xs_service_key *key, int delta);

#endif /* XS_SERVICE_H */
