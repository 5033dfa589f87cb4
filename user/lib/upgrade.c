// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Hitless upgrade (upgrade.h). The new object is opened with the running
 * program's rodata (layout.c), sized like the running maps and pointed at
 * their pins, so loading it creates no map: it reuses the flow table, the
 * flow cache, the counters, the pools and the configuration as they are.
 * Nothing changes until one netlink call (XDP_FLAGS_REPLACE with the old
 * program's fd) swaps the programs: a packet runs the old one or the new
 * one, and both read and write the same maps.
 *
 * After the swap, what still names the old object is moved to the new one:
 * the flow clock (a BPF timer runs the callback of the program that armed
 * it, and stamps that object's xs_now), the cpumap and devmap entries (each
 * holds its own program), the drop-counting tracepoint link, and the pins.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include <linux/if_link.h>
#include "attach.h"
#include "build_rec.h"
#include "clock.h"
#include "handle.h"
#include "layout.h"
#include "log.h"
#include "map_sizes.h"
#include "names.h"
#include "target.h"
#include "upgrade.h"
#include "xdpsteer.skel.h"

static const struct {
	enum xdp_attach_mode mode;
	__u32 flags;
} xs_mode_flags[] = {
	{ XDP_MODE_NATIVE, XDP_FLAGS_DRV_MODE },
	{ XDP_MODE_SKB, XDP_FLAGS_SKB_MODE },
	{ XDP_MODE_HW, XDP_FLAGS_HW_MODE },
};

/*
 * The XDP flags (and mode) that name how @h's interface runs program @prog_id. Only a
 * program attached alone can be swapped atomically: a libxdp dispatcher
 * has no call that replaces one of its programs.
 */
static int xs_running_flags(const struct xs_handle *h, __u32 prog_id, __u32 *flags,
			    enum xdp_attach_mode *mode_out)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(h->ifindex);
	struct xdp_program *p;
	enum xdp_attach_mode mode;
	size_t i;
	int err = -EOPNOTSUPP;

	if (libxdp_get_error(mp)) {
		pr_warn("%s: no XDP program is attached, though xdpsteer's pins are there; nothing "
			"to upgrade (run: xdpsteer detach %s, then attach)\n", h->ifname,
			h->ifname);
		return -ENOENT;
	}
	p = xdp_multiprog__main_prog(mp);
	mode = xdp_multiprog__attach_mode(mp);
	if (!xdp_multiprog__is_legacy(mp)) {
		pr_warn("%s: xdpsteer runs under a libxdp dispatcher, which cannot replace one of "
			"its programs atomically: upgrade refused, nothing changed (detach and "
			"attach instead, which loses the flow table)\n", h->ifname);
	} else if (!p || xdp_program__id(p) != prog_id) {
		pr_warn("%s: the XDP program on the interface (id %u) is not xdpsteer's pinned "
			"program (id %u): upgrade refused, nothing changed\n", h->ifname,
			p ? xdp_program__id(p) : 0, prog_id);
		err = -ESTALE;
	} else {
		for (i = 0; i < XS_ARRAY_SIZE(xs_mode_flags); i++)
			if (xs_mode_flags[i].mode == mode) {
				*flags = xs_mode_flags[i].flags;
				*mode_out = mode;
				err = 0;
			}
		if (err)
			pr_warn("%s: unknown XDP attach mode %d\n", h->ifname, mode);
	}
	xdp_multiprog__close(mp);
	return err;
}

/* Pin @fd as @name in @dir in place of what is there: a new pin, renamed over the old. */
static int xs_repin(int fd, const char *dir, const char *name)
{
	char tmp[64], path[PATH_MAX], tpath[PATH_MAX];
	int err;

	/* bpffs allows no dot in a name. */
	snprintf(tmp, sizeof(tmp), "%s_new", name);
	err = xs_pin_path(path, sizeof(path), dir, name) ?:
	      xs_pin_path(tpath, sizeof(tpath), dir, tmp);
	if (err)
		return err;
	unlink(tpath);
	err = xs_pin_obj(fd, dir, tmp);
	if (err)
		return err;
	if (rename(tpath, path)) {
		err = -errno;
		pr_warn("cannot move pin %s over %s: %s\n", tpath, path, strerror(-err));
		unlink(tpath);
	}
	return err;
}

