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
#include "attach.h"
#include "build_rec.h"
#include "cli.h"
#include "commands.h"
#include "json.h"
#include "rodata.h"
#include "log.h"
#include "names.h"
#include "pool.h"
#include "service.h"
#include "upgrade.h"
#include "xs_gue.h"

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
		enum xs_opt_id opt;
		__u64 def_s;
		__u32 *ticks;
	} t[] = {
		{ XS_OPT_TCP_TIMEOUT, XS_DEFAULT_TCP_TIMEOUT_S, &to->tcp },
		{ XS_OPT_FIN_TIMEOUT, XS_DEFAULT_FIN_TIMEOUT_S, &to->fin },
		{ XS_OPT_UDP_TIMEOUT, XS_DEFAULT_UDP_TIMEOUT_S, &to->udp },
	};
	__u64 ms, shortest = XS_MAX_REFRESH_S * 4000ULL;
	char what[32];
	size_t i;

	for (i = 0; i < XS_ARRAY_SIZE(t); i++) {
		const char *v = xs_arg(a, t[i].opt);

		ms = t[i].def_s * 1000;
		snprintf(what, sizeof(what), "--%s", xs_opt_names[t[i].opt]);
		if (v && xs_parse_duration(v, what, 100, XS_MAX_TIMEOUT_S * 1000ULL, &ms))
			return -EINVAL;
		*t[i].ticks = xs_ms_to_ticks(ms);
		if (ms < shortest)
			shortest = ms;
	}
	to->refresh = xs_ms_to_ticks(shortest / 4);
	return 0;
}

/* The flow cache's slot is hash bits: its size must be a power of two. */
static int xs_power_of_two(const char *s, const char *what, __u32 v)
{
	if (v & (v - 1)) {
		pr_warn("%s: '%s' is not a power of two (1, 2, 4, ... 1048576): a flow's "
			"slot is bits of its hash\n", what, s);
		return -EINVAL;
	}
	return 0;
}

/* The attach-only options: what the object is loaded with. */
static int xs_parse_attach(const struct xs_args *a, struct xs_attach_cfg *cfg)
{
	unsigned int v;
	const char *s;

	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = XDP_MODE_NATIVE;
	cfg->flow_entries = XS_DEFAULT_FLOW_ENTRIES;
	cfg->pin_rate = XS_DEFAULT_PIN_RATE;
	cfg->cache_slots = XS_FLOW_CACHE_SLOTS;
	cfg->unparsed_verdict = XDP_PASS;
	cfg->gue_port = XS_DEFAULT_GUE_PORT;
	if ((s = xs_arg(a, XS_OPT_XDP_MODE))) {
		if (xs_name_parse(xs_mode_names, s, "--xdp-mode", &v))
			return -EINVAL;
		cfg->mode = v;
	}
	if ((s = xs_arg(a, XS_OPT_FLOW_TABLE_SIZE)) &&
	    xs_parse_u32(s, "--flow-table-size", 0, 1U << 26, &cfg->flow_entries))
		return -EINVAL;
	if ((s = xs_arg(a, XS_OPT_FLOW_CACHE_SIZE)) &&
	    (xs_parse_u32(s, "--flow-cache-size", 1, XS_FLOW_CACHE_MAX_SLOTS, &cfg->cache_slots) ||
	     xs_power_of_two(s, "--flow-cache-size", cfg->cache_slots)))
		return -EINVAL;
	if ((s = xs_arg(a, XS_OPT_PIN_RATE)) &&
	    xs_parse_u32(s, "--pin-rate", 0, 100000000, &cfg->pin_rate))
		return -EINVAL;
	if (xs_parse_timeouts(a, &cfg->timeouts))
		return -EINVAL;
	if ((s = xs_arg(a, XS_OPT_UNPARSED))) {
		if (xs_name_parse(xs_verdict_names, s, "--unparsed", &v))
			return -EINVAL;
		cfg->unparsed_verdict = v;
	}
	if ((s = xs_arg(a, XS_OPT_TOO_BIG))) {
		if (xs_name_parse(xs_too_big_names, s, "--too-big", &v))
			return -EINVAL;
		cfg->too_big = v;
	}
	s = xs_arg(a, XS_OPT_GUE_PORT);
	if (s && xs_parse_u32(s, "--gue-port", 1, 65535, &cfg->gue_port))
		return -EINVAL;
	return 0;
}

