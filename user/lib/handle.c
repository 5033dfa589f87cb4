// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The handle of one attachment (handle.h): opening its pins, mapping its epoch. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "handle.h"
#include "log.h"
#include "xs_common.h"

/*
 * What the commands need, by capability: not by uid, so that a service
 * account given exactly these may run them, and root without them is told
 * which are missing rather than failing half way with EPERM. CAP_BPF is not
 * among them: opening a map or program by id takes CAP_SYS_ADMIN, which
 * grants all CAP_BPF does, and CAP_BPF alone opens no pool.
 */
static const struct {
	int cap;
	const char *name;
	const char *why;
	bool not_root;	/* needed only when the uid is not 0 */
} xs_caps[] = {
	{ CAP_SYS_ADMIN, "CAP_SYS_ADMIN", "open the pools and programs by id; it includes CAP_BPF",
	  false },
	{ CAP_NET_ADMIN, "CAP_NET_ADMIN", "attach XDP programs, manage backends' neighbours",
	  false },
	{ CAP_DAC_OVERRIDE, "CAP_DAC_OVERRIDE", "open root's pins, mode 0600", true },
};

/* Missing capabilities of this process, as "CAP_X (why), ..." in @buf: 0, or how many. */
static int xs_caps_missing(char *buf, size_t len)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { 0 };
	bool root = geteuid() == 0;
	size_t i, off = 0;
	int n = 0;

	buf[0] = 0;
	if (syscall(SYS_capget, &hdr, data)) {
		snprintf(buf, len, "capget: %s", strerror(errno));
		return 1;
	}
	for (i = 0; i < XS_ARRAY_SIZE(xs_caps); i++) {
		int c = xs_caps[i].cap;

		if ((root && xs_caps[i].not_root) ||
		    (data[CAP_TO_INDEX(c)].effective & CAP_TO_MASK(c)) || off >= len)
			continue;
		off += snprintf(buf + off, len - off, "%s%s (%s)", n ? ", " : "",
				xs_caps[i].name, xs_caps[i].why);
		n++;
	}
	return n;
}

int xs_check_env(void)
{
	struct statfs sfs;
	char missing[384];

	if (xs_caps_missing(missing, sizeof(missing))) {
		pr_warn("missing capabilities: %s; run as root (sudo xdpsteer ...) or grant them "
			"(e.g. systemd's AmbientCapabilities=)\n", missing);
		return -EPERM;
	}
	if (statfs("/sys/fs/bpf", &sfs) || sfs.f_type != BPF_FS_MAGIC) {
		pr_warn("bpffs is not mounted at /sys/fs/bpf; mount it with: "
			"mount -t bpf bpf /sys/fs/bpf\n");
		return -ENOENT;
	}
	return 0;
}

int xs_ifindex(const char *ifname)
{
	unsigned int idx;

	if (strlen(ifname) >= IF_NAMESIZE) {
		pr_warn("interface name '%s' is longer than %d characters\n", ifname,
			IF_NAMESIZE - 1);
		return -EINVAL;
	}
	idx = if_nametoindex(ifname);
	if (!idx) {
		pr_warn("interface '%s' not found: %s (see `ip link show`)\n", ifname,
			strerror(errno));
		return -ENODEV;
	}
	return (int)idx;
}

int xs_obj_get(const struct xs_handle *h, const char *name)
{
	char path[PATH_MAX];
	int fd, err;

	err = xs_pin_path(path, sizeof(path), h->dir, name);
	if (!err)
		err = xs_check_not_link(path);
	if (err == -ELOOP)
		return err; /* xs_check_not_link() said why */
	if (!err) {
		fd = bpf_obj_get(path);
		if (fd >= 0)
			return fd;
		err = -errno;
	}
	/* Callers have found the attachment: a pin it lacks is another version's. */
	if (err == -ENOENT)
		pr_warn("%s: the attachment has no %s: another version of xdpsteer attached it; "
			"run `xdpsteer detach %s` and attach again\n",
			h->ifname, name, h->ifname);
	else
		pr_warn("cannot open pinned object %s/%s: %s\n", h->dir, name, strerror(-err));
	return err;
}

static void xs_fds(struct xs_handle *h, bool close_them);

int xs_locate(const char *ifname, struct xs_handle *h)
{
	int err;

	memset(h, 0, sizeof(*h));
	xs_fds(h, false);
	err = xs_check_env();
	if (err)
		return err;
	snprintf(h->ifname, sizeof(h->ifname), "%s", ifname);
	err = xs_ifindex(ifname);
	if (err < 0)
		return err;
	h->ifindex = err;
	err = xs_pin_dir(h->dir, sizeof(h->dir), ifname);
	if (err)
		return err;
	err = xs_check_not_link(h->dir);
	if (err == -ENOENT || !xs_is_attached(ifname)) {
		pr_warn("xdpsteer is not attached to %s in this network namespace (no %s; run: "
			"xdpsteer attach %s)\n", ifname, h->dir, ifname);
		return -ENOENT;
	}
	if (err)
		return err;
	err = xs_pin_owner_check(h->dir, XS_PIN_PROG_XDP, ifname, h->ifindex);
	if (err)
		return err;
	h->nr_cpus = libbpf_num_possible_cpus();
	if (h->nr_cpus <= 0) {
		pr_warn("cannot count possible CPUs: %s\n", strerror(-h->nr_cpus));
		return h->nr_cpus ? h->nr_cpus : -EINVAL;
	}
	return 0;
}