/*
 * The flow clock, moved to the new program: the element update frees the old
 * timer (the kernel cancels a timer whose map value is overwritten), then
 * the new object's start program arms one with its own callback.
 */
static int xs_clock_move(struct xdpsteer *skel, const char *ifname)
{
	struct xs_clock_val {
		__u64 words[4];
	} zero_val = { { 0 } };
	__u32 zero = 0;

	if (bpf_map__value_size(skel->maps.xs_clock) > sizeof(zero_val) ||
	    bpf_map_update_elem(bpf_map__fd(skel->maps.xs_clock), &zero, &zero_val, BPF_ANY)) {
		pr_warn("%s: cannot stop the old flow clock: %s\n", ifname, strerror(errno));
		return -EIO;
	}
	return xs_clock_start(bpf_program__fd(skel->progs.xdpsteer_clock_start), ifname);
}

/* The redirect entries of every active queue target, pointed at the new cpumap/devmap programs. */
static int xs_redirects_move(const char *ifname)
{
	struct xs_target *all = calloc(XS_MAX_TARGETS, sizeof(*all));
	struct xs_handle h;
	__u32 id;
	int err, moved = 0;

	if (!all)
		return -ENOMEM;
	err = xs_open(ifname, &h);
	err = err ?: xs_targets_read(&h, all);
	for (id = 0; !err && id < XS_BACKEND_BASE; id++)
		if (all[id].active) {
			err = xs_redirect_set(&h, id, &all[id]);
			moved++;
		}
	pr_debug("%s: %d redirect entries moved to the new programs\n", ifname, moved);
	xs_close(&h);
	free(all);
	return err;
}

/* The link of the drop-counting tracepoint, made anew for the new program and pinned over the old. */
static int xs_drops_link_move(struct xdpsteer *skel, const char *dir, const char *ifname)
{
	struct bpf_link *link = bpf_program__attach(skel->progs.xdpsteer_cpumap_drops);
	int err;

	if (!link) {
		err = -errno;
		pr_warn("%s: cannot attach to tracepoint xdp:xdp_cpumap_enqueue: %s\n", ifname,
			strerror(-err));
		return err;
	}
	err = xs_repin(bpf_link__fd(link), dir, XS_PIN_LINK_DROPS);
	bpf_link__destroy(link); /* the pin holds it */
	return err;
}

/* Everything that names the old object, moved to the new one; the swap has happened. */
static int xs_after_swap(struct xdpsteer *skel, const struct xs_handle *h,
			 const struct xs_build *prev)
{
	int build_fd, err;

	err = xs_clock_move(skel, h->ifname);
	err = err ?: xs_repin(bpf_program__fd(skel->progs.xdpsteer_cpumap), h->dir,
			      XS_PIN_PROG_CPUMAP);
	err = err ?: xs_repin(bpf_program__fd(skel->progs.xdpsteer_devmap), h->dir,
			      XS_PIN_PROG_DEVMAP);
	err = err ?: xs_redirects_move(h->ifname);
	err = err ?: xs_drops_link_move(skel, h->dir, h->ifname);
	build_fd = bpf_map__fd(skel->maps.xs_build);
	err = err ?: xs_build_write(build_fd, h->ifname, prev);
	return err;
}

/*
 * The kernel makes every devmap read-only to programs (BPF_F_RDONLY_PROG)
 * whatever it was created with, and libbpf 1.1 refuses to reuse a pin whose
 * flags differ from the definition: say in the definition what the kernel did.
 */
static void xs_devmap_flags(struct bpf_object *obj)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, obj)
		if (bpf_map__type(m) == BPF_MAP_TYPE_DEVMAP ||
		    bpf_map__type(m) == BPF_MAP_TYPE_DEVMAP_HASH)
			bpf_map__set_map_flags(m, bpf_map__map_flags(m) | BPF_F_RDONLY_PROG);
}

