// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The configuration file parser. The whole file is read and checked before
 * anyone touches a map, so a mistake anywhere leaves the running state alone.
 * Values go through the CLI's own parsers (their message is captured and
 * prefixed with FILE:LINE), so a file accepts exactly what the commands do.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/stat.h>
#include "parse.h"
#include "config.h"
#include "log.h"
#include "target.h"
#include "xs_shuffle.h"

#define XS_CFG_MAX_TOK 16

void xs_cfg_err(const struct xs_config *c, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: ", c->file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void xs_config_free(struct xs_config *c)
{
	free(c->tgt);
	free(c->svc);
	free(c->be);
	c->tgt = NULL;
	c->svc = NULL;
	c->be = NULL;
	xs_index_free(&c->svc_by_key);
	xs_index_free(&c->be_by_addr);
}

/* Key of be_by_addr: a backend is one address of one service. */
struct xs_cfg_be_key {
	__u32 service;
	__be32 addr[4];
};

static void xs_cfg_be_key(struct xs_cfg_be_key *k, __u32 svc, const __be32 *addr)
{
	memset(k, 0, sizeof(*k));
	k->service = svc;
	memcpy(k->addr, addr, sizeof(k->addr));
}

int xs_cfg_find_backend(const struct xs_config *c, __u32 svc, const __be32 *addr)
{
	struct xs_cfg_be_key k;
	__u32 i;

	xs_cfg_be_key(&k, svc, addr);
	i = xs_index_get(&c->be_by_addr, &k);
	return i == XS_INDEX_NONE ? -1 : (int)i;
}

/* Run one of the CLI's value parsers; on failure report its message at @line. */
#define XS_CFG_PARSE(c, line, call)                                         \
	({                                                                  \
		char __msg[256];                                            \
		int __err;                                                  \
		xs_log_capture(__msg, sizeof(__msg));                       \
		__err = (call);                                             \
		xs_log_capture(NULL, 0);                                    \
		if (__err)                                                  \
			xs_cfg_err(c, line, "%s", __msg);                   \
		__err;                                                      \
	})

static int xs_cfg_algo(const struct xs_config *c, int line, const char *v, __u8 *algo)
{
	if (!strcmp(v, "jump"))
		*algo = XS_ALGO_JUMP;
	else if (!strcmp(v, "shuffle"))
		*algo = XS_ALGO_SHUFFLE;
	else {
		xs_cfg_err(c, line, "algo: '%s' is not jump or shuffle", v);
		return -EINVAL;
	}
	return 0;
}

static int xs_cfg_hand(const struct xs_config *c, int line, const char *v, __u8 *hand)
{
	__u32 u = 0; /* set by the parser; cppcheck cannot see through XS_CFG_PARSE */

	if (XS_CFG_PARSE(c, line, xs_parse_u32(v, "hand-size", 1, XS_MAX_HAND - 1, &u)))
		return -EINVAL;
	*hand = (__u8)u;
	return 0;
}

/*
 * Options after the fixed words: "key value" pairs or flags, each at most once.
 * @keys lists the keys, a trailing '!' marks a flag. Fills @val (NULL: absent).
 */
static int xs_cfg_opts(const struct xs_config *c, int line, const char *what, char **tok,
		       int ntok, const char *const *keys, const char **val)
{
	int i, k;

	for (k = 0; keys[k]; k++)
		val[k] = NULL;
	for (i = 0; i < ntok; i++) {
		for (k = 0; keys[k]; k++)
			if (!strncmp(tok[i], keys[k], strcspn(keys[k], "!")) &&
			    strlen(tok[i]) == strcspn(keys[k], "!"))
				break;
		if (!keys[k]) {
			xs_cfg_err(c, line, "%s: unknown key '%s'", what, tok[i]);
			return -EINVAL;
		}
		if (val[k]) {
			xs_cfg_err(c, line, "%s: '%s' given twice", what, tok[i]);
			return -EINVAL;
		}
		if (strchr(keys[k], '!')) {
			val[k] = "";
			continue;
		}
		if (i + 1 >= ntok) {
			xs_cfg_err(c, line, "%s: '%s' needs a value", what, tok[i]);
			return -EINVAL;
		}
		val[k] = tok[++i];
	}
	return 0;
}

static int xs_cfg_target(struct xs_config *c, int line, char **tok, int ntok, int nr_cpus)
{
	static const char *const keys[] = { "qsize", "drain!", NULL };
	struct xs_cfg_target *ct = &c->tgt[c->n_tgt];
	const char *val[3];
	__u32 i, v;
	int idx;

	memset(ct, 0, sizeof(*ct));
	ct->line = line;
	if (ntok < 3) {
		xs_cfg_err(c, line, "target: want 'target cpu N' or 'target dev IFNAME'");
		return -EINVAL;
	}
	if (xs_cfg_opts(c, line, "target", tok + 3, ntok - 3, keys, val))
		return -EINVAL;
	ct->drain = val[1] != NULL;
	if (!strcmp(tok[1], "cpu")) {
		if (XS_CFG_PARSE(c, line, xs_parse_u32(tok[2], "cpu", 0, XS_MAX_CPUS - 1, &v)))
			return -EINVAL;
		if ((int)v >= nr_cpus || !xs_cpu_online(v)) {
			xs_cfg_err(c, line, "cpu %u does not exist or is offline on this host "
				   "(online CPUs are listed in /sys/devices/system/cpu/online)", v);
			return -EINVAL;
		}
		ct->t.kind = XS_TARGET_CPU;
		ct->t.cpu = v;
		ct->t.qsize = XS_DEFAULT_QSIZE;
		if (val[0] && XS_CFG_PARSE(c, line, xs_parse_u32(val[0], "qsize", 1, XS_MAX_QSIZE,
								 &ct->t.qsize)))
			return -EINVAL;
	} else if (!strcmp(tok[1], "dev")) {
		if (val[0]) {
			xs_cfg_err(c, line, "target dev %s: qsize applies to cpu targets only",
				   tok[2]);
			return -EINVAL;
		}
		if (XS_CFG_PARSE(c, line, (idx = xs_ifindex(tok[2])) < 0 ? idx : 0))
			return -EINVAL;
		ct->t.kind = XS_TARGET_DEV;
		ct->t.ifindex = (__u32)idx;
		snprintf(ct->ifname, sizeof(ct->ifname), "%s", tok[2]);
	} else {
		xs_cfg_err(c, line, "target: '%s' is not cpu or dev", tok[1]);
		return -EINVAL;
	}
	for (i = 0; i < c->n_tgt; i++) {
		const struct xs_target *o = &c->tgt[i].t;

		if (o->kind == ct->t.kind && (o->kind == XS_TARGET_CPU ? o->cpu == ct->t.cpu
								: o->ifindex == ct->t.ifindex)) {
			xs_cfg_err(c, line, "target %s %s is already declared at line %d", tok[1],
				   tok[2], c->tgt[i].line);
			return -EINVAL;
		}
	}
	c->n_tgt++;
	return 0;
}

static int xs_cfg_service(struct xs_config *c, int line, char **tok, int ntok)
{
	static const char *const keys[] = { "algo",	  "hand-size",	 "encap",
					    "tunnel-src", "tunnel-src6", NULL };
	struct xs_cfg_service *cs = &c->svc[c->n_svc];
	const char *val[6];
	char name[80];
	__u32 i;

	memset(cs, 0, sizeof(*cs));
	cs->line = line;
	cs->algo = XS_ALGO_JUMP;
	cs->hand_size = 4;
	if (ntok < 2) {
		xs_cfg_err(c, line, "service: want 'service VIP:PORT/PROTO [key value]...'");
		return -EINVAL;
	}
	if (XS_CFG_PARSE(c, line, xs_parse_service(tok[1], &cs->key)) ||
	    xs_cfg_opts(c, line, "service", tok + 2, ntok - 2, keys, val))
		return -EINVAL;
	if ((val[0] && xs_cfg_algo(c, line, val[0], &cs->algo)) ||
	    (val[1] && xs_cfg_hand(c, line, val[1], &cs->hand_size)))
		return -EINVAL;
	if (!val[2] || !strcmp(val[2], "ipip")) {
		cs->svc.encap = XS_ENCAP_IPIP;
	} else if (!strcmp(val[2], "l2")) {
		cs->svc.encap = XS_ENCAP_L2;
	} else {
		xs_cfg_err(c, line, "service %s: encap '%s' is not ipip or l2", tok[1], val[2]);
		return -EINVAL;
	}
	if (XS_CFG_PARSE(c, line, xs_parse_cidr(val[3] ?: XS_DEFAULT_TUNNEL_SRC4, AF_INET,
						 &cs->svc.src4, &cs->svc.src4_bits)) ||
	    XS_CFG_PARSE(c, line, xs_parse_cidr(val[4] ?: XS_DEFAULT_TUNNEL_SRC6, AF_INET6,
						 cs->svc.src6, &cs->svc.src6_bits)))
		return -EINVAL;
	xs_format_service(&cs->key, name, sizeof(name));
	i = xs_index_get(&c->svc_by_key, &cs->key);
	if (i != XS_INDEX_NONE) {
		xs_cfg_err(c, line, "service %s is already declared at line %d", name,
			   c->svc[i].line);
		return -EINVAL;
	}
	if (xs_addr_is_local(cs->key.vip)) {
		xs_cfg_err(c, line, "service %s: the VIP is an address of this host; a VIP must "
			   "be routed to it, not assigned", name);
		return -EINVAL;
	}
	if (c->n_svc >= XS_MAX_SERVICES) {
		xs_cfg_err(c, line, "service %s: more than %u services", name, XS_MAX_SERVICES);
		return -EINVAL;
	}
	if (xs_index_set(&c->svc_by_key, &cs->key, c->n_svc)) {
		xs_cfg_err(c, line, "service %s: out of memory", name);
		return -ENOMEM;
	}
	c->n_svc++;
	return 0;
}

static int xs_cfg_backend(struct xs_config *c, int line, char **tok, int ntok)
{
	static const char *const keys[] = { "weight", "drain!", NULL };
	struct xs_cfg_backend *cb = &c->be[c->n_be];
	struct xs_service_key key;
	struct xs_cfg_be_key bk;
	const char *val[3];
	__u32 i, w = 1;
	char name[80];
	bool vip_v4;

	memset(cb, 0, sizeof(*cb));
	cb->line = line;
	if (ntok < 3) {
		xs_cfg_err(c, line, "backend: want 'backend VIP:PORT/PROTO IP [weight W] [drain]'");
		return -EINVAL;
	}
	if (XS_CFG_PARSE(c, line, xs_parse_service(tok[1], &key)) ||
	    XS_CFG_PARSE(c, line, xs_parse_backend(tok[2], &cb->t)) ||
	    xs_cfg_opts(c, line, "backend", tok + 3, ntok - 3, keys, val))
		return -EINVAL;
	if (val[0] && XS_CFG_PARSE(c, line, xs_parse_u32(val[0], "weight", 1, XS_MAX_WEIGHT, &w)))
		return -EINVAL;
	cb->t.weight = (__u16)w;
	cb->drain = val[1] != NULL;
	xs_format_service(&key, name, sizeof(name));
	i = xs_index_get(&c->svc_by_key, &key);
	if (i == XS_INDEX_NONE) {
		xs_cfg_err(c, line, "backend %s: service %s is not declared above (add a "
			   "'service %s' line before its backends)", tok[2], name, name);
		return -EINVAL;
	}
	cb->service = i;
	vip_v4 = !key.vip[0] && !key.vip[1] && key.vip[2] == htonl(0xffff);
	if (c->svc[i].svc.encap == XS_ENCAP_IPIP && !vip_v4 && cb->t.family == 4) {
		xs_cfg_err(c, line, "backend %s: %s is IPv6 and the backend IPv4: ipip carries "
			   "IPv6 in IPv6 only; use an IPv6 backend", tok[2], name);
		return -EINVAL;
	}
	xs_cfg_be_key(&bk, cb->service, cb->t.addr);
	i = xs_index_get(&c->be_by_addr, &bk);
	if (i != XS_INDEX_NONE) {
		xs_cfg_err(c, line, "backend %s of %s is already declared at line %d", tok[2],
			   name, c->be[i].line);
		return -EINVAL;
	}
	if (c->n_be >= XS_MAX_BACKENDS) {
		xs_cfg_err(c, line, "backend %s: more than %u backends", tok[2], XS_MAX_BACKENDS);
		return -EINVAL;
	}
	if (xs_index_set(&c->be_by_addr, &bk, c->n_be)) {
		xs_cfg_err(c, line, "backend %s of %s: out of memory", tok[2], name);
		return -ENOMEM;
	}
	c->n_be++;
	return 0;
}

/* A pool setting ("algo jump"): exactly one value, at most once per file. */
static int xs_cfg_setting(struct xs_config *c, int line, char **tok, int ntok, int *seen)
{
	static const char *const names[] = { "seed", "algo", "hand-size", "hash-fields",
					     "hand-fields" };
	int k;

	for (k = 0; strcmp(tok[0], names[k]); k++)
		;
	if (ntok != 2) {
		xs_cfg_err(c, line, "%s: want exactly one value", tok[0]);
		return -EINVAL;
	}
	if (seen[k]) {
		xs_cfg_err(c, line, "%s is already set at line %d", tok[0], seen[k]);
		return -EINVAL;
	}
	seen[k] = line;
	switch (k) {
	case 0:
		c->has_seed = true;
		return XS_CFG_PARSE(c, line, xs_parse_seed(tok[1], c->seed));
	case 1:
		return xs_cfg_algo(c, line, tok[1], &c->algo);
	case 2:
		c->hand_line = line;
		return xs_cfg_hand(c, line, tok[1], &c->hand_size);
	case 3:
		return XS_CFG_PARSE(c, line, xs_parse_fields(tok[1], "hash-fields", &c->flow_fields));
	default:
		return XS_CFG_PARSE(c, line, xs_parse_fields(tok[1], "hand-fields", &c->hand_fields));
	}
}

static bool xs_cfg_is_setting(const char *w)
{
	return !strcmp(w, "seed") || !strcmp(w, "algo") || !strcmp(w, "hand-size") ||
	       !strcmp(w, "hash-fields") || !strcmp(w, "hand-fields");
}

/* Read the file whole, refusing what cannot be a configuration. */
static char *xs_cfg_read(struct xs_config *c, size_t *len)
{
	struct stat st;
	char *buf;
	ssize_t n;
	int fd;

	fd = open(c->file, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		xs_cfg_err(c, 1, "cannot open: %s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		xs_cfg_err(c, 1, "not a regular file");
		goto fail;
	}
	if (st.st_mode & S_IWOTH) {
		xs_cfg_err(c, 1, "refusing a world-writable file: anyone on this host could rewrite "
			   "the topology (chmod o-w %s)", c->file);
		goto fail;
	}
	if (st.st_size > XS_CFG_MAX_SIZE) {
		xs_cfg_err(c, 1, "file is %lld bytes, more than the %d a configuration may have",
			   (long long)st.st_size, XS_CFG_MAX_SIZE);
		goto fail;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		xs_cfg_err(c, 1, "out of memory");
		goto fail;
	}
	/* Read one byte more than stat said: a file that grew is refused, not cut. */
	n = read(fd, buf, (size_t)st.st_size + 1);
	if (n < 0 || n > st.st_size) {
		xs_cfg_err(c, 1, n < 0 ? "cannot read: %s" : "file changed while being read%s",
			   n < 0 ? strerror(errno) : "");
		free(buf);
		goto fail;
	}
	close(fd);
	buf[n] = 0;
	*len = (size_t)n;
	return buf;
fail:
	close(fd);
	return NULL;
}

/* Text only: a NUL or a control character means this is not the file meant. */
static int xs_cfg_check_text(const struct xs_config *c, const char *buf, size_t len)
{
	int line = 1;
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)buf[i];

		if (ch == '\n') {
			line++;
		} else if (ch == 0 || (ch < 0x20 && ch != '\t' && ch != '\r') || ch == 0x7f) {
			xs_cfg_err(c, line, "binary data (byte 0x%02x at offset %zu): this is not "
				   "a text configuration", ch, i);
			return -EINVAL;
		}
	}
	return 0;
}

