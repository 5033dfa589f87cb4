// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The keys of each object (spec.h): one table per object serves the
 * command's options, the file's keys and the help of both, and one setter
 * per object parses every key. A value a command refuses, a file refuses
 * with the same words.
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

const struct xs_key xs_settings_keys[] = {
	{ "seed", "HEX", "128-bit hash key as 32 hex digits (default: random at attach)" },
	{ "algo", "jump|shuffle", "the queue pool's selection algorithm (default jump)" },
	{ "hand-size", "H", "shuffle: cards per hand, 1-15 (default " XS_XSTR(XS_DEFAULT_HAND) ")" },
	{ "hash-fields", "LIST", "flow hash fields (default src,dst,sport,dport,proto)" },
	{ "hand-fields", "LIST", "shuffle: fields that deal the hand (default src)" },
	{ "slot-count", "N", "the queue pool's slots, holes included (default: as needed)" },
	{ "seed-file", "PATH", "read the seed from PATH (root's, not readable by others)" },
	{ 0 },
};

const struct xs_key xs_target_keys[] = {
	{ "qsize", "Q", "cpu: cpumap queue size in frames, 1-" XS_XSTR(XS_MAX_QSIZE)
			" (default " XS_XSTR(XS_DEFAULT_QSIZE) ")" },
	{ "drain", NULL, "added draining: in no slot, takes no new flows" },
	{ "id", "N", "dev: its target id (as show prints it; default: chosen)" },
	{ "slots", "LIST", "the slot it holds, as show prints it (default: chosen)" },
	{ 0 },
};

const struct xs_key xs_service_keys[] = {
	{ "algo", "jump|shuffle", "selection algorithm (default jump)" },
	{ "hand-size", "H", "shuffle: cards per hand, 1-15 (default " XS_XSTR(XS_DEFAULT_HAND) ")" },
	{ "encap", "ipip|l2|gue", "delivery: IP-in-IP tunnel, L2 DSR or GUE over UDP (default ipip)" },
	{ "tunnel-src", "CIDR", "ipip, gue: outer IPv4 source prefix (default " XS_DEFAULT_TUNNEL_SRC4 ")" },
	{ "tunnel-src6", "CIDR", "ipip, gue: outer IPv6 source prefix (default " XS_DEFAULT_TUNNEL_SRC6 ")" },
	{ "slot-count", "N", "its pool's slots, holes included (default: as needed)" },
	{ "hash-fields", "LIST", "its flow hash fields, e.g. dport (default: the interface's)" },
	{ "quic", "on|off", "udp: route short-header QUIC by the server id in its connection id "
			    "(default off)" },
	{ "second-chance", "on|off", "gue: a backend without the connection sends it on to the "
				     "backend before the last change (default off)" },
	{ "second-chance-window", "DURATION", "how long after a change that lasts (default "
					      XS_XSTR(XS_DEFAULT_CHANCE_WINDOW_S) "s)" },
	XS_CHECK_KEYS,
	{ 0 },
};

/*
 * Where the check's keys start in xs_service_keys: the keys before them are
 * the switch in xs_service_spec_set(), checked at its first call.
 */
#define XS_CHECK_KEY0 10

const struct xs_key xs_backend_keys[] = {
	{ "weight", "W", "share of new flows, 1-" XS_XSTR(XS_MAX_WEIGHT) " (default 1): W slots" },
	{ "drain", NULL, "added draining: in no slot, takes no new flows" },
	{ "id", "N", "its target id (as show prints it; default: chosen)" },
	{ "slots", "LIST", "the slots it holds, as show prints it (default: chosen)" },
	{ 0 },
};

/* "3" or "0,7,12": slot numbers, each at most once, at most XS_MAX_WEIGHT of them. */
static int xs_parse_slots(const char *s, struct xs_place *p)
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

static int xs_parse_slot_count(const char *s, __u32 *n)
{
	return xs_parse_u32(s, "slot-count", 1, XS_MAX_BUCKETS, n);
}

/* Index of @key in @keys; -EINVAL printed for a key the object does not have. */
static int xs_key_index(const struct xs_key *keys, const char *what, const char *key,
			const char *val)
{
	struct xs_suggest sg;
	char hint[96];
	int i;

	xs_suggest_init(&sg, key, strlen(key));
	for (i = 0; keys[i].name; i++) {
		xs_suggest_add(&sg, keys[i].name, strlen(keys[i].name));
		if (strcmp(keys[i].name, key))
			continue;
		if (!keys[i].arg != !val) {
			pr_warn("%s: '%s' %s\n", what, key, val ? "takes no value" : "needs a value");
			return -EINVAL;
		}
		return i;
	}
	pr_warn("%s: unknown key '%s'%s\n", what, key, xs_suggest_hint(&sg, NULL, hint, sizeof(hint)));
	return -EINVAL;
}

static int xs_parse_hand(const char *s, __u8 *hand)
{
	__u32 u;

	/* 15 is the largest hand any N allows within 60 bits (N = 15 or 16). */
	if (xs_parse_u32(s, "hand-size", 1, XS_MAX_HAND - 1, &u))
		return -EINVAL;
	*hand = (__u8)u;
	return 0;
}