int xs_cmd_attach(const struct xs_args *a)
{
	struct xs_attach_cfg cfg;
	struct xs_settings set;

	xs_settings_init(&set);
	if (xs_parse_attach(a, &cfg) || xs_args_keys(a, xs_settings_key, &set))
		return -EINVAL;
	/* Every host of a fleet given the same seed steers every flow alike; alone, any will do. */
	if (!set.has_seed && xs_settings_set(&set, "seed", "random"))
		return -EIO;
	return xs_attach(a->pos[0], &cfg, &set);
}

int xs_cmd_upgrade(const struct xs_args *a)
{
	return xs_upgrade(a->pos[0]);
}

int xs_cmd_detach(const struct xs_args *a)
{
	return xs_detach(a->pos[0]);
}

/* Ticks back to seconds, rounded to what the tick can tell apart. */
static double xs_ticks_s(__u32 ticks)
{
	return (double)((__u64)ticks << XS_TICK_SHIFT) / 1e9;
}

/* The build record of @h's attachment; "unknown" when an older xdpsteer made it. */
static void xs_status_build(const struct xs_handle *h, struct xs_build *b)
{
	char path[PATH_MAX];
	int fd = -1;

	if (!xs_pin_path(path, sizeof(path), h->dir, "xs_build") && !xs_check_not_link(path))
		fd = bpf_obj_get(path);
	if (fd < 0 || xs_build_read(fd, b)) {
		memset(b, 0, sizeof(*b));
		snprintf(b->version, sizeof(b->version), "unknown");
	}
	if (fd >= 0)
		close(fd);
}

/* Without a flow table: the services whose established flows move on every change (service.h). */
static void xs_status_warn_flows(const struct xs_handle *h)
{
	struct xs_service_entry *sv = NULL;
	__u32 i, n = 0;

	if (xs_services_list(h, &sv, &n))
		return;
	for (i = 0; i < n; i++)
		if (!xs_service_keeps_flows(&sv[i].svc))
			xs_service_warn_flows(h->ifname, &sv[i].key, &sv[i].svc);
	free(sv);
}