static int xs_cfg_line(struct xs_config *c, int line, char *s, int nr_cpus, int *seen)
{
	char *tok[XS_CFG_MAX_TOK + 1], *save = NULL, *p;
	int ntok = 0;

	p = strchr(s, '#');
	if (p)
		*p = 0;
	/* Comments may be in any language; keywords and values are ASCII. */
	for (p = s; *p; p++) {
		if ((unsigned char)*p >= 0x80) {
			xs_cfg_err(c, line, "non-ASCII character outside a comment");
			return -EINVAL;
		}
	}
	for (p = strtok_r(s, " \t\r", &save); p; p = strtok_r(NULL, " \t\r", &save)) {
		if (ntok == XS_CFG_MAX_TOK) {
			xs_cfg_err(c, line, "more than %d words on one line", XS_CFG_MAX_TOK);
			return -EINVAL;
		}
		tok[ntok++] = p;
	}
	if (!ntok)
		return 0;
	if (xs_cfg_is_setting(tok[0]))
		return xs_cfg_setting(c, line, tok, ntok, seen);
	if (!strcmp(tok[0], "target"))
		return xs_cfg_target(c, line, tok, ntok, nr_cpus);
	if (!strcmp(tok[0], "service"))
		return xs_cfg_service(c, line, tok, ntok);
	if (!strcmp(tok[0], "backend"))
		return xs_cfg_backend(c, line, tok, ntok);
	xs_cfg_err(c, line, "unknown keyword '%s' (want seed, algo, hand-size, hash-fields, "
		   "hand-fields, target, service or backend)", tok[0]);
	return -EINVAL;
}