int xs_open(const char *ifname, struct xs_handle *h)
{
	struct {
		const char *name;
		int *fd;
	} maps[] = {
		{ "xs_pools", &h->pools_fd },	  { "xs_targets", &h->targets_fd },
		{ "xs_target_stats", &h->stats_fd }, { "xs_counters", &h->counters_fd },
		{ "xs_flows", &h->flows_fd },	  { "xs_cpumap", &h->cpumap_fd },
		{ "xs_devmap", &h->devmap_fd },	  { "xs_self", &h->self_fd },
		{ "xs_dev_ids", &h->dev_ids_fd },  { "xs_services", &h->services_fd },
		{ "xs_vips", &h->vips_fd },	  { "xs_service_stats", &h->service_stats_fd },
		{ "xs_tx_ports", &h->tx_ports_fd },  { "xs_service_by_id", &h->service_by_id_fd },
		{ "xs_checks", &h->checks_fd },	  { "xs_epoch", &h->epoch_fd },
		{ "xs_pool_hdrs", &h->pool_hdrs_fd },  { "xs_prev_pools", &h->prev_pools_fd },
		{ "xs_prev_hdrs", &h->prev_hdrs_fd },
		{ "xs_prev_gens", &h->prev_gens_fd }, { "xs_prev_targets", &h->prev_targets_fd },
	};
	size_t i;
	int err;

	err = xs_locate(ifname, h);
	if (err)
		return err;
	for (i = 0; i < XS_ARRAY_SIZE(maps); i++) {
		*maps[i].fd = xs_obj_get(h, maps[i].name);
		if (*maps[i].fd < 0) {
			err = *maps[i].fd;
			xs_close(h);
			return err;
		}
	}
	/* Before any change: a command that could not end its epoch must not start. */
	err = xs_epoch_map(h);
	if (err)
		xs_close(h);
	return err;
}

int xs_epoch_map(struct xs_handle *h)
{
	void *p = mmap(NULL, sizeof(*h->epoch), PROT_READ | PROT_WRITE, MAP_SHARED, h->epoch_fd, 0);

	if (p == MAP_FAILED) {
		int err = -errno;

		pr_warn("%s: cannot map xs_epoch: %s\n", h->ifname, strerror(-err));
		return err;
	}
	h->epoch = p;
	return 0;
}

/*
 * End the configuration epoch: flows whose recipe (struct xs_recipe) was made
 * before are sent the long way once more, and see what was written before
 * this call. One atomic add on the mapped value: commands running at the same
 * time can never take it back to an epoch whose recipes are out of date.
 * Release order: every store before it, the kernel's map updates in this
 * thread's earlier syscalls included, is visible to a CPU that reads the new
 * value and orders its later loads after that read (bpf/xs_order.h). x86
 * makes it LOCK ADD, arm64 LDADDL (LSE) or an LDXR/STLXR loop.
 */
void xs_epoch_bump(const struct xs_handle *h)
{
	__atomic_add_fetch(h->epoch, 1, __ATOMIC_RELEASE);
}

/* Every map fd of @h set to -1, each closed first if @close_them. */
static void xs_fds(struct xs_handle *h, bool close_them)
{
	int *fds[] = { &h->pools_fd, &h->targets_fd, &h->stats_fd, &h->counters_fd,
		       &h->flows_fd, &h->cpumap_fd, &h->devmap_fd, &h->self_fd,
		       &h->dev_ids_fd, &h->services_fd, &h->vips_fd, &h->service_stats_fd,
		       &h->tx_ports_fd, &h->service_by_id_fd, &h->checks_fd, &h->epoch_fd,
		       &h->pool_hdrs_fd, &h->prev_pools_fd, &h->prev_hdrs_fd, &h->prev_gens_fd,
		       &h->prev_targets_fd };
	size_t i;

	for (i = 0; i < XS_ARRAY_SIZE(fds); i++) {
		if (close_them && *fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

void xs_epoch_unmap(struct xs_handle *h)
{
	if (h->epoch)
		munmap(h->epoch, sizeof(*h->epoch));
	h->epoch = NULL;
}

void xs_close(struct xs_handle *h)
{
	xs_epoch_unmap(h);
	xs_fds(h, true);
}
