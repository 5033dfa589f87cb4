// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Attach and detach (attach.h): load the XDP object with its compile-time
 * settings, pin every map and program under the interface's pin directory,
 * attach through libxdp, and commit the first model. A failure anywhere
 * unwinds all of it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "attach.h"
#include "build_rec.h"
#include "clock.h"
#include "log.h"
#include "map_sizes.h"
#include "names.h"
#include "netns.h"
#include "xdpsteer.skel.h"

int xs_set_pin_paths(struct xdpsteer *skel, const char *dir)
{
	struct bpf_map *map;
	char path[PATH_MAX];

	bpf_object__for_each_map(map, skel->obj) {
		/* Internal maps (.rodata) hold no state an operator edits. */
		if (bpf_map__is_internal(map))
			continue;
		if (xs_pin_path(path, sizeof(path), dir, bpf_map__name(map)) ||
		    bpf_map__set_pin_path(map, path))
			return -EINVAL;
	}
	return 0;
}


int xs_attach(const char *ifname, const struct xs_attach_cfg *c, const struct xs_settings *set)
{
	struct xs_commit_opts quiet = { .quiet = true };
	struct xs_attach_cfg cfg = *c;
	struct xs_model m;
	struct xdp_program *xp = NULL;
	struct xdpsteer *skel = NULL;
	struct bpf_link *link = NULL;
	struct xs_handle h;
	struct bpf_map_info info = { 0 };
	__u32 info_len = sizeof(info), zero = 0;
	struct xs_self self = { 0 };
	char dir[PATH_MAX];
	bool attached = false;
	int ifindex, nr_cpus, err;

	err = xs_check_env();
	if (err)
		return err;
	ifindex = xs_ifindex(ifname);
	if (ifindex < 0)
		return ifindex;
	if (xs_pin_dir(dir, sizeof(dir), ifname))
		return -EINVAL;
	if (xs_is_attached(ifname)) {
		/* Its program elsewhere: the state of another interface, never clobbered. */
		err = xs_pin_owner_check(dir, XS_PIN_PROG_XDP, ifname, ifindex);
		if (err)
			return err;
		pr_warn("xdpsteer is already attached to %s, state in %s (run: xdpsteer detach "
			"%s)\n", ifname, dir, ifname);
		return -EEXIST;
	}
	err = xs_check_iface_free(ifname, ifindex);
	if (err)
		return err;
	/* A directory without a program pin is left over from a crash: start clean. */
	xs_unpin_all(dir);
	if (xs_netns_mkdir(XS_PIN_ROOT, 0700))
		return -EIO;
	if (mkdir(dir, 0700)) {
		err = -errno;
		pr_warn("cannot create pin directory %s: %s\n", dir, strerror(errno));
		return err;
	}

	nr_cpus = libbpf_num_possible_cpus();
	skel = xdpsteer__open();
	if (!skel) {
		err = -errno;
		pr_warn("cannot open the xdpsteer BPF object: %s\n", strerror(errno));
		goto fail;
	}
	skel->rodata->cfg_nr_cpus = nr_cpus;
	skel->rodata->cfg_unparsed_verdict = cfg.unparsed_verdict;
	skel->rodata->cfg_too_big = cfg.too_big;
	skel->rodata->cfg_gue_port = (__u16)cfg.gue_port;
	skel->rodata->cfg_flow_table = cfg.flow_entries > 0;
	skel->rodata->cfg_pin_rate = cfg.pin_rate;
	skel->rodata->cfg_cache_slots = cfg.cache_slots;
	/* A tenth of a second of new flows may come at once. */
	skel->rodata->cfg_pin_burst = cfg.pin_rate / 10 ? cfg.pin_rate / 10 : 1;
	skel->rodata->cfg_timeouts = cfg.timeouts;
	skel->rodata->cfg_clock_period_ns = xs_clock_period_ns(&cfg.timeouts);
	/* Keys the flow cache's slot hash, so nobody can aim flows at one slot. */
	if (getrandom((void *)&skel->rodata->cfg_cache_key, sizeof(skel->rodata->cfg_cache_key),
		      0) != sizeof(skel->rodata->cfg_cache_key)) {
		err = -EIO;
		pr_warn("cannot draw a random flow-cache key: %s\n", strerror(errno));
		goto fail;
	}
	err = xs_size_maps(skel, nr_cpus, cfg.flow_entries);
	if (err)
		goto fail;
	err = xs_set_pin_paths(skel, dir);
	if (err)
		goto fail;

	{
		DECLARE_LIBXDP_OPTS(xdp_program_opts, xopts, .obj = skel->obj,
				    .prog_name = "xdpsteer_xdp");

		xp = xdp_program__create(&xopts);
		err = libxdp_get_error(xp);
		if (err) {
			xp = NULL;
			pr_warn("cannot create the XDP program for %s: %s\n", ifname,
				strerror(-err));
			goto fail;
		}
	}
	err = xdp_program__attach(xp, ifindex, cfg.mode, 0);
	if (err) {
		pr_warn("cannot attach to %s in %s mode: %s (run with -vv for the verifier and "
			"libxdp log)\n", ifname, xs_name_of(xs_mode_names, cfg.mode),
			strerror(-err));
		goto fail;
	}
	attached = true;
	/* Before any pool exists: no flow is pinned without the time. */
	err = xs_clock_start(bpf_program__fd(skel->progs.xdpsteer_clock_start), ifname);
	if (err)
		goto fail;

	err = xs_pin_obj(bpf_program__fd(skel->progs.xdpsteer_xdp), dir, XS_PIN_PROG_XDP);
	err = err ?: xs_pin_obj(bpf_program__fd(skel->progs.xdpsteer_cpumap), dir,
				XS_PIN_PROG_CPUMAP);
	err = err ?: xs_pin_obj(bpf_program__fd(skel->progs.xdpsteer_devmap), dir,
				XS_PIN_PROG_DEVMAP);
	if (err)
		goto fail;

	if (bpf_obj_get_info_by_fd(bpf_map__fd(skel->maps.xs_cpumap), &info, &info_len)) {
		err = -errno;
		pr_warn("cannot read xs_cpumap info: %s\n", strerror(errno));
		goto fail;
	}
	self.cpumap_id = info.id;
	self.timeouts = cfg.timeouts;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.xs_self), &zero, &self, BPF_ANY)) {
		err = -errno;
		pr_warn("cannot write xs_self: %s\n", strerror(errno));
		goto fail;
	}
	err = xs_build_write(bpf_map__fd(skel->maps.xs_build), ifname, NULL);
	if (err)
		goto fail;
	link = bpf_program__attach(skel->progs.xdpsteer_cpumap_drops);
	if (!link) {
		err = -errno;
		pr_warn("cannot attach to tracepoint xdp:xdp_cpumap_enqueue: %s\n",
			strerror(errno));
		goto fail;
	}
	{
		char path[PATH_MAX];

		if (xs_pin_path(path, sizeof(path), dir, XS_PIN_LINK_DROPS) ||
		    bpf_link__pin(link, path)) {
			err = -errno;
			pr_warn("cannot pin %s/%s: %s\n", dir, XS_PIN_LINK_DROPS, strerror(errno));
			goto fail;
		}
	}
	xs_chmod_pins(dir);

	/* The first commit: an empty queue pool carries the settings until targets arrive. */
	err = xs_open(ifname, &h);
	if (err)
		goto fail;
	err = xs_model_init(&m);
	if (!err) {
		xs_model_settings(&m, set);
		err = xs_model_commit(&h, &m, &quiet);
		xs_model_free(&m);
	}
	xs_close(&h);
	if (err)
		goto fail;

	printf("attached xdpsteer to %s (ifindex %d, %s mode, algo %s", ifname, ifindex,
	       xs_name_of(xs_mode_names, cfg.mode),
	       xs_name_of(xs_algo_names, set->algo));
	if (set->algo == XS_ALGO_SHUFFLE)
		printf(", hand size %u", set->hand_size);
	printf("), state in %s\n", dir);
	bpf_link__disconnect(link);
	bpf_link__destroy(link);
	xdp_program__close(xp);
	xdpsteer__destroy(skel);
	return 0;

