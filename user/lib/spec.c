// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The keys of each object (spec.h): one table per object binds each key to
 * the field it sets (key.h), and serves the command's options, the file's
 * keys, their help, `show` and the comparisons. A key whose kind is not
 * rule enough has a setter below. A value a command refuses, a file
 * refuses with the same words.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/random.h>
#include <arpa/inet.h>
#include "check.h"
#include "log.h"
#include "spec.h"
#include "names.h"
#include "parse.h"
#include "service.h"
#include "suggest.h"
#include "target.h"
#include "xs_shuffle.h"

static int xs_set_seed(void *spec, const struct xs_key *k, const char *val);
static int xs_set_seed_file(void *spec, const struct xs_key *k, const char *val);
static int xs_set_qsize(void *spec, const struct xs_key *k, const char *val);
static int xs_set_target_id(void *spec, const struct xs_key *k, const char *val);
static int xs_set_target_slots(void *spec, const struct xs_key *k, const char *val);
static int xs_set_quic(void *spec, const struct xs_key *k, const char *val);
static int xs_set_check(void *spec, const struct xs_key *k, const char *val);
static int xs_set_weight(void *spec, const struct xs_key *k, const char *val);

/* A place's slot list: its count and slots, not its id (the id key's). */
#define XS_KEY_SLOTS(T) .kind = XS_KK_SLOTS, .off = offsetof(T, place.n_slots), \
	.size = sizeof(struct xs_place) - offsetof(struct xs_place, n_slots), \
	.show = XS_SHOW_SET, .json = XS_JSON_ALWAYS
/* A place's id: XS_NO_TARGET when the commit picks it, and then not printed. */
#define XS_KEY_ID(T, lo, hi) .kind = XS_KK_UINT, XS_KEY_FIELD(T, place.id), .min = (lo), \
	.max = (hi), .show = XS_SHOW_SET, .json = XS_JSON_SET, .none = XS_NO_TARGET

#define SET(m) XS_KEY_FIELD(struct xs_settings, m)
const struct xs_key xs_settings_keys[] = {
	XS_KEY("seed", "HEX", "128-bit hash key as 32 hex digits (default: random at attach)",
	       .kind = XS_KK_SEED, SET(seed), .set = xs_set_seed, .show = XS_SHOW_NEVER,
	       .json = XS_JSON_ALWAYS, .example = "00112233445566778899aabbccddeeff"),
	XS_KEY("algo", "jump|shuffle", "the queue pool's selection algorithm (default jump)",
	       .kind = XS_KK_NAME, SET(algo), .names = xs_algo_names, .json = XS_JSON_ALWAYS,
	       .example = "shuffle"),
	XS_KEY("hand-size", "H",
	       "shuffle: cards per hand, 1-15 (default " XS_XSTR(XS_DEFAULT_HAND) ")",
	       .kind = XS_KK_UINT, SET(hand_size), .min = 1, .max = XS_MAX_HAND - 1,
	       .json = XS_JSON_ALWAYS, .example = "3"),
	XS_KEY("hash-fields", "LIST", "flow hash fields (default src,dst,sport,dport,proto)",
	       .kind = XS_KK_FIELDS, SET(flow_fields), .json = XS_JSON_ALWAYS,
	       .example = "src,dport"),
	XS_KEY("hand-fields", "LIST", "shuffle: fields that deal the hand (default src)",
	       .kind = XS_KK_FIELDS, SET(hand_fields), .json = XS_JSON_ALWAYS, .example = "dst"),
	XS_KEY("slot-count", "N", "the queue pool's slots, holes included (default: as needed)",
	       .kind = XS_KK_UINT, SET(slot_count), .min = 1, .max = XS_MAX_BUCKETS,
	       .show = XS_SHOW_SET, .json = XS_JSON_ALWAYS, .example = "64"),
	XS_KEY("seed-file", "PATH", "read the seed from PATH (root's, not readable by others)",
	       .set = xs_set_seed_file, .show = XS_SHOW_NEVER),
	{ .opt = { NULL } },
};
#undef SET

