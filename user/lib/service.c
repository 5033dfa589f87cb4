// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <bpf/bpf.h>
#include "parse.h"
#include "log.h"
#include "names.h"
#include "service.h"
#include "spec.h"

int xs_parse_service(const char *s, struct xs_service_key *key)
{
	char buf[96], *slash;
	struct xs_endpoint ep;
	__u8 proto;
	size_t len;

	memset(key, 0, sizeof(*key));
	slash = strrchr(s, '/');
	if (!slash || strlen(s) >= sizeof(buf)) {
		pr_warn("service: '%s' is not VIP:PORT/PROTO (e.g. 10.0.0.10:80/tcp or "
			"[2001:db8::10]:443/tcp)\n", s);
		return -EINVAL;
	}
	if (xs_parse_proto(slash + 1, &proto))
		return -EINVAL;
	if (proto != IPPROTO_TCP && proto != IPPROTO_UDP) {
		pr_warn("service: protocol '%s' is not tcp or udp\n", slash + 1);
		return -EINVAL;
	}
	len = (size_t)(slash - s);
	memcpy(buf, s, len);
	buf[len] = 0;
	/* PORT "*" is the VIP's any-port service, stored as port 0. */
	if (len >= 2 && !strcmp(buf + len - 2, ":*"))
		buf[len - 1] = '0'; /* buf[len] is already the terminator */
	if (xs_parse_endpoint(buf, "service", &ep))
		return -EINVAL;
	memcpy(key->vip, ep.addr, sizeof(key->vip));
	key->port = ep.port;
	key->proto = proto;
	return 0;
}

int xs_format_service(const struct xs_service_key *key, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN], port[8], pbuf[8];
	bool v4 = !XS_W32C(key->vip, 0) && !XS_W32C(key->vip, 1) &&
		  XS_W32C(key->vip, 2) == htonl(0xffff);

	xs_format_addr(key->vip, addr, sizeof(addr));
	if (key->port)
		snprintf(port, sizeof(port), "%u", ntohs(key->port));
	else
		snprintf(port, sizeof(port), "*");
	return snprintf(buf, len, v4 ? "%s:%s/%s" : "[%s]:%s/%s", addr, port,
			xs_proto_name(key->proto, pbuf, sizeof(pbuf)));
}

int xs_service_get(const struct xs_handle *h, const struct xs_service_key *key,
		   struct xs_service *svc)
{
	char name[80];

	if (!bpf_map_lookup_elem(h->services_fd, key, svc))
		return 0;
	xs_format_service(key, name, sizeof(name));
	pr_warn("%s: no service %s (xdpsteer service list %s shows them)\n", h->ifname, name,
		h->ifname);
	return -ENOENT;
}

static int xs_cmp_service(const void *a, const void *b)
{
	const struct xs_service_entry *x = a, *y = b;

	return (x->svc.id > y->svc.id) - (x->svc.id < y->svc.id);
}

int xs_services_list(const struct xs_handle *h, struct xs_service_entry **out, __u32 *n)
{
	struct xs_service_key key, next;
	struct xs_service_entry *v;
	void *prev = NULL;

	*n = 0;
	*out = v = calloc(XS_MAX_SERVICES, sizeof(*v));
	if (!v)
		return -ENOMEM;
	while (*n < XS_MAX_SERVICES && !bpf_map_get_next_key(h->services_fd, prev, &next)) {
		if (!bpf_map_lookup_elem(h->services_fd, &next, &v[*n].svc)) {
			v[*n].key = next;
			(*n)++;
		}
		key = next;
		prev = &key;
	}
	qsort(v, *n, sizeof(*v), xs_cmp_service);
	return 0;
}

/* "A.B.C.D/N" or "X::Y/N": the prefix, and how many low bits vary per flow. */
int xs_parse_cidr(const char *s, int family, void *addr16, __u8 *host_bits)
{
	xs_w32 *addr = addr16;
	char buf[INET6_ADDRSTRLEN + 5], *slash;
	__u32 plen, max = family == AF_INET ? 32 : 128;
	__be32 a[4] = { 0 };
	int i;

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	if (slash)
		*slash = 0;
	if (inet_pton(family, buf, a) != 1 ||
	    (slash && xs_parse_u32(slash + 1, "prefix length", 0, max, &plen))) {
		pr_warn("tunnel source: '%s' is not an IPv%d prefix like %s\n", s,
			family == AF_INET ? 4 : 6,
			family == AF_INET ? XS_DEFAULT_TUNNEL_SRC4 : XS_DEFAULT_TUNNEL_SRC6);
		return -EINVAL;
	}
	if (!slash)
		plen = max;
	/* The flow hash fills at most the last 32 bits. */
	*host_bits = (__u8)(max - plen > 32 ? 32 : max - plen);
	if (family == AF_INET) {
		__u32 mask = *host_bits >= 32 ? 0 : ~0U << *host_bits;

		addr[0] = a[0] & htonl(mask);
		return 0;
	}
	for (i = 0; i < 4; i++)
		addr[i] = a[i];
	addr[3] &= htonl(*host_bits >= 32 ? 0 : ~0U << *host_bits);
	return 0;
}

