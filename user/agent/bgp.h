/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Announcing the service VIPs through bird2 (docs/fleet.md, "BGP").
 *
 * The agent writes one static route per VIP, "route VIP/32 via "DEV";", to
 * DIR/bird-vips4.conf and DIR/bird-vips6.conf, which bird's configuration
 * includes in two static protocols with `check link`, and asks bird to
 * reconfigure when the set changes. DEV is a TUN device the agent creates
 * without IFF_PERSIST and holds open: bird exports the routes only while DEV
 * is up, so the agent announces by setting it up and withdraws by setting
 * it down, and if the agent dies in any way, SIGKILL included, the kernel
 * removes DEV and bird withdraws every route at once.
 */
#ifndef XS_AGENT_BGP_H
#define XS_AGENT_BGP_H

#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <linux/types.h>

/* An address to announce: IPv4 stored IPv4-mapped, as xs_service_key has it. */
struct xs_route {
	__be32 addr[4];
};

struct xs_bgp {
	char dev[IF_NAMESIZE];
	int tun_fd;
	char socket[PATH_MAX];		/* bird's control socket */
	char file[2][PATH_MAX];		/* IPv4 and IPv6 routes */
	char *text[2];			/* what the files hold */
	bool configured;		/* bird has read the files as they are */
	bool up;
	char error[256];		/* the last failure to talk to bird, or "" */
};

/* Create DEV (down: nothing announced) in @dir's files' name. 0 or -errno (printed). */
int xs_bgp_open(struct xs_bgp *b, const char *bird_socket, const char *dev, const char *dir);
/*
 * Announce @vips when @announce, else nothing: the files are rewritten and
 * bird reconfigured only when the set changes. 0, or -errno with the reason
 * in b->error (a failure to reach bird is retried by the next call).
 */
int xs_bgp_set(struct xs_bgp *b, const struct xs_route *vips, int n, bool announce);
/* Withdraw, and remove DEV. */
void xs_bgp_close(struct xs_bgp *b);
/* "198.19.0.1" or "2001:db8::1". */
void xs_route_format(const struct xs_route *v, char *buf, size_t len);

#endif /* XS_AGENT_BGP_H */