#define TGT(m) XS_KEY_FIELD(struct xs_target_spec, m)
const struct xs_key xs_target_keys[] = {
	XS_KEY("qsize", "Q", "cpu: cpumap queue size in frames, 1-" XS_XSTR(XS_MAX_QSIZE)
			     " (default " XS_XSTR(XS_DEFAULT_QSIZE) ")",
	       .kind = XS_KK_UINT, TGT(t.qsize), .min = 1, .max = XS_MAX_QSIZE,
	       .set = xs_set_qsize, .show = XS_SHOW_SET, .json = XS_JSON_SET, .example = "512"),
	XS_KEY("drain", NULL, "added draining: in no slot, takes no new flows",
	       .kind = XS_KK_FLAG, TGT(drain), .show = XS_SHOW_LATE, .json = XS_JSON_ALWAYS),
	XS_KEY("id", "N", "dev: its target id (as show prints it; default: chosen)",
	       XS_KEY_ID(struct xs_target_spec, XS_DEV_BASE, XS_BACKEND_BASE - 1),
	       .set = xs_set_target_id, .example = "130"),
	XS_KEY("slots", "LIST", "the slot it holds, as show prints it (default: chosen)",
	       XS_KEY_SLOTS(struct xs_target_spec), .set = xs_set_target_slots, .example = "7"),
	{ .opt = { NULL } },
};
#undef TGT

#define SVC(m) XS_KEY_FIELD(struct xs_service_spec, m)
#define SVC_BITS(m) .off2 = offsetof(struct xs_service_spec, m)
#define ONOFF .kind = XS_KK_NAME, .names = xs_onoff_names, .show = XS_SHOW_SET, .example = "on"
/* Key order is help's; show prints them in it, XS_SHOW_LATE ones last. */
const struct xs_key xs_service_keys[] = {
	XS_KEY("algo", "jump|shuffle", "selection algorithm (default jump)",
	       .kind = XS_KK_NAME, SVC(algo), .names = xs_algo_names, .json = XS_JSON_ALWAYS,
	       .example = "shuffle"),
	XS_KEY("hand-size", "H",
	       "shuffle: cards per hand, 1-15 (default " XS_XSTR(XS_DEFAULT_HAND) ")",
	       .kind = XS_KK_UINT, SVC(hand_size), .min = 1, .max = XS_MAX_HAND - 1,
	       .json = XS_JSON_ALWAYS, .example = "5"),
	XS_KEY("encap", "ipip|l2|gue",
	       "delivery: IP-in-IP tunnel, L2 DSR or GUE over UDP (default ipip)",
	       .kind = XS_KK_NAME, SVC(svc.encap), .names = xs_encap_names,
	       .json = XS_JSON_ALWAYS, .example = "gue"),
	XS_KEY("tunnel-src", "CIDR",
	       "ipip, gue: outer IPv4 source prefix (default " XS_DEFAULT_TUNNEL_SRC4 ")",
	       .kind = XS_KK_CIDR4, SVC(svc.src4), SVC_BITS(svc.src4_bits),
	       .json = XS_JSON_ALWAYS, .example = "10.9.0.0/24"),
	XS_KEY("tunnel-src6", "CIDR",
	       "ipip, gue: outer IPv6 source prefix (default " XS_DEFAULT_TUNNEL_SRC6 ")",
	       .kind = XS_KK_CIDR6, SVC(svc.src6), SVC_BITS(svc.src6_bits),
	       .json = XS_JSON_ALWAYS, .example = "fd00:9::/112"),
	XS_KEY("slot-count", "N", "its pool's slots, holes included (default: as needed)",
	       .kind = XS_KK_UINT, SVC(slot_count), .min = 1, .max = XS_MAX_BUCKETS,
	       .show = XS_SHOW_SET, .json = XS_JSON_ALWAYS, .example = "128"),
	XS_KEY("hash-fields", "LIST", "its flow hash fields, e.g. dport (default: the interface's)",
	       .kind = XS_KK_FIELDS, SVC(flow_fields), .show = XS_SHOW_LATE, .example = "dport"),
	XS_KEY("quic", "on|off",
	       "udp: route short-header QUIC by the server id in its connection id (default off)",
	       SVC(svc.quic), .set = xs_set_quic, ONOFF),
	XS_KEY("second-chance", "on|off", "gue: a backend without the connection sends it on to "
					  "the backend before the last change (default off)",
	       SVC(svc.second_chance), ONOFF),
	XS_KEY("second-chance-window", "DURATION", "how long after a change that lasts (default "
						   XS_XSTR(XS_DEFAULT_CHANCE_WINDOW_S) "s)",
	       .kind = XS_KK_SECONDS, SVC(svc.chance_window_s), .min = 1,
	       .max = XS_MAX_CHANCE_WINDOW_S, .show = XS_SHOW_WITH_PREV, .example = "90s"),
	/* The check's keys: its own setter, and one printer for them all (check.c). */
	XS_CHECK_KEYS(.set = xs_set_check, .show = XS_SHOW_NEVER),
	{ .opt = { NULL } },
};
#undef ONOFF
#undef SVC_BITS
#undef SVC