bool xs_addr_is_local(const void *addr16)
{
	__be32 addr[4];

	memcpy(addr, addr16, sizeof(addr));
	bool v4 = !addr[0] && !addr[1] && addr[2] == htonl(0xffff), found = false;
	struct ifaddrs *ifa, *i;

	if (getifaddrs(&ifa))
		return false;
	for (i = ifa; i && !found; i = i->ifa_next) {
		if (!i->ifa_addr)
			continue;
		if (v4 && i->ifa_addr->sa_family == AF_INET)
			found = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr == addr[3];
		else if (!v4 && i->ifa_addr->sa_family == AF_INET6)
			found = !memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, addr, 16);
	}
	freeifaddrs(ifa);
	return found;
}

int xs_tx_ports_sync(const struct xs_handle *h)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	int added = 0;

	if (!ifs)
		return -errno;
	for (i = ifs; i->if_index; i++) {
		struct bpf_devmap_val v = { .ifindex = i->if_index };

		/* A device without XDP transmit (loopback, ...) is refused: skip it. */
		if (!bpf_map_update_elem(h->tx_ports_fd, &i->if_index, &v, BPF_ANY))
			added++;
	}
	if_freenameindex(ifs);
	pr_debug("%s: %d interfaces in xs_tx_ports\n", h->ifname, added);
	return 0;
}

/* Does a backend other than @id, of any service, have address @addr? */
bool xs_backend_addr_used(const struct xs_target *all, __u32 id, const __be32 *addr)
{
	__u32 t;

	for (t = XS_BACKEND_BASE; t < XS_MAX_TARGETS; t++)
		if (t != id && all[t].kind == XS_TARGET_BACKEND &&
		    !memcmp(all[t].addr, addr, sizeof(all[t].addr)))
			return true;
	return false;
}

/* Target id of backend @addr of service @svc_id, or XS_NO_TARGET. */
__u32 xs_backend_find(const struct xs_target *all, __u32 svc_id, const __be32 *addr)
{
	__u32 id;

	for (id = XS_BACKEND_BASE; id < XS_MAX_TARGETS; id++)
		if (all[id].kind == XS_TARGET_BACKEND && all[id].service == svc_id &&
		    !memcmp(all[id].addr, addr, sizeof(all[id].addr)))
			return id;
	return XS_NO_TARGET;
}

int xs_parse_backend(const char *s, struct xs_target *t)
{
	struct in6_addr a6;
	struct in_addr a4;

	memset(t, 0, sizeof(*t));
	t->kind = XS_TARGET_BACKEND;
	if (inet_pton(AF_INET, s, &a4) == 1) {
		t->family = 4;
		XS_W32(t->addr, 2) = htonl(0xffff);
		XS_W32(t->addr, 3) = a4.s_addr;
		return 0;
	}
	if (inet_pton(AF_INET6, s, &a6) == 1) {
		t->family = 6;
		memcpy(t->addr, &a6, 16);
		return 0;
	}
	pr_warn("backend: '%s' is not an IPv4 or IPv6 address\n", s);
	return -EINVAL;
}

__u32 xs_backend_uid(void)
{
	__u32 uid = 0;

	while (!uid)
		if (getrandom(&uid, sizeof(uid), 0) != sizeof(uid))
			uid = 0x5a5a5a5au;
	return uid;
}

bool xs_service_same(const struct xs_service *a, const struct xs_service *b)
{
	/* Every key bound to a field of struct xs_service, as a spec holds it. */
	struct xs_service_spec sa = { .svc = *a }, sb = { .svc = *b };
	size_t at = offsetof(struct xs_service_spec, svc);

	return xs_keys_same(xs_service_keys, &sa, &sb, at, at + sizeof(*a));
}

/* Adjust xs_self.n_services by @delta: 0 lets packets skip the service lookup. */
int xs_self_services(const struct xs_handle *h, int delta)
{
	struct xs_self self;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(h->self_fd, &zero, &self))
		return -errno;
	self.n_services = (__u32)((int)self.n_services + delta);
	return bpf_map_update_elem(h->self_fd, &zero, &self, BPF_ANY) ? -errno : 0;
}

/* xs_vips counts services per address: echo replies and "is a VIP" checks. */
int xs_vip_ref(const struct xs_handle *h, const struct xs_service_key *key, int delta)
{
	struct xs_service_key vk = { 0 };
	struct xs_vip v = { 0 };

	memcpy(vk.vip, key->vip, sizeof(vk.vip));
	bpf_map_lookup_elem(h->vips_fd, &vk, &v);
	v.services = (__u32)((int)v.services + delta);
	if (!v.services)
		return bpf_map_delete_elem(h->vips_fd, &vk) && errno != ENOENT ? -errno : 0;
	return bpf_map_update_elem(h->vips_fd, &vk, &v, BPF_ANY) ? -errno : 0;
}

bool xs_service_keeps_flows(const struct xs_service *svc)
{
	return svc->encap == XS_ENCAP_GUE && svc->second_chance;
}

/*
 * A warning, not a refusal: --flow-table-size 0 is chosen at attach, on
 * purpose (no state per flow, GLB's way), and a service that has no second
 * chance may still be wanted so; but never in silence.
 */
void xs_service_warn_flows(const char *ifname, const struct xs_service_key *key,
			   const struct xs_service *svc)
{
	char name[80];

	xs_format_service(key, name, sizeof(name));
	pr_warn("%s: warning: service %s (%s%s) has no flow table to pin its flows (attached "
		"with --flow-table-size 0): its established flows move whenever its backends "
		"change; encap gue with second-chance on keeps them, or attach with a flow "
		"table\n", ifname, name, xs_name_of(xs_encap_names, svc->encap),
		svc->encap == XS_ENCAP_GUE ? ", second-chance off" : "");
}
