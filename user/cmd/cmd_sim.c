// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* sim resize, sim isolation: option parsing and output; no root, no interface. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "commands.h"
#include "json.h"
#include "log.h"
#include "sim.h"
#include "xs_shuffle.h"

static int sim_format(const struct xs_args *a, enum xs_sim_format *fmt)
{
	if (xs_flag(a, XS_OPT_CSV) && xs_flag(a, XS_OPT_JSON)) {
		pr_warn("%s: --csv and --json exclude each other\n", a->cmd->words);
		return -EINVAL;
	}
	*fmt = xs_flag(a, XS_OPT_CSV)  ? XS_SIM_CSV :
	       xs_flag(a, XS_OPT_JSON) ? XS_SIM_JSON : XS_SIM_TEXT;
	return 0;
}

/*
 * The results, printed once the run and the plot are done: a failure prints
 * nothing on stdout. JSON goes through json-c, which checks it and pretty-
 * prints it for --pretty.
 */
static int sim_output(const struct xs_args *a, enum xs_sim_format fmt, const char *text,
		      size_t len)
{
	xs_json *doc;

	if (fmt != XS_SIM_JSON) {
		if (fwrite(text, 1, len, stdout) != len || fflush(stdout)) {
			pr_warn("cannot write the output: %s\n", strerror(errno));
			return -EIO;
		}
		return 0;
	}
	doc = json_tokener_parse(text);
	if (!doc) {
		pr_warn("%s: the simulator's JSON does not parse\n", a->cmd->words);
		return -EINVAL;
	}
	return xs_json_print(a, doc);
}

/* A result of the simulator: printed into text, drawn if asked, then written out. */
struct sim_result {
	const void *r;
	void (*print)(const void *r, enum xs_sim_format fmt, FILE *f);
	int (*svg)(const void *r, const char *path);
};

static int sim_emit(const struct xs_args *a, enum xs_sim_format fmt, const char *plot,
		    const struct sim_result *res)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int err;

	if (!out)
		return -ENOMEM;
	res->print(res->r, fmt, out);
	err = fclose(out) ? -ENOMEM : 0;
	if (!err && plot)
		err = res->svg(res->r, plot);
	if (!err)
		err = sim_output(a, fmt, text, len);
	free(text);
	return err;
}

static void sim_resize_print(const void *r, enum xs_sim_format fmt, FILE *f)
{
	xs_sim_resize_print(r, fmt, f);
}

static int sim_resize_svg(const void *r, const char *path)
{
	return xs_sim_resize_svg(r, path);
}

static void sim_iso_print(const void *r, enum xs_sim_format fmt, FILE *f)
{
	xs_iso_print(r, fmt, f);
}

static int sim_iso_svg(const void *r, const char *path)
{
	return xs_iso_svg(r, path);
}

/* An optional --name value, left at its default when absent. */
static int opt_u32(const struct xs_args *a, enum xs_opt_id id, __u32 min, __u32 max, __u32 *out)
{
	const char *s = xs_arg(a, id);
	char what[40];

	if (!s)
		return 0;
	snprintf(what, sizeof(what), "--%s", xs_opt_names[id]);
	return xs_parse_u32(s, what, min, max, out);
}

int xs_cmd_sim_resize(const struct xs_args *a)
{
	struct xs_sim_resize_opts o = {
		.keys = 1000000, .from = 20, .to = 21, .remove = XS_NO_TARGET, .check_every = 100,
	};
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	const char *plot = xs_arg(a, XS_OPT_PLOT);
	enum xs_sim_format fmt;
	struct xs_sim_resize *r;
	int err;

	if (sim_format(a, &fmt) || opt_u32(a, XS_OPT_KEYS, 1, 100000000, &o.keys) ||
	    opt_u32(a, XS_OPT_FROM, 1, XS_MAX_TARGETS, &o.from) ||
	    opt_u32(a, XS_OPT_TO, 1, XS_MAX_TARGETS, &o.to) ||
	    opt_u32(a, XS_OPT_REMOVE, 0, XS_MAX_TARGETS - 1, &o.remove) ||
	    opt_u32(a, XS_OPT_CHECK_EVERY, 0, 100000000, &o.check_every))
		return -EINVAL;
	o.threads = cpus > 0 ? (__u32)cpus : 1;
	if (opt_u32(a, XS_OPT_THREADS, 1, 16, &o.threads))
		return -EINVAL;
	if (o.remove != XS_NO_TARGET && (o.remove >= o.from || o.from < 2)) {
		pr_warn("sim resize: --remove %u is not one of the %u shards (0 to %u), or it is "
			"the only one\n", o.remove, o.from, o.from - 1);
		return -EINVAL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	err = xs_sim_resize_run(&o, r) ?:
	      sim_emit(a, fmt, plot,
		       &(struct sim_result){ r, sim_resize_print, sim_resize_svg });
	free(r);
	return err;
}

/* "1,2,4": hand sizes, each checked against the deck by xs_iso_run(). */
static int parse_hands(const char *s, struct xs_iso_opts *o)
{
	char buf[128], *tok, *save = NULL;

	o->nhands = 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nhands >= XS_ISO_MAX_HANDS) {
			pr_warn("--hands: at most %d hand sizes\n", XS_ISO_MAX_HANDS);
			return -EINVAL;
		}
		if (xs_parse_u32(tok, "--hands", 1, XS_MAX_HAND, &o->hands[o->nhands++]))
			return -EINVAL;
	}
	if (!o->nhands) {
		pr_warn("--hands: name at least one hand size, e.g. 1,2,4\n");
		return -EINVAL;
	}
	return 0;
}

int xs_cmd_sim_isolation(const struct xs_args *a)
{
	struct xs_iso_opts o = {
		.tenants = 1000, .queues = 16, .heavy = 4, .ratio = 100,
		.hands = { 1, 2, 3, 4, 6, 8 }, .nhands = 6,
		.events = 1000000, .flow_packets = 16, .util = 0.8, .rng_seed = 1,
	};
	const char *plot = xs_arg(a, XS_OPT_PLOT), *hands = xs_arg(a, XS_OPT_HANDS);
	__u32 load_pct = 80, seed = 1;
	enum xs_sim_format fmt;
	struct xs_iso_result *r;
	int err;

	if (sim_format(a, &fmt) || opt_u32(a, XS_OPT_TENANTS, 2, 10000000, &o.tenants) ||
	    opt_u32(a, XS_OPT_QUEUES, 1, XS_MAX_BUCKETS, &o.queues) ||
	    opt_u32(a, XS_OPT_HEAVY, 0, 10000000, &o.heavy) ||
	    opt_u32(a, XS_OPT_RATIO, 1, 1000000, &o.ratio) ||
	    opt_u32(a, XS_OPT_EVENTS, 1000, 200000000, &o.events) ||
	    opt_u32(a, XS_OPT_FLOW_PACKETS, 1, 1000000, &o.flow_packets) ||
	    opt_u32(a, XS_OPT_LOAD, 1, 99, &load_pct) || opt_u32(a, XS_OPT_SEED, 0, ~0u, &seed) ||
	    (hands && parse_hands(hands, &o)))
		return -EINVAL;
	o.util = load_pct / 100.0;
	o.rng_seed = seed;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	err = xs_iso_run(&o, r) ?:
	      sim_emit(a, fmt, plot, &(struct sim_result){ r, sim_iso_print, sim_iso_svg });
	free(r);
	return err;
}