#define BE(m) XS_KEY_FIELD(struct xs_backend_spec, m)
const struct xs_key xs_backend_keys[] = {
	XS_KEY("weight", "W",
	       "share of new flows, 1-" XS_XSTR(XS_MAX_WEIGHT) " (default 1): W slots",
	       .kind = XS_KK_UINT, BE(t.weight), .min = 1, .max = XS_MAX_WEIGHT,
	       .set = xs_set_weight, .json = XS_JSON_ALWAYS, .example = "3"),
	XS_KEY("drain", NULL, "added draining: in no slot, takes no new flows",
	       .kind = XS_KK_FLAG, BE(drain), .show = XS_SHOW_LATE, .json = XS_JSON_ALWAYS),
	XS_KEY("id", "N", "its target id (as show prints it; default: chosen)",
	       XS_KEY_ID(struct xs_backend_spec, XS_BACKEND_BASE, XS_MAX_TARGETS - 1),
	       .example = "400"),
	XS_KEY("slots", "LIST", "the slots it holds, as show prints it (default: chosen)",
	       XS_KEY_SLOTS(struct xs_backend_spec), .example = "0,7,12"),
	{ .opt = { NULL } },
};
#undef BE

/* "3" or "0,7,12": slot numbers, each at most once, at most XS_MAX_WEIGHT of them. */
int xs_parse_slots(const char *s, struct xs_place *p)
{
	char buf[XS_MAX_WEIGHT * 8], *tok, *save = NULL;
	__u32 v, i;

	p->n_slots = 0;
	if (strlen(s) >= sizeof(buf)) {
		pr_warn("slots: more than %u slots\n", XS_MAX_WEIGHT);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (xs_parse_u32(tok, "slots", 0, XS_MAX_BUCKETS - 1, &v))
			return -EINVAL;
		for (i = 0; i < p->n_slots; i++) {
			if (p->slots[i] == v) {
				pr_warn("slots: %u is listed twice\n", v);
				return -EINVAL;
			}
		}
		if (p->n_slots == XS_MAX_WEIGHT) {
			pr_warn("slots: more than %u slots\n", XS_MAX_WEIGHT);
			return -EINVAL;
		}
		p->slots[p->n_slots++] = v;
	}
	if (!p->n_slots) {
		pr_warn("slots: '%s' lists no slot\n", s);
		return -EINVAL;
	}
	return 0;
}

/*
 * The seed is a secret: whoever knows it can aim flows at one backend. A
 * file that holds it must be root's and readable by nobody else.
 */
int xs_check_secret_file(const char *path, const struct stat *st)
{
	if (st->st_uid != 0) {
		pr_warn("%s holds the hash seed, a secret, but is not owned by root "
			"(chown root %s)\n", path, path);
		return -EPERM;
	}
	if (st->st_mode & 077) {
		pr_warn("%s holds the hash seed, a secret, but group or others may read it "
			"(chmod 600 %s)\n", path, path);
		return -EPERM;
	}
	return 0;
}