fail:
	if (attached)
		xdp_program__detach(xp, ifindex, cfg.mode, 0);
	bpf_link__destroy(link);
	xdp_program__close(xp);
	xdpsteer__destroy(skel);
	xs_unpin_all(dir);
	xs_netns_rmdir(XS_PIN_ROOT);
	return err ? err : -EINVAL;
}

int xs_detach(const char *ifname)
{
	struct xdp_multiprog *mp;
	struct xdp_program *xp;
	struct xs_handle h;
	char dir[PATH_MAX];
	int fd, err;

	err = xs_check_env();
	if (err)
		return err;
	/* The interface is gone, and its XDP program with it: only pins remain. */
	if (!if_nametoindex(ifname) && !xs_pin_dir(dir, sizeof(dir), ifname) &&
	    xs_is_attached(ifname)) {
		err = xs_unpin_all(dir);
		xs_netns_rmdir(XS_PIN_ROOT);
		if (!err)
			printf("%s no longer exists here; removed its xdpsteer pins (%s)\n", ifname,
			       dir);
		return err;
	}
	/*
	 * The program pin is all detach needs: an attachment by another version
	 * of xdpsteer, with other maps, is detached all the same. xs_locate()
	 * refuses pins whose program is not the one on this interface here:
	 * removing them would leave that program running, unmanageable.
	 */
	err = xs_locate(ifname, &h);
	if (err)
		return err;
	fd = xs_obj_get(&h, XS_PIN_PROG_XDP);
	if (fd < 0)
		return fd;
	xp = xdp_program__from_fd(fd);
	if (libxdp_get_error(xp)) {
		pr_warn("cannot read the pinned program of %s\n", ifname);
		close(fd);
		return -EINVAL;
	}
	mp = xdp_multiprog__get_from_ifindex(h.ifindex);
	err = xdp_program__detach(xp, h.ifindex,
				  libxdp_get_error(mp) ? XDP_MODE_UNSPEC
						       : xdp_multiprog__attach_mode(mp),
				  0);
	if (!libxdp_get_error(mp))
		xdp_multiprog__close(mp);
	xdp_program__close(xp);
	close(fd);
	if (err && err != -ENOENT) {
		pr_warn("cannot detach from %s: %s\n", ifname, strerror(-err));
		return err;
	}
	if (err == -ENOENT)
		pr_warn("%s: program was no longer attached; removing its pins\n", ifname);
	err = xs_unpin_all(h.dir);
	xs_netns_rmdir(XS_PIN_ROOT);
	if (!err)
		printf("detached xdpsteer from %s\n", ifname);
	return err;
}

