// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* attach, detach and status: the life cycle of one xdpsteer attachment. */
#include <dirent.h>
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
#include "cli.h"
#include "clock.h"
#include "commands.h"
#include "log.h"
#include "map_sizes.h"
#include "state.h"
#include "xdpsteer.skel.h"
#include "xs_shuffle.h"

#define XS_DEFAULT_PIN_RATE 50000 /* new pins per second per CPU: see README, "flood" */

struct xs_attach_cfg {
	enum xdp_attach_mode mode;
	__u32 flow_entries;
	__u32 pin_rate;
	__u32 unparsed_verdict;
	struct xs_timeouts timeouts;
	struct xs_pool_hdr hdr;
};

static __u32 xs_ms_to_ticks(__u64 ms)
{
	__u64 t = (ms * 1000000ULL) >> XS_TICK_SHIFT;

	return t ? (__u32)t : 1;
}

/*
 * --tcp-timeout, --fin-timeout, --udp-timeout. A cached flow refreshes its
 * pin every quarter of the shortest timeout, and at least every second, so
 * a flow with traffic never looks idle.
 */
static int xs_parse_timeouts(const struct xs_args *a, struct xs_timeouts *to)
{
	const struct {
		const char *opt;
		__u64 def_s;
		__u32 *ticks;
	} t[] = {
		{ "tcp-timeout", XS_DEFAULT_TCP_TIMEOUT_S, &to->tcp },
		{ "fin-timeout", XS_DEFAULT_FIN_TIMEOUT_S, &to->fin },
		{ "udp-timeout", XS_DEFAULT_UDP_TIMEOUT_S, &to->udp },
	};
	__u64 ms, shortest = XS_MAX_REFRESH_S * 4000ULL;
	char what[32];
	size_t i;

	for (i = 0; i < XS_ARRAY_SIZE(t); i++) {
		const char *v = xs_arg(a, t[i].opt);

		ms = t[i].def_s * 1000;
		snprintf(what, sizeof(what), "--%s", t[i].opt);
		if (v && xs_parse_duration(v, what, 100, XS_MAX_TIMEOUT_S * 1000ULL, &ms))
			return -EINVAL;
		*t[i].ticks = xs_ms_to_ticks(ms);
		if (ms < shortest)
			shortest = ms;
	}
	to->refresh = xs_ms_to_ticks(shortest / 4);
	return 0;
}

static int xs_parse_attach(const struct xs_args *a, struct xs_attach_cfg *cfg)
{
	const char *v;
	__u32 u;

	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = XDP_MODE_NATIVE;
	cfg->flow_entries = XS_DEFAULT_FLOW_ENTRIES;
	cfg->pin_rate = XS_DEFAULT_PIN_RATE;
	cfg->unparsed_verdict = XDP_PASS;
	cfg->hdr.algo = XS_ALGO_JUMP;
	cfg->hdr.hand_size = 4;
	cfg->hdr.flow_fields = XS_F_DEFAULT_FLOW;
	cfg->hdr.hand_fields = XS_F_DEFAULT_HAND;

	if ((v = xs_arg(a, "algo"))) {
		if (!strcmp(v, "jump")) {
			cfg->hdr.algo = XS_ALGO_JUMP;
		} else if (!strcmp(v, "shuffle")) {
			cfg->hdr.algo = XS_ALGO_SHUFFLE;
		} else {
			pr_warn("--algo: '%s' is not jump or shuffle\n", v);
			return -EINVAL;
		}
	}
	if ((v = xs_arg(a, "hand-size"))) {
		/* 15 is the largest hand any N allows within 60 bits (N = 15 or 16). */
		if (xs_parse_u32(v, "--hand-size", 1, XS_MAX_HAND - 1, &u))
			return -EINVAL;
		cfg->hdr.hand_size = (__u8)u;
	}
	if ((v = xs_arg(a, "seed"))) {
		if (xs_parse_seed(v, cfg->hdr.seed))
			return -EINVAL;
	} else if (getrandom(cfg->hdr.seed, sizeof(cfg->hdr.seed), 0) != sizeof(cfg->hdr.seed)) {
		pr_warn("cannot draw a random seed: %s\n", strerror(errno));
		return -EIO;
	}
	if ((v = xs_arg(a, "xdp-mode"))) {
		if (!strcmp(v, "native")) {
			cfg->mode = XDP_MODE_NATIVE;
		} else if (!strcmp(v, "skb")) {
			cfg->mode = XDP_MODE_SKB;
		} else {
			pr_warn("--xdp-mode: '%s' is not native or skb\n", v);
			return -EINVAL;
		}
	}
	if ((v = xs_arg(a, "flow-table-size")) &&
	    xs_parse_u32(v, "--flow-table-size", 0, 1U << 26, &cfg->flow_entries))
		return -EINVAL;
	if ((v = xs_arg(a, "pin-rate")) &&
	    xs_parse_u32(v, "--pin-rate", 0, 100000000, &cfg->pin_rate))
		return -EINVAL;
	if (xs_parse_timeouts(a, &cfg->timeouts))
		return -EINVAL;
	if ((v = xs_arg(a, "hash-fields")) && xs_parse_fields(v, "--hash-fields", &cfg->hdr.flow_fields))
		return -EINVAL;
	if ((v = xs_arg(a, "hand-fields")) && xs_parse_fields(v, "--hand-fields", &cfg->hdr.hand_fields))
		return -EINVAL;
	if ((v = xs_arg(a, "unparsed"))) {
		if (!strcmp(v, "pass")) {
			cfg->unparsed_verdict = XDP_PASS;
		} else if (!strcmp(v, "drop")) {
			cfg->unparsed_verdict = XDP_DROP;
		} else {
			pr_warn("--unparsed: '%s' is not pass or drop\n", v);
			return -EINVAL;
		}
	}
	return 0;
}