/* seed-file PATH: 32 hex digits (and a newline) in a file only root may read. */
static int xs_read_seed_file(const char *path, __u64 seed[2])
{
	char buf[80];
	struct stat st;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		pr_warn("seed-file: cannot open %s: %s\n", path, strerror(errno));
		return -errno;
	}
	err = fstat(fd, &st) ? -errno : !S_ISREG(st.st_mode) ? -EINVAL : 0;
	if (err)
		pr_warn("seed-file: %s is not a regular file\n", path);
	err = err ?: xs_check_secret_file(path, &st);
	n = err ? 0 : read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (err)
		return err;
	if (n < 0 || n >= (ssize_t)sizeof(buf) - 1) {
		pr_warn("seed-file: %s: want 32 hex digits\n", path);
		return -EINVAL;
	}
	buf[n] = 0;
	buf[strcspn(buf, "\r\n")] = 0;
	return xs_parse_seed(buf, seed);
}

void xs_settings_init(struct xs_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->algo = XS_DEFAULT_ALGO;
	s->hand_size = XS_DEFAULT_HAND;
	s->flow_fields = XS_F_DEFAULT_FLOW;
	s->hand_fields = XS_F_DEFAULT_HAND;
}

static int xs_set_seed(void *spec, const struct xs_key *k, const char *val)
{
	struct xs_settings *s = spec;

	s->has_seed = true;
	if (strcmp(val, "random"))
		return xs_key_parse(k, spec, val);
	if (getrandom(s->seed, sizeof(s->seed), 0) == sizeof(s->seed))
		return 0;
	pr_warn("seed: cannot draw a random seed: %s\n", strerror(errno));
	return -EIO;
}

static int xs_set_seed_file(void *spec, const struct xs_key *k, const char *val)
{
	struct xs_settings *s = spec;

	s->has_seed = true;
	return xs_read_seed_file(val, s->seed);
}

int xs_settings_set(struct xs_settings *s, const char *key, const char *val)
{
	return xs_key_set(xs_settings_keys, "setting", s, key, val);
}

int xs_target_spec_init(struct xs_target_spec *s, const char *kind, const char *val,
			int nr_cpus)
{
	unsigned int k;
	int ifindex;

	/* Not the slot array: n_slots says how much of it counts (it is 1 KiB). */
	memset(s, 0, offsetof(struct xs_target_spec, place.slots));
	s->place.id = XS_NO_TARGET;
	if (xs_name_parse(xs_queue_kind_names, kind, "target", &k))
		return -EINVAL;
	s->t.kind = k;
	if (k == XS_TARGET_CPU) {
		if (xs_parse_u32(val, "cpu", 0, XS_MAX_CPUS - 1, &s->t.cpu))
			return -EINVAL;
		if ((int)s->t.cpu >= nr_cpus || !xs_cpu_online(s->t.cpu)) {
			pr_warn("cpu %u does not exist or is offline on this host (online CPUs are "
				"listed in /sys/devices/system/cpu/online)\n", s->t.cpu);
			return -EINVAL;
		}
		s->t.qsize = XS_DEFAULT_QSIZE;
		return 0;
	}
	ifindex = xs_ifindex(val);
	if (ifindex < 0)
		return ifindex;
	s->t.ifindex = (__u32)ifindex;
	snprintf(s->ifname, sizeof(s->ifname), "%s", val);
	return 0;
}

static int xs_set_qsize(void *spec, const struct xs_key *k, const char *val)
{
	struct xs_target_spec *s = spec;

	if (s->t.kind != XS_TARGET_CPU) {
		pr_warn("target dev %s: qsize applies to cpu targets only\n", s->ifname);
		return -EINVAL;
	}
	return xs_key_parse(k, spec, val);
}

static int xs_set_target_id(void *spec, const struct xs_key *k, const char *val)
{
	struct xs_target_spec *s = spec;

	if (s->t.kind != XS_TARGET_DEV) {
		pr_warn("target cpu %u: id applies to dev targets only (a cpu's id is the "
			"cpu)\n", s->t.cpu);
		return -EINVAL;
	}
	return xs_key_parse(k, spec, val);
}

