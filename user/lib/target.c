// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Queue targets (cpumap CPUs, devmap interfaces): the redirect entries behind them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include "log.h"
#include "names.h"
#include "endpoint.h"
#include "target.h"

/* Is @cpu listed in /sys/devices/system/cpu/online ("0-3,6")? */
bool xs_cpu_online(__u32 cpu)
{
	char buf[1024], *tok, *save = NULL;
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	bool found = false;

	if (!f)
		return cpu == 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	for (tok = strtok_r(buf, ",\n", &save); tok && !found; tok = strtok_r(NULL, ",\n", &save)) {
		unsigned int lo, hi;
		/* NOLINTNEXTLINE(cert-err34-c): the kernel wrote this list, in range */
		int n = sscanf(tok, "%u-%u", &lo, &hi);

		if (n == 1)
			hi = lo;
		found = n >= 1 && cpu >= lo && cpu <= hi;
	}
	return found;
}

int xs_redirect_set(const struct xs_handle *h, __u32 id, const struct xs_target *t)
{
	int prog_fd, err = 0;

	if (t->kind == XS_TARGET_CPU) {
		struct bpf_cpumap_val v = { .qsize = t->qsize };

		prog_fd = xs_obj_get(h, XS_PIN_PROG_CPUMAP);
		if (prog_fd < 0)
			return prog_fd;
		v.bpf_prog.fd = prog_fd;
		if (bpf_map_update_elem(h->cpumap_fd, &t->cpu, &v, BPF_ANY)) {
			err = -errno;
			pr_warn("%s: cannot add cpu %u to xs_cpumap: %s\n", h->ifname, t->cpu,
				strerror(errno));
		}
	} else {
		struct bpf_devmap_val v = { .ifindex = t->ifindex };
		__u32 slot = id - XS_DEV_BASE;

		prog_fd = xs_obj_get(h, XS_PIN_PROG_DEVMAP);
		if (prog_fd < 0)
			return prog_fd;
		v.bpf_prog.fd = prog_fd;
		if (bpf_map_update_elem(h->dev_ids_fd, &t->ifindex, &id, BPF_ANY)) {
			err = -errno;
			pr_warn("%s: cannot add ifindex %u to xs_dev_ids: %s\n", h->ifname,
				t->ifindex, strerror(errno));
		} else if (bpf_map_update_elem(h->devmap_fd, &slot, &v, BPF_ANY)) {
			err = -errno;
			pr_warn("%s: cannot add ifindex %u to xs_devmap: %s (the device must "
				"support XDP redirect)\n", h->ifname, t->ifindex, strerror(errno));
			bpf_map_delete_elem(h->dev_ids_fd, &t->ifindex);
		}
	}
	close(prog_fd);
	return err;
}

void xs_redirect_clear(const struct xs_handle *h, __u32 id, const struct xs_target *t)
{
	__u32 key = t->kind == XS_TARGET_CPU ? t->cpu : id - XS_DEV_BASE;

	bpf_map_delete_elem(t->kind == XS_TARGET_CPU ? h->cpumap_fd : h->devmap_fd, &key);
	if (t->kind == XS_TARGET_DEV)
		bpf_map_delete_elem(h->dev_ids_fd, &t->ifindex);
}

__u32 xs_new_uid(void)
{
	__u32 uid = 0;

	while (!uid)
		if (getrandom(&uid, sizeof(uid), 0) != sizeof(uid))
			uid = (__u32)getpid() ^ 0x5a5a5a5au;
	return uid;
}

int xs_targets_read(const struct xs_handle *h, struct xs_target *all)
{
	LIBBPF_OPTS(bpf_map_batch_opts, bopts);
	__u32 count = XS_MAX_TARGETS, out_batch, *keys;
	int err = 0;

	keys = calloc(XS_MAX_TARGETS, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	/* One syscall for the whole array: it has 8576 entries. */
	if (bpf_map_lookup_batch(h->targets_fd, NULL, &out_batch, keys, all, &count, &bopts) &&
	    errno != ENOENT) {
		err = -errno;
		pr_warn("%s: cannot read xs_targets: %s\n", h->ifname, strerror(-err));
	} else if (count != XS_MAX_TARGETS) {
		err = -EIO;
		pr_warn("%s: read %u of %u xs_targets entries\n", h->ifname, count, XS_MAX_TARGETS);
	}
	free(keys);
	return err;
}

int xs_target_write(const struct xs_handle *h, __u32 id, const struct xs_target *t)
{
	if (bpf_map_update_elem(h->targets_fd, &id, t, BPF_ANY)) {
		int err = -errno;

		pr_warn("%s: cannot write xs_targets[%u]: %s\n", h->ifname, id, strerror(-err));
		return err;
	}
	xs_epoch_bump(h);
	return 0;
}

int xs_target_name(const struct xs_handle *h, const struct xs_target *t, __u32 id, char *buf,
		   size_t len)
{
	const char *kind = xs_name_of(xs_kind_names, t->kind);
	char ifn[IF_NAMESIZE], addr[INET6_ADDRSTRLEN];

	switch (t->kind) {
	case XS_TARGET_CPU:
		return snprintf(buf, len, "%s %u", kind, t->cpu);
	case XS_TARGET_DEV:
		return snprintf(buf, len, "%s %s", kind,
				if_indextoname(t->ifindex, ifn) ? ifn : "(gone)");
	case XS_TARGET_BACKEND:
		xs_format_addr(t->addr, addr, sizeof(addr));
		return snprintf(buf, len, "%s %s", kind, addr);
	default:
		return snprintf(buf, len, "id %u", id);
	}
}
