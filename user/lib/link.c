// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * An interface's veth peer, from rtnetlink (RTM_GETLINK): IFLA_LINK names
 * it, IFLA_LINK_NETNSID says it lives in another namespace, and
 * IFLA_LINKINFO's kind says the link is a veth (a VLAN's IFLA_LINK is its
 * lower device, where what it sends leaves, not enters). Not sysfs: its
 * view is of the namespace that mounted it, not of this process's.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "link.h"

struct xs_link_req {
	struct nlmsghdr nh;
	struct ifinfomsg ifi;
};

/* Is IFLA_LINKINFO @li of kind "veth"? */
static int xs_link_is_veth(struct rtattr *li)
{
	int left = (int)RTA_PAYLOAD(li);
	struct rtattr *a;

	for (a = RTA_DATA(li); RTA_OK(a, left); a = RTA_NEXT(a, left))
		if (a->rta_type == IFLA_INFO_KIND)
			return !strncmp(RTA_DATA(a), "veth", RTA_PAYLOAD(a));
	return 0;
}

int xs_link_veth_peer(int ifindex)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct xs_link_req r = { 0 };
	char buf[16384];
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	int fd, n, left, peer = 0, veth = 0, other_ns = 0;
	struct rtattr *a;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	r.nh.nlmsg_len = NLMSG_LENGTH(sizeof(r.ifi));
	r.nh.nlmsg_type = RTM_GETLINK;
	r.nh.nlmsg_flags = NLM_F_REQUEST;
	r.ifi.ifi_index = ifindex;
	if (sendto(fd, &r, r.nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    (n = (int)recv(fd, buf, sizeof(buf), 0)) < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	if (!NLMSG_OK(nh, (unsigned int)n))
		return -EPROTO;
	if (nh->nlmsg_type == NLMSG_ERROR)
		return ((struct nlmsgerr *)NLMSG_DATA(nh))->error ?: -EPROTO;
	if (nh->nlmsg_type != RTM_NEWLINK)
		return -EPROTO;
	left = (int)IFLA_PAYLOAD(nh);
	for (a = IFLA_RTA(NLMSG_DATA(nh)); RTA_OK(a, left); a = RTA_NEXT(a, left)) {
		if (a->rta_type == IFLA_LINK && RTA_PAYLOAD(a) >= sizeof(int))
			memcpy(&peer, RTA_DATA(a), sizeof(peer));
		else if (a->rta_type == IFLA_LINK_NETNSID)
			other_ns = 1;
		else if (a->rta_type == IFLA_LINKINFO)
			veth = xs_link_is_veth(a);
	}
	return veth && !other_ns && peer != ifindex ? peer : 0;
}