static int xs_set_pin_paths(struct xdpsteer *skel, const char *dir)
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


int xs_cmd_attach(const struct xs_args *a)
{
	const char *ifname = a->pos[0];
	struct xs_attach_cfg cfg;
	struct xdp_program *xp = NULL;
	struct xdpsteer *skel = NULL;
	struct bpf_link *link = NULL;
	struct xs_handle h;
	struct xs_pool pool = { 0 };
	struct bpf_map_info info = { 0 };
	__u32 info_len = sizeof(info), zero = 0;
	struct xs_self self = { 0 };
	char dir[PATH_MAX];
	bool attached = false;
	int ifindex, nr_cpus, err;

	err = xs_check_env();
	if (err)
		return err;
	err = xs_parse_attach(a, &cfg);
	if (err)
		return err;
	ifindex = xs_ifindex(ifname);
	if (ifindex < 0)
		return ifindex;
	if (xs_pin_dir(dir, sizeof(dir), ifname))
		return -EINVAL;
	if (xs_is_attached(ifname)) {
		pr_warn("xdpsteer is already attached to %s (run: xdpsteer detach %s)\n", ifname,
			ifname);
		return -EEXIST;
	}
	err = xs_check_iface_free(ifname, ifindex);
	if (err)
		return err;
	/* A directory without a program pin is left over from a crash: start clean. */
	xs_unpin_all(dir);
	if ((mkdir(XS_PIN_ROOT, 0700) && errno != EEXIST) || mkdir(dir, 0700)) {
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
	skel->rodata->cfg_flow_table = cfg.flow_entries > 0;
	skel->rodata->cfg_pin_rate = cfg.pin_rate;
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
			"libxdp log)\n", ifname, cfg.mode == XDP_MODE_SKB ? "skb" : "native",
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

	/* An empty pool carries the algorithm and seed until targets arrive. */
	err = xs_open(ifname, &h);
	if (err)
		goto fail;
	pool.hdr = cfg.hdr;
	err = xs_pool_publish(&h, XS_POOL_QUEUES, &pool);
	xs_close(&h);
	if (err)
		goto fail;

	printf("attached xdpsteer to %s (ifindex %d, %s mode, algo %s", ifname, ifindex,
	       cfg.mode == XDP_MODE_SKB ? "skb" : "native",
	       cfg.hdr.algo == XS_ALGO_SHUFFLE ? "shuffle" : "jump");
	if (cfg.hdr.algo == XS_ALGO_SHUFFLE)
		printf(", hand size %u", cfg.hdr.hand_size);
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
	return err ? err : -EINVAL;
}

int xs_cmd_detach(const struct xs_args *a)
{
	const char *ifname = a->pos[0];
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
		if (!err)
			printf("%s no longer exists; removed its xdpsteer pins\n", ifname);
		return err;
	}
	/* The program pin is all detach needs: an attachment by another version
	 * of xdpsteer, with other maps, is detached all the same. */
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
	if (!err)
		printf("detached xdpsteer from %s\n", ifname);
	return err;
}

static const char *xs_mode_name(enum xdp_attach_mode m)
{
	switch (m) {
	case XDP_MODE_NATIVE:
		return "native";
	case XDP_MODE_SKB:
		return "skb";
	case XDP_MODE_HW:
		return "hw";
	default:
		return "unknown";
	}
}

/* Ticks back to seconds, rounded to what the tick can tell apart. */
static double xs_ticks_s(__u32 ticks)
{
	return (double)((__u64)ticks << XS_TICK_SHIFT) / 1e9;
}

