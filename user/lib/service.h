/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Services (VIP:PORT/PROTO) and their backends, as kept in the pinned maps. */
#ifndef XS_SERVICE_H
#define XS_SERVICE_H

#include "endpoint.h"
#include "state.h"

#define XS_MAX_WEIGHT 256
#define XS_DEFAULT_TUNNEL_SRC4 "172.16.0.0/16"
#define XS_DEFAULT_TUNNEL_SRC6 "fd00:7873::/96"

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
int xs_parse_cidr(const char *s, int family, __be32 *addr, __u8 *host_bits);
/* Is @addr (IPv4-mapped or IPv6) configured on any interface of this namespace? */
bool xs_addr_is_local(const __be32 addr[4]);
/* Make every interface a possible egress for tunnelled and L2 traffic. */
int xs_tx_ports_sync(const struct xs_handle *h);

/* Does a backend other than @id, of any service, have address @addr? */
bool xs_backend_addr_used(const struct xs_target *all, __u32 id, const __be32 *addr);
/* Adjust xs_self.n_services by @delta. */
int xs_self_services(const struct xs_handle *h, int delta);
/* Adjust the count of services on the VIP of @key in xs_vips by @delta. */
int xs_vip_ref(const struct xs_handle *h, const struct xs_service_key *key, int delta);
bool xs_pool_in_use(const struct xs_handle *h, __u32 id);
/* Target id of backend @addr of service @svc_id, or XS_NO_TARGET. */
__u32 xs_backend_find(const struct xs_target *all, __u32 svc_id, const __be32 *addr);
/* An IPv4 or IPv6 address into a backend descriptor (kind, family, addr). */
int xs_parse_backend(const char *s, struct xs_target *t);
__u32 xs_backend_uid(void);

#endif /* XS_SERVICE_H */
