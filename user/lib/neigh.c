// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Keep backends' next hops resolved. An XDP program can look a neighbour up
 * (bpf_fib_lookup) but cannot make the kernel resolve one, and an L2 packet
 * for a VIP passed to the stack is never routed towards the backend. So
 * `backend add` asks the kernel for a managed neighbour entry (NTF_EXT_MANAGED,
 * Linux 5.16+): the kernel resolves it at once and keeps it resolved, as
 * Cilium does for its XDP load balancer.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include "log.h"
#include "neigh.h"
#include "xdpsteer.h"

struct xs_nl_req {
	struct nlmsghdr nh;
	union {
		struct rtmsg rt;
		struct ndmsg nd;
	};
	char attrs[128];
};

static void xs_nl_attr(struct xs_nl_req *r, unsigned short type, const void *data,
		       unsigned short len)
{
	struct rtattr *rta = (struct rtattr *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

/* One request, one answer: the reply (or the error ack) lands in @buf. */
static int xs_nl_talk(struct xs_nl_req *r, char *buf, size_t len)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), n, err = 0;
	struct nlmsghdr *nh;

	if (fd < 0)
		return -errno;
	r->nh.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	if (sendto(fd, r, r->nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = -errno;
		goto out;
	}
	n = (int)recv(fd, buf, len, 0);
	if (n < 0) {
		err = -errno;
		goto out;
	}
	for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (unsigned int)n); nh = NLMSG_NEXT(nh, n)) {
		if (nh->nlmsg_type == NLMSG_ERROR) {
			err = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
			break;
		}
		if (nh->nlmsg_type == RTM_NEWROUTE || nh->nlmsg_type == RTM_NEWNEIGH)
			break;
	}
	/* Neither an answer nor an ack (a short or empty read): @buf holds no reply. */
	if (!NLMSG_OK(nh, (unsigned int)n))
		err = -EPROTO;
out:
	close(fd);
	return err;
}

/* The interface and on-link next hop (the backend itself, or its gateway). */
static int xs_route_get(int family, const void *dst, int *oif, unsigned char *gw)
{
	struct xs_nl_req r = { 0 };
	char buf[8192];
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	int alen = family == AF_INET ? 4 : 16, err, left;
	struct rtattr *rta;

	r.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
	r.nh.nlmsg_type = RTM_GETROUTE;
	r.rt.rtm_family = (unsigned char)family;
	r.rt.rtm_dst_len = (unsigned char)(alen * 8);
	xs_nl_attr(&r, RTA_DST, dst, (unsigned short)alen);
	err = xs_nl_talk(&r, buf, sizeof(buf));
	if (err)
		return err;
	if (nh->nlmsg_type != RTM_NEWROUTE)
		return -ENOENT;
	*oif = 0;
	memcpy(gw, dst, alen);
	left = (int)RTM_PAYLOAD(nh);
	for (rta = RTM_RTA(NLMSG_DATA(nh)); RTA_OK(rta, left); rta = RTA_NEXT(rta, left)) {
		if (rta->rta_type == RTA_OIF)
			memcpy(oif, RTA_DATA(rta), sizeof(*oif));
		else if (rta->rta_type == RTA_GATEWAY)
			memcpy(gw, RTA_DATA(rta), alen);
	}
	return *oif ? 0 : -ENOENT;
}

/* The entry for @hop on @oif, if there is one: its NUD state and extended flags. */
static int xs_neigh_get(int family, const void *hop, int oif, __u16 *state, __u32 *ext)
{
	struct xs_nl_req r = { 0 };
	char buf[2048];
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	struct rtattr *rta;
	int err, left;

	r.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ndmsg));
	r.nh.nlmsg_type = RTM_GETNEIGH;
	r.nd.ndm_family = (unsigned char)family;
	r.nd.ndm_ifindex = oif;
	xs_nl_attr(&r, NDA_DST, hop, family == AF_INET ? 4 : 16);
	err = xs_nl_talk(&r, buf, sizeof(buf));
	if (err)
		return err;
	if (nh->nlmsg_type != RTM_NEWNEIGH)
		return -ENOENT;
	*state = ((struct ndmsg *)NLMSG_DATA(nh))->ndm_state;
	*ext = 0;
	left = (int)(nh->nlmsg_len - NLMSG_LENGTH(sizeof(struct ndmsg)));
	for (rta = (struct rtattr *)((char *)NLMSG_DATA(nh) + NLMSG_ALIGN(sizeof(struct ndmsg)));
	     RTA_OK(rta, left); rta = RTA_NEXT(rta, left))
		if (rta->rta_type == NDA_FLAGS_EXT)
			memcpy(ext, RTA_DATA(rta), sizeof(*ext));
	return 0;
}

/* The backend's address as the kernel's routing takes it: 4 bytes for IPv4. */
static const void *xs_neigh_dst(const void *addr16, int family)
{
	const xs_w32 *addr = addr16;

	return family == AF_INET ? (const void *)&addr[3] : (const void *)addr;
}

int xs_neigh_hop(const void *addr16, int family, struct xs_neigh_hop *hop)
{
	memset(hop, 0, sizeof(*hop));
	hop->family = family;
	return xs_route_get(family, xs_neigh_dst(addr16, family), &hop->oif, hop->addr);
}

int xs_neigh_manage(const void *addr16, int family, bool add)
{
	__u16 state = 0;
	__u32 have_ext = 0;
	unsigned char hop[16];
	struct xs_nl_req r = { 0 };
	const void *dst = xs_neigh_dst(addr16, family);
	__u32 ext = NTF_EXT_MANAGED;
	char buf[1024], text[INET6_ADDRSTRLEN];
	int oif, err, alen = family == AF_INET ? 4 : 16;

	err = xs_route_get(family, dst, &oif, hop);
	if (err) {
		inet_ntop(family, dst, text, sizeof(text));
		pr_warn("no route to backend %s (%s): it cannot be reached\n", text,
			strerror(-err));
		return err;
	}
	/* Leave alone what an operator set by hand (permanent, noarp), and on
	 * removal remove only what is ours (managed). */
	if (!xs_neigh_get(family, hop, oif, &state, &have_ext)) {
		if (add && (state & (NUD_PERMANENT | NUD_NOARP)))
			return 0;
		if (!add && !(have_ext & NTF_EXT_MANAGED))
			return 0;
	} else if (!add) {
		return 0;
	}
	r.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ndmsg));
	r.nh.nlmsg_type = add ? RTM_NEWNEIGH : RTM_DELNEIGH;
	r.nh.nlmsg_flags = add ? NLM_F_CREATE | NLM_F_REPLACE : 0;
	r.nd.ndm_family = (unsigned char)family;
	r.nd.ndm_ifindex = oif;
	r.nd.ndm_state = NUD_NONE;
	xs_nl_attr(&r, NDA_DST, hop, (unsigned short)alen);
	if (add)
		xs_nl_attr(&r, NDA_FLAGS_EXT, &ext, sizeof(ext));
	err = xs_nl_talk(&r, buf, sizeof(buf));
	if (err && !(err == -ENOENT && !add)) {
		inet_ntop(family, hop, text, sizeof(text));
		pr_warn("cannot %s a managed neighbour entry for %s: %s%s\n",
			add ? "add" : "remove", text, strerror(-err),
			add ? " (the first packets to it may be lost until it is resolved)" : "");
		return err;
	}
	return 0;
}