static int xs_parse_algo(const char *s, __u8 *algo)
{
	unsigned int v;

	if (xs_name_parse(xs_algo_names, s, "algo", &v))
		return -EINVAL;
	*algo = (__u8)v;
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

int xs_settings_set(struct xs_settings *s, const char *key, const char *val)
{
	switch (xs_key_index(xs_settings_keys, "setting", key, val)) {
	case 0:
		s->has_seed = true;
		if (!strcmp(val, "random")) {
			if (getrandom(s->seed, sizeof(s->seed), 0) == sizeof(s->seed))
				return 0;
			pr_warn("seed: cannot draw a random seed: %s\n", strerror(errno));
			return -EIO;
		}
		return xs_parse_seed(val, s->seed);
	case 1:
		return xs_parse_algo(val, &s->algo);
	case 2:
		return xs_parse_hand(val, &s->hand_size);
	case 3:
		return xs_parse_fields(val, "hash-fields", &s->flow_fields);
	case 4:
		return xs_parse_fields(val, "hand-fields", &s->hand_fields);
	case 5:
		return xs_parse_slot_count(val, &s->slot_count);
	case 6:
		s->has_seed = true;
		return xs_read_seed_file(val, s->seed);
	default:
		return -EINVAL;
	}
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

int xs_target_spec_set(struct xs_target_spec *s, const char *key, const char *val)
{
	switch (xs_key_index(xs_target_keys, "target", key, val)) {
	case 0:
		if (s->t.kind != XS_TARGET_CPU) {
			pr_warn("target dev %s: qsize applies to cpu targets only\n", s->ifname);
			return -EINVAL;
		}
		return xs_parse_u32(val, "qsize", 1, XS_MAX_QSIZE, &s->t.qsize);
	case 1:
		s->drain = true;
		return 0;
	case 2:
		if (s->t.kind != XS_TARGET_DEV) {
			pr_warn("target cpu %u: id applies to dev targets only (a cpu's id is the "
				"cpu)\n", s->t.cpu);
			return -EINVAL;
		}
		return xs_parse_u32(val, "id", XS_DEV_BASE, XS_BACKEND_BASE - 1, &s->place.id);
	case 3:
		if (xs_parse_slots(val, &s->place))
			return -EINVAL;
		if (s->place.n_slots > 1) {
			pr_warn("slots: a target holds one slot, not %u\n", s->place.n_slots);
			return -EINVAL;
		}
		return 0;
	default:
		return -EINVAL;
	}
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

int xs_service_spec_set(struct xs_service_spec *s, const char *key, const char *val)
{
	int k = xs_key_index(xs_service_keys, "service", key, val);
	unsigned int v;
	__u64 ms;

	/* A key added before the check's without moving XS_CHECK_KEY0 would land in the check. */
	if (strcmp(xs_service_keys[XS_CHECK_KEY0].name, "check")) {
		pr_warn("internal: xs_service_keys[%d] is '%s', not 'check'\n", XS_CHECK_KEY0,
			xs_service_keys[XS_CHECK_KEY0].name);
		return -EINVAL;
	}
	if (k >= XS_CHECK_KEY0)
		return xs_check_set(&s->check, &s->check_given, k - XS_CHECK_KEY0, val);
	switch (k) {
	case 0:
		return xs_parse_algo(val, &s->algo);
	case 1:
		return xs_parse_hand(val, &s->hand_size);
	case 2:
		if (xs_name_parse(xs_encap_names, val, "encap", &v))
			return -EINVAL;
		s->svc.encap = (__u8)v;
		return 0;
	case 3:
		return xs_parse_cidr(val, AF_INET, &s->svc.src4, &s->svc.src4_bits);
	case 4:
		return xs_parse_cidr(val, AF_INET6, s->svc.src6, &s->svc.src6_bits);
	case 5:
		return xs_parse_slot_count(val, &s->slot_count);
	case 6:
		return xs_parse_fields(val, "hash-fields", &s->flow_fields);
	case 7:
		if (xs_name_parse(xs_onoff_names, val, "quic", &v))
			return -EINVAL;
		if (v && s->key.proto != XS_IPPROTO_UDP) {
			pr_warn("quic: applies to udp services only\n");
			return -EINVAL;
		}
		s->svc.quic = (__u8)v;
		return 0;
	case 8:
		if (xs_name_parse(xs_onoff_names, val, "second-chance", &v))
			return -EINVAL;
		s->svc.second_chance = (__u8)v;
		return 0;
	case 9:
		if (xs_parse_duration(val, "second-chance-window", 1000,
				      XS_MAX_CHANCE_WINDOW_S * 1000ULL, &ms))
			return -EINVAL;
		s->svc.chance_window_s = (__u32)(ms / 1000);
		return 0;
	default:
		return -EINVAL;
	}
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

int xs_backend_spec_set(struct xs_backend_spec *s, const char *key, const char *val)
{
	__u32 w;

	switch (xs_key_index(xs_backend_keys, "backend", key, val)) {
	case 0:
		if (xs_parse_u32(val, "weight", 1, XS_MAX_WEIGHT, &w))
			return -EINVAL;
		s->t.weight = (__u16)w;
		s->weight_set = true;
		return 0;
	case 1:
		s->drain = true;
		return 0;
	case 2:
		return xs_parse_u32(val, "id", XS_BACKEND_BASE, XS_MAX_TARGETS - 1, &s->place.id);
	case 3:
		return xs_parse_slots(val, &s->place);
	default:
		return -EINVAL;
	}
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