int xs_config_load(const char *file, int nr_cpus, struct xs_config *c)
{
	int seen[5] = { 0 }, line = 1, last = 1, err = 0;
	char *buf, *s, *nl;
	size_t len, cap;

	memset(c, 0, sizeof(*c));
	c->file = file;
	c->algo = XS_ALGO_JUMP;
	c->hand_size = 4;
	c->flow_fields = XS_F_DEFAULT_FLOW;
	c->hand_fields = XS_F_DEFAULT_HAND;
	if (xs_index_init(&c->svc_by_key, sizeof(struct xs_service_key)) ||
	    xs_index_init(&c->be_by_addr, sizeof(struct xs_cfg_be_key))) {
		xs_cfg_err(c, 1, "out of memory");
		xs_config_free(c);
		return -ENOMEM;
	}
	buf = xs_cfg_read(c, &len);
	if (!buf) {
		xs_config_free(c);
		return -EINVAL;
	}
	err = xs_cfg_check_text(c, buf, len);
	if (err)
		goto out;
	/* A line holds at most one object: the line count bounds every array. */
	for (cap = 1, s = buf; *s; s++)
		cap += *s == '\n';
	c->tgt = calloc(cap, sizeof(*c->tgt));
	c->svc = calloc(cap, sizeof(*c->svc));
	c->be = calloc(cap, sizeof(*c->be));
	if (!c->tgt || !c->svc || !c->be) {
		xs_cfg_err(c, 1, "out of memory");
		err = -ENOMEM;
		goto out;
	}
	for (s = buf; s && *s; s = nl, line++) {
		nl = strchr(s, '\n');
		if (nl)
			*nl++ = 0;
		err = xs_cfg_line(c, line, s, nr_cpus, seen);
		if (err)
			goto out;
		last = line;
	}
	if (!c->n_tgt && !c->n_svc && !seen[0] && !seen[1] && !seen[2] && !seen[3] && !seen[4]) {
		xs_cfg_err(c, last, "the file declares nothing: applying it would remove every "
			   "target and service; refusing (to empty the interface, list its "
			   "settings with no targets, e.g. 'algo jump')");
		err = -EINVAL;
	}
out:
	free(buf);
	if (err)
		xs_config_free(c);
	return err;
}