int xs_upgrade(const char *ifname)
{
	struct bpf_prog_info pinfo = { 0 }, ninfo = { 0 };
	struct bpf_map_info finfo = { 0 };
	enum xdp_attach_mode mode = XDP_MODE_NATIVE;
	__u32 len, flags = 0;
	struct xdpsteer *skel = NULL;
	struct xs_build prev = { 0 };
	struct xs_handle h;
	int old_fd, flows_fd, build_fd, err;

	err = xs_locate(ifname, &h);
	if (err)
		return err;
	old_fd = xs_obj_get(&h, XS_PIN_PROG_XDP);
	if (old_fd < 0)
		return old_fd;
	len = sizeof(pinfo);
	if (bpf_obj_get_info_by_fd(old_fd, &pinfo, &len)) {
		err = -errno;
		pr_warn("%s: cannot read the pinned program: %s\n", ifname, strerror(-err));
		goto out;
	}
	err = xs_running_flags(&h, pinfo.id, &flags, &mode);
	if (err)
		goto out;

	skel = xdpsteer__open();
	if (!skel) {
		err = -errno;
		pr_warn("cannot open the xdpsteer BPF object: %s\n", strerror(-err));
		goto out;
	}
	/* The flow table's size is fixed at attach (--flow-table-size): keep it. */
	flows_fd = xs_obj_get(&h, "xs_flows");
	len = sizeof(finfo);
	if (flows_fd < 0 || bpf_obj_get_info_by_fd(flows_fd, &finfo, &len)) {
		err = flows_fd < 0 ? flows_fd : -errno;
		if (flows_fd >= 0)
			close(flows_fd);
		goto out;
	}
	close(flows_fd);
	xs_devmap_flags(skel->obj);
	err = xs_rodata_carry(old_fd, skel->obj, ifname) ?:
	      xs_size_maps(skel, h.nr_cpus, finfo.max_entries) ?:
	      xs_set_pin_paths(skel, h.dir) ?:
	      xs_layout_check(skel->obj, h.dir, ifname);
	if (err) {
		if (err == -EPROTO)
			pr_warn("%s: this build's maps differ from the running attachment's: upgrade "
				"refused, nothing changed (detach and attach to start afresh, which "
				"loses the flow table)\n", ifname);
		goto out;
	}
	build_fd = xs_obj_get(&h, "xs_build");
	if (build_fd < 0) {
		err = build_fd;
		goto out;
	}
	xs_build_read(build_fd, &prev);
	close(build_fd);

	err = xdpsteer__load(skel);
	if (err) {
		pr_warn("%s: cannot load this build's program: %s; nothing changed (run with -vv for "
			"the verifier log)\n", ifname, strerror(-err));
		goto out;
	}
	/* The new program reads the time from its own xs_now until its clock ticks. */
	skel->bss->xs_now = xs_tick_now();
	{
		LIBBPF_OPTS(bpf_xdp_attach_opts, xo, .old_prog_fd = old_fd);

		err = bpf_xdp_attach(h.ifindex, bpf_program__fd(skel->progs.xdpsteer_xdp),
				     flags | XDP_FLAGS_REPLACE, &xo);
	}
	if (err) {
		pr_warn("%s: cannot replace program id %u: %s; nothing changed\n", ifname, pinfo.id,
			strerror(-err));
		goto out;
	}
	len = sizeof(ninfo);
	bpf_obj_get_info_by_fd(bpf_program__fd(skel->progs.xdpsteer_xdp), &ninfo, &len);
	/*
	 * The program pin first: once it names the running program, a second
	 * upgrade finds a consistent attachment and redoes whatever failed below.
	 */
	err = xs_repin(bpf_program__fd(skel->progs.xdpsteer_xdp), h.dir, XS_PIN_PROG_XDP);
	if (err) {
		pr_warn("%s: the new program (id %u) runs, but %s/%s still names the old one: remove "
			"it with `ip link set dev %s xdp off`, then `xdpsteer detach %s` and attach "
			"again\n", ifname, ninfo.id, h.dir, XS_PIN_PROG_XDP, ifname, ifname);
		goto out;
	}
	err = xs_after_swap(skel, &h, &prev);
	if (err) {
		pr_warn("%s: the new program (id %u) runs on the same maps, but moving the rest to "
			"it failed: run `xdpsteer upgrade %s` again\n", ifname, ninfo.id, ifname);
		goto out;
	}
	printf("upgraded xdpsteer on %s: prog id %u -> %u, version %s -> %s (%s mode); maps "
	       "kept in %s\n", ifname, pinfo.id, ninfo.id, prev.version[0] ? prev.version : "?",
	       xs_version(), xs_name_of(xs_mode_names, mode), h.dir);
out:
	xdpsteer__destroy(skel);
	close(old_fd);
	return err;
}