/* One attachment: its text, or its object appended to @arr (--json). */
static int xs_status_one(const char *ifname, xs_json *arr)
{
	struct bpf_prog_info pinfo = { 0 };
	__u32 plen = sizeof(pinfo), flen;
	struct bpf_map_info cinfo = { 0 };
	struct xdp_multiprog *mp;
	struct xs_handle h;
	struct xs_pool pool;
	char fields[64], hfields[64];
	const char *mode = "detached";
	struct xs_self self;
	struct xs_build build;
	__u32 zero = 0, cache_slots = 0;
	__u32 flow_entries = 0;
	bool table_off = false;
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
	if (!xs_flow_table_entries(&h, &flow_entries) && !flow_entries)
		table_off = true;
	/* The flow cache: a block of slots per possible CPU (--flow-cache-size). */
	fd = xs_obj_get(&h, "xs_flow_cache");
	if (fd >= 0) {
		flen = sizeof(cinfo);
		if (!bpf_obj_get_info_by_fd(fd, &cinfo, &flen) && h.nr_cpus > 0)
			cache_slots = cinfo.max_entries / (__u32)h.nr_cpus;
		close(fd);
	}
	/* Off, there is no pin and no flow cache in use. */
	if (table_off) {
		cache_slots = 0;
		xs_status_warn_flows(&h);
	}
	/* xs_open() checked that our program is on the interface: only its mode is left to read. */
	mp = xdp_multiprog__get_from_ifindex(h.ifindex);
	if (!libxdp_get_error(mp)) {
		mode = xs_name_of(xs_mode_names, xdp_multiprog__attach_mode(mp));
		xdp_multiprog__close(mp);
	}
	xs_format_fields(pool.hdr.flow_fields, fields, sizeof(fields));
	xs_format_fields(pool.hdr.hand_fields, hfields, sizeof(hfields));
	xs_status_build(&h, &build);
	if (bpf_map_lookup_elem(h.self_fd, &zero, &self)) {
		err = -errno;
		pr_warn("%s: cannot read xs_self: %s\n", h.ifname, strerror(-err));
		goto out_pool;
	}
	if (arr) {
		char digest[16];
		xs_json *o = xj_obj();

		xj_str(o, "ifname", h.ifname);
		xj_int(o, "ifindex", h.ifindex);
		xj_str(o, "state_dir", h.dir);
		xj_u64(o, "prog_id", pinfo.id);
		xj_str(o, "mode", mode);
		xj_str(o, "version", build.version);
		xj_u64(o, "upgrades", build.upgrades);
		xj_str(o, "upgraded_from", build.previous);
		xj_u64(o, "xlated_insns", pinfo.xlated_prog_len / 8);
		xj_u64(o, "verified_insns", pinfo.verified_insns);
		xj_str(o, "algo", xs_name_of(xs_algo_names, pool.hdr.algo));
		xj_u64(o, "hand_size", pool.hdr.hand_size);
		xj_u64(o, "slots", pool.hdr.n_buckets);
		snprintf(digest, sizeof(digest), "%08x", pool.hdr.digest);
		xj_str(o, "digest", digest);
		/* The seed is a secret; its digest tells hosts with the same one. */
		snprintf(digest, sizeof(digest), "%08x", xs_seed_digest(pool.hdr.seed));
		xj_str(o, "seed_digest", digest);
		xj_str(o, "hash_fields", fields);
		xj_str(o, "hand_fields", hfields);
		xj_u64(o, "flow_table_size", flow_entries);
		xj_u64(o, "flow_cache_slots", cache_slots);
		xj_dbl(o, "tcp_timeout_s", xs_ticks_s(self.timeouts.tcp), "%.2f");
		xj_dbl(o, "fin_timeout_s", xs_ticks_s(self.timeouts.fin), "%.2f");
		xj_dbl(o, "udp_timeout_s", xs_ticks_s(self.timeouts.udp), "%.2f");
		xj_push(arr, o);
	} else {
		printf("%s: prog id %u (%s mode, %u insns, %u verified), algo %s", h.ifname,
		       pinfo.id, mode, pinfo.xlated_prog_len / 8, pinfo.verified_insns,
		       xs_name_of(xs_algo_names, pool.hdr.algo));
		if (pool.hdr.algo == XS_ALGO_SHUFFLE)
			printf(" (hand %u, hand fields %s)", pool.hdr.hand_size, hfields);
		printf(", %u slots, digest %08x\n", pool.hdr.n_buckets, pool.hdr.digest);
		printf("  hash fields %s, seed digest %08x\n", fields, xs_seed_digest(pool.hdr.seed));
		if (table_off)
			printf("  flow table off (--flow-table-size 0): no pins, every packet "
			       "decided\n");
		else
			printf("  flow table %u entries, flow cache %u slots per CPU\n",
			       flow_entries, cache_slots);
		printf("  idle timeouts: tcp %.2fs, after FIN/RST %.2fs, udp and other %.2fs\n",
		       xs_ticks_s(self.timeouts.tcp), xs_ticks_s(self.timeouts.fin),
		       xs_ticks_s(self.timeouts.udp));
		printf("  version %s", build.version);
		if (build.upgrades)
			printf(", %u upgrade%s, last from %s", build.upgrades,
			       build.upgrades == 1 ? "" : "s", build.previous);
		printf("\n  state in %s\n", h.dir);
	}
out_pool:
	xs_pool_free(&pool);
out:
	xs_close(&h);
	return err;
}

int xs_cmd_status(const struct xs_args *a)
{
	xs_json *arr = xs_flag(a, XS_OPT_JSON) ? xj_arr() : NULL;
	char root[PATH_MAX];
	struct dirent *de;
	int err = 0, n = 0, hidden = 0;
	DIR *d;

	if (a->npos == 1) {
		err = xs_status_one(a->pos[0], arr);
		goto out;
	}
	err = xs_check_env() ?: xs_pins_root(root, sizeof(root));
	if (err)
		goto out;
	d = opendir(root);
	while (d && (de = readdir(d))) {
		/* netns:COOKIE holds other namespaces' attachments: not ours to show. */
		if (de->d_name[0] == '.' || strchr(de->d_name, ':') || !xs_is_attached(de->d_name))
			continue;
		if (!if_nametoindex(de->d_name)) {
			if (!arr)
				printf("%s: pinned in %s/%s, but no such interface in this network "
				       "namespace (deleted: xdpsteer detach %s cleans up)\n",
				       de->d_name, root, de->d_name, de->d_name);
			hidden++;
			continue;
		}
		if (xs_status_one(de->d_name, arr))
			err = -EIO;
		n++;
	}
	if (d)
		closedir(d);
	if (!arr && !n && !hidden)
		printf("xdpsteer is not attached to any interface\n");
out:
	/* JSON: the whole array, or nothing when any interface failed (said on stderr). */
	if (arr && !err)
		return xs_json_print(a, arr);
	xs_json_drop(arr);
	return err;
}
