// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * decap attach / detach / stats: the backend side of ipip and gue delivery,
 * for hosts without ipip, ip6tnl or fou devices. State is pinned under
 * /sys/fs/bpf/xdpsteer-decap/IFACE/ in the initial network namespace, and
 * /sys/fs/bpf/xdpsteer-decap/netns:COOKIE/IFACE/ in any other (netns.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "cli.h"
#include "commands.h"
#include "json.h"
#include "log.h"
#include "netns.h"
#include "handle.h"
#include "pool.h"
#include "stats.h"
#include "target.h"
#include "parse.h"
#include "xs_decap.h"
#include "xs_gue.h"
#include "xs_decap.skel.h"

#define XS_DECAP_ROOT "/sys/fs/bpf/xdpsteer-decap"

static int xs_decap_dir(char *buf, size_t len, const char *ifname)
{
	char root[PATH_MAX];
	int n;

	if (xs_netns_dir(root, sizeof(root), XS_DECAP_ROOT))
		return -EINVAL;
	n = snprintf(buf, len, "%s/%s", root, ifname);
	if (n < 0 || (size_t)n >= len || strchr(ifname, '/') || strchr(ifname, ':') ||
	    ifname[0] == '.') {
		pr_warn("interface name '%s' cannot name a pin directory\n", ifname);
		return -EINVAL;
	}
	return 0;
}

/* Every address of this network namespace: tunnel packets to them are ours. */
static int xs_decap_fill_addrs(int fd)
{
	struct ifaddrs *ifa, *i;
	__u32 one = 1;
	int n = 0;

	if (getifaddrs(&ifa))
		return -errno;
	for (i = ifa; i; i = i->ifa_next) {
		struct xs_decap_addr a = { 0 };

		if (!i->ifa_addr)
			continue;
		if (i->ifa_addr->sa_family == AF_INET) {
			XS_W32(a.addr, 2) = htonl(0xffff);
			XS_W32(a.addr, 3) = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
		} else if (i->ifa_addr->sa_family == AF_INET6) {
			memcpy(a.addr, &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, 16);
		} else {
			continue;
		}
		if (!bpf_map_update_elem(fd, &a, &one, BPF_ANY))
			n++;
	}
	freeifaddrs(ifa);
	return n;
}

int xs_cmd_decap_attach(const struct xs_args *a)
{
	const char *ifname = a->pos[0], *v = xs_arg(a, XS_OPT_XDP_MODE);
	enum xdp_attach_mode mode = XDP_MODE_NATIVE;
	struct xdp_program *xp = NULL;
	struct xs_decap *skel = NULL;
	char dir[PATH_MAX], path[PATH_MAX];
	bool attached = false;
	__u32 gue_port = XS_DEFAULT_GUE_PORT;
	int ifindex, err, n;

	err = xs_check_env();
	if (err)
		return err;
	if (v && !strcmp(v, "skb")) {
		mode = XDP_MODE_SKB;
	} else if (v && strcmp(v, "native")) {
		pr_warn("--xdp-mode: '%s' is not native or skb\n", v);
		return -EINVAL;
	}
	v = xs_arg(a, XS_OPT_GUE_PORT);
	if (v && xs_parse_u32(v, "--gue-port", 1, 65535, &gue_port))
		return -EINVAL;
	ifindex = xs_ifindex(ifname);
	if (ifindex < 0)
		return ifindex;
	if (xs_decap_dir(dir, sizeof(dir), ifname))
		return -EINVAL;
	if (!faccessat(AT_FDCWD, dir, F_OK, AT_EACCESS)) {
		/* Another interface's state (its program is not here) is never clobbered. */
		err = xs_pin_owner_check(dir, "prog", ifname, ifindex);
		if (err)
			return err;
		pr_warn("the decap program is already attached to %s (run: xdpsteer decap detach "
			"%s)\n", ifname, ifname);
		return -EEXIST;
	}
	err = xs_check_iface_free(ifname, ifindex);
	if (err)
		return err;
	if (xs_netns_mkdir(XS_DECAP_ROOT, 0700))
		return -EIO;
	if (mkdir(dir, 0700)) {
		err = -errno;
		pr_warn("cannot create pin directory %s: %s\n", dir, strerror(errno));
		return err;
	}
	skel = xs_decap__open();
	if (!skel) {
		err = -errno;
		pr_warn("cannot open the decap BPF object: %s\n", strerror(errno));
		goto fail;
	}
	skel->rodata->cfg_gue_port = (__u16)gue_port;
	if (xs_pin_path(path, sizeof(path), dir, "xs_decap_addrs") ||
	    bpf_map__set_pin_path(skel->maps.xs_decap_addrs, path) ||
	    xs_pin_path(path, sizeof(path), dir, "xs_decap_counters") ||
	    bpf_map__set_pin_path(skel->maps.xs_decap_counters, path)) {
		err = -EINVAL;
		goto fail;
	}
	{
		DECLARE_LIBXDP_OPTS(xdp_program_opts, xopts, .obj = skel->obj,
				    .prog_name = "xdpsteer_decap");

		xp = xdp_program__create(&xopts);
		err = libxdp_get_error(xp);
		if (err) {
			xp = NULL;
			pr_warn("cannot create the decap program for %s: %s\n", ifname,
				strerror(-err));
			goto fail;
		}
	}
	err = xdp_program__attach(xp, ifindex, mode, 0);
	if (err) {
		pr_warn("cannot attach the decap program to %s: %s\n", ifname, strerror(-err));
		goto fail;
	}
	attached = true;
	err = xs_pin_obj(bpf_program__fd(skel->progs.xdpsteer_decap), dir, "prog");
	if (err)
		goto fail;
	n = xs_decap_fill_addrs(bpf_map__fd(skel->maps.xs_decap_addrs));
	if (n < 0) {
		err = n;
		pr_warn("cannot list this host's addresses: %s\n", strerror(-n));
		goto fail;
	}
	xs_chmod_pins(dir);
	printf("attached the decap program to %s: tunnel packets to any of %d local addresses "
	       "are decapsulated\n", ifname, n);
	xdp_program__close(xp);
	xs_decap__destroy(skel);
	return 0;
fail:
	if (attached)
		xdp_program__detach(xp, ifindex, mode, 0);
	xdp_program__close(xp);
	xs_decap__destroy(skel);
	xs_unpin_all(dir);
	xs_netns_rmdir(XS_DECAP_ROOT);
	return err ? err : -EINVAL;
}

int xs_cmd_decap_detach(const struct xs_args *a)
{
	const char *ifname = a->pos[0];
	char dir[PATH_MAX], path[PATH_MAX];
	struct xdp_program *xp;
	int ifindex, fd, err = 0;

	err = xs_check_env();
	if (err)
		return err;
	if (xs_decap_dir(dir, sizeof(dir), ifname) || xs_pin_path(path, sizeof(path), dir, "prog"))
		return -EINVAL;
	fd = bpf_obj_get(path);
	if (fd < 0) {
		pr_warn("the decap program is not attached to %s\n", ifname);
		return -ENOENT;
	}
	ifindex = (int)if_nametoindex(ifname);
	/* Pins whose program runs elsewhere are left alone: that program would run on, unmanaged. */
	if (ifindex) {
		err = xs_pin_owner_check(dir, "prog", ifname, ifindex);
		if (err) {
			close(fd);
			return err;
		}
	}
	xp = xdp_program__from_fd(fd);
	if (ifindex && !libxdp_get_error(xp))
		err = xdp_program__detach(xp, ifindex, XDP_MODE_UNSPEC, 0);
	if (!libxdp_get_error(xp))
		xdp_program__close(xp);
	close(fd);
	if (err && err != -ENOENT) {
		pr_warn("cannot detach the decap program from %s: %s\n", ifname, strerror(-err));
		return err;
	}
	err = xs_unpin_all(dir);
	xs_netns_rmdir(XS_DECAP_ROOT);
	if (!err)
		printf("detached the decap program from %s\n", ifname);
	return err;
}

#define XS_DECAP_NAME(e, name, help) #name,
#define XS_DECAP_HELP(e, name, help) help,
static const char *const xs_decap_names[] = { XS_DECAP_COUNTERS(XS_DECAP_NAME) };
static const char *const xs_decap_helps[] = { XS_DECAP_COUNTERS(XS_DECAP_HELP) };

int xs_cmd_decap_stats(const struct xs_args *a)
{
	char dir[PATH_MAX], path[PATH_MAX];
	bool json = xs_flag(a, XS_OPT_JSON);
	xs_json *doc = NULL, *ctrs = NULL;
	int fd, nr_cpus, cpu, err = 0;
	__u64 *v;
	__u32 c;

	err = xs_check_env();
	if (err)
		return err;
	if (xs_decap_dir(dir, sizeof(dir), a->pos[0]) ||
	    xs_pin_path(path, sizeof(path), dir, "xs_decap_counters"))
		return -EINVAL;
	fd = bpf_obj_get(path);
	if (fd < 0) {
		pr_warn("the decap program is not attached to %s (run: xdpsteer decap attach "
			"%s)\n", a->pos[0], a->pos[0]);
		return -ENOENT;
	}
	/* Counters of a program that is not on this interface here are not its counters. */
	err = xs_ifindex(a->pos[0]);
	err = err < 0 ? err : xs_pin_owner_check(dir, "prog", a->pos[0], err);
	if (err) {
		close(fd);
		return err;
	}
	nr_cpus = libbpf_num_possible_cpus();
	/* One struct xs_decap_counter_block per CPU: XS_D_MAX counters each. */
	v = calloc((nr_cpus > 0 ? nr_cpus : 1) * XS_D_MAX, sizeof(*v));
	if (!v) {
		close(fd);
		return -ENOMEM;
	}
	if (json) {
		doc = xj_obj();
		ctrs = xj_obj();
		xj_str(doc, "ifname", a->pos[0]);
		xj_add(doc, "counters", ctrs);
	}
	c = 0;
	if (bpf_map_lookup_elem(fd, &c, v)) {
		err = -errno;
		pr_warn("%s: cannot read the decap counters: %s\n", a->pos[0], strerror(errno));
	}
	for (c = 0; !err && c < XS_D_MAX; c++) {
		__u64 sum = 0;

		for (cpu = 0; cpu < nr_cpus; cpu++)
			sum += v[cpu * XS_D_MAX + c];
		if (json)
			xj_u64(ctrs, xs_decap_names[c], sum);
		else
			printf("%-16s %12llu  %s\n", xs_decap_names[c], (unsigned long long)sum,
			       xs_decap_helps[c]);
	}
	/* JSON: the whole document, or nothing when a counter could not be read. */
	if (json && !err)
		err = xs_json_print(a, doc);
	else
		xs_json_drop(doc);
	free(v);
	close(fd);
	return err;
}