static int xs_set_target_slots(void *spec, const struct xs_key *k, const char *val)
{
	struct xs_target_spec *s = spec;

	if (xs_key_parse(k, spec, val))
		return -EINVAL;
	if (s->place.n_slots > 1) {
		pr_warn("slots: a target holds one slot, not %u\n", s->place.n_slots);
		return -EINVAL;
	}
	return 0;
}

int xs_target_spec_set(struct xs_target_spec *s, const char *key, const char *val)
{
	return xs_key_set(xs_target_keys, "target", s, key, val);
}

int xs_service_spec_init(struct xs_service_spec *s, const char *service)
{
	memset(s, 0, sizeof(*s));
	s->algo = XS_DEFAULT_ALGO;
	s->hand_size = XS_DEFAULT_HAND;
	s->svc.encap = XS_DEFAULT_ENCAP;
	xs_check_init(&s->check);
	s->svc.chance_window_s = XS_DEFAULT_CHANCE_WINDOW_S;
	return xs_parse_service(service, &s->key) ?:
	       xs_parse_cidr(XS_DEFAULT_TUNNEL_SRC4, AF_INET, &s->svc.src4, &s->svc.src4_bits) ?:
	       xs_parse_cidr(XS_DEFAULT_TUNNEL_SRC6, AF_INET6, s->svc.src6, &s->svc.src6_bits);
}

static int xs_set_quic(void *spec, const struct xs_key *k, const char *val)
{
	struct xs_service_spec *s = spec;

	if (xs_key_parse(k, spec, val))
		return -EINVAL;
	if (s->svc.quic && s->key.proto != XS_IPPROTO_UDP) {
		s->svc.quic = 0;
		pr_warn("quic: applies to udp services only\n");
		return -EINVAL;
	}
	return 0;
}

/* The check's keys by their place in XS_CHECK_KEYS, which xs_check_set() numbers. */
static const struct xs_key xs_check_order[] = { XS_CHECK_KEYS() };

static int xs_set_check(void *spec, const struct xs_key *k, const char *val)
{
	struct xs_service_spec *s = spec;
	int i;

	for (i = 0; i < XS_CHECK_NKEYS && strcmp(xs_check_order[i].opt.name, k->opt.name); i++)
		;
	return xs_check_set(&s->check, &s->check_given, i, val);
}

int xs_service_spec_set(struct xs_service_spec *s, const char *key, const char *val)
{
	return xs_key_set(xs_service_keys, "service", s, key, val);
}

int xs_backend_spec_init(struct xs_backend_spec *s, const char *service, const char *addr)
{
	/* Not the slot array: n_slots says how much of it counts (it is 1 KiB). */
	memset(s, 0, offsetof(struct xs_backend_spec, place.slots));
	if (xs_parse_service(service, &s->service) || xs_parse_backend(addr, &s->t))
		return -EINVAL;
	s->t.weight = XS_DEFAULT_WEIGHT;
	s->place.id = XS_NO_TARGET;
	return 0;
}

static int xs_set_weight(void *spec, const struct xs_key *k, const char *val)
{
	struct xs_backend_spec *s = spec;

	s->weight_set = true;
	return xs_key_parse(k, spec, val);
}

int xs_backend_spec_set(struct xs_backend_spec *s, const char *key, const char *val)
{
	return xs_key_set(xs_backend_keys, "backend", s, key, val);
}

int xs_settings_key(void *spec, const char *key, const char *val)
{
	return xs_settings_set(spec, key, val);
}

int xs_target_key(void *spec, const char *key, const char *val)
{
	return xs_target_spec_set(spec, key, val);
}

int xs_service_key(void *spec, const char *key, const char *val)
{
	return xs_service_spec_set(spec, key, val);
}

int xs_backend_key(void *spec, const char *key, const char *val)
{
	return xs_backend_spec_set(spec, key, val);
}