static int xs_status_one(const char *ifname, bool json, bool first)
{
	struct bpf_prog_info pinfo = { 0 };
	__u32 plen = sizeof(pinfo), flen;
	struct bpf_map_info finfo = { 0 };
	struct xdp_multiprog *mp;
	struct xs_handle h;
	struct xs_pool pool;
	char fields[64], hfields[64];
	const char *mode = "detached";
	struct xs_self self;
	__u32 zero = 0;
	int fd, err;

	err = xs_open(ifname, &h);
	if (err)
		return err;
	err = xs_pool_read(&h, XS_POOL_QUEUES, &pool);
	if (err)
		goto out;
	fd = xs_obj_get(&h, XS_PIN_PROG_XDP);
	if (fd >= 0) {
		bpf_obj_get_info_by_fd(fd, &pinfo, &plen);
		close(fd);
	}
	flen = sizeof(finfo);
	bpf_obj_get_info_by_fd(h.flows_fd, &finfo, &flen);
	mp = xdp_multiprog__get_from_ifindex(h.ifindex);
	if (!libxdp_get_error(mp)) {
		struct xdp_program *p = xdp_multiprog__main_prog(mp);

		/* Replaced: a legacy program that is not ours sits on the interface. */
		if (!(p && xdp_program__id(p) == pinfo.id) && xdp_multiprog__is_legacy(mp))
			mode = "replaced";
		else
			mode = xs_mode_name(xdp_multiprog__attach_mode(mp));
		xdp_multiprog__close(mp);
	}
	xs_format_fields(pool.hdr.flow_fields, fields, sizeof(fields));
	xs_format_fields(pool.hdr.hand_fields, hfields, sizeof(hfields));
	if (bpf_map_lookup_elem(h.self_fd, &zero, &self)) {
		err = -errno;
		pr_warn("%s: cannot read xs_self: %s\n", h.ifname, strerror(-err));
		goto out_pool;
	}
	if (json) {
		printf("%s{\"ifname\": \"%s\", \"ifindex\": %d, \"prog_id\": %u, \"mode\": \"%s\", "
		       "\"xlated_insns\": %u, \"verified_insns\": %u, \"algo\": \"%s\", "
		       "\"hand_size\": %u, \"slots\": %u, \"generation\": %u, "
		       "\"seed\": \"%016llx%016llx\", \"hash_fields\": \"%s\", "
		       "\"hand_fields\": \"%s\", \"flow_table_size\": %u, "
		       "\"tcp_timeout_s\": %.2f, \"fin_timeout_s\": %.2f, \"udp_timeout_s\": %.2f}",
		       first ? "" : ", ", h.ifname, h.ifindex, pinfo.id, mode,
		       pinfo.xlated_prog_len / 8, pinfo.verified_insns,
		       pool.hdr.algo == XS_ALGO_SHUFFLE ? "shuffle" : "jump", pool.hdr.hand_size,
		       pool.hdr.n_buckets, pool.hdr.generation,
		       (unsigned long long)pool.hdr.seed[0], (unsigned long long)pool.hdr.seed[1],
		       fields, hfields, finfo.max_entries, xs_ticks_s(self.timeouts.tcp),
		       xs_ticks_s(self.timeouts.fin), xs_ticks_s(self.timeouts.udp));
	} else {
		printf("%s: prog id %u (%s mode, %u insns, %u verified), algo %s", h.ifname,
		       pinfo.id, mode, pinfo.xlated_prog_len / 8, pinfo.verified_insns,
		       pool.hdr.algo == XS_ALGO_SHUFFLE ? "shuffle" : "jump");
		if (pool.hdr.algo == XS_ALGO_SHUFFLE)
			printf(" (hand %u, hand fields %s)", pool.hdr.hand_size, hfields);
		printf(", %u slots, generation %u\n", pool.hdr.n_buckets, pool.hdr.generation);
		printf("  hash fields %s, seed %016llx%016llx, flow table %u entries\n", fields,
		       (unsigned long long)pool.hdr.seed[0], (unsigned long long)pool.hdr.seed[1],
		       finfo.max_entries);
		printf("  idle timeouts: tcp %.2fs, after FIN/RST %.2fs, udp and other %.2fs\n",
		       xs_ticks_s(self.timeouts.tcp), xs_ticks_s(self.timeouts.fin),
		       xs_ticks_s(self.timeouts.udp));
	}
out_pool:
	xs_pool_free(&pool);
out:
	xs_close(&h);
	return err;
}

int xs_cmd_status(const struct xs_args *a)
{
	bool json = xs_flag(a, "json");
	struct dirent *de;
	int err = 0, n = 0, hidden = 0;
	DIR *d;

	if (a->npos == 1) {
		if (json)
			printf("[");
		err = xs_status_one(a->pos[0], json, true);
		if (json)
			printf("]\n");
		return err;
	}
	err = xs_check_env();
	if (err)
		return err;
	if (json)
		printf("[");
	d = opendir(XS_PIN_ROOT);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !xs_is_attached(de->d_name))
			continue;
		/* Pins are global, interfaces are per network namespace. */
		if (!if_nametoindex(de->d_name)) {
			if (!json)
				printf("%s: pinned, but no such interface in this network namespace "
				       "(in another one, or deleted: xdpsteer detach %s cleans up)\n",
				       de->d_name, de->d_name);
			hidden++;
			continue;
		}
		if (xs_status_one(de->d_name, json, n == 0))
			err = -EIO;
		n++;
	}
	if (d)
		closedir(d);
	if (json)
		printf("]\n");
	else if (!n && !hidden)
		printf("xdpsteer is not attached to any interface\n");
	return err;
}
