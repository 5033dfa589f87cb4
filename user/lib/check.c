// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* A service's health check: its keys, their rules, and the xs_checks map (check.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <bpf/bpf.h>
#include "check.h"
#include "log.h"
#include "names.h"
#include "parse.h"
#include "service.h"
#include "spec.h"

enum xs_check_key {
	XS_CK_KIND, XS_CK_PORT, XS_CK_INTERVAL, XS_CK_TIMEOUT, XS_CK_RISE, XS_CK_FALL,
	XS_CK_PATH, XS_CK_EXPECT, XS_CK_SEND, XS_CK_REPLY, XS_CK_MIN_HEALTHY, XS_CK_ON_DOWN,
};

static const struct xs_key xs_check_keys[] = { XS_CHECK_KEYS() };

/* The kinds each key needs; 0: any kind but none. */
static const __u32 xs_check_key_kinds[XS_CHECK_NKEYS] = {
	[XS_CK_PATH] = 1U << XS_CHECK_HTTP,
	[XS_CK_EXPECT] = 1U << XS_CHECK_HTTP,
	[XS_CK_SEND] = 1U << XS_CHECK_UDP,
	[XS_CK_REPLY] = 1U << XS_CHECK_UDP,
};

void xs_check_init(struct xs_check *c)
{
	memset(c, 0, sizeof(*c));
	c->kind = XS_CHECK_NONE;
	c->rise = XS_CHECK_DEFAULT_RISE;
	c->fall = XS_CHECK_DEFAULT_FALL;
	c->on_down = XS_DOWN_REDECIDE;
	c->expect = XS_CHECK_DEFAULT_EXPECT;
	c->interval_ms = XS_CHECK_DEFAULT_INTERVAL_MS;
	c->timeout_ms = XS_CHECK_DEFAULT_TIMEOUT_MS;
	c->min_healthy = XS_CHECK_DEFAULT_MIN_HEALTHY;
	snprintf(c->path, sizeof(c->path), "%s", XS_CHECK_DEFAULT_PATH);
}

/* Printable text without spaces or quotes, shorter than @len: it goes on a wire and a line. */
static int xs_check_text(const char *what, const char *val, char *out, size_t len)
{
	const char *p;

	if (strlen(val) >= len) {
		pr_warn("%s: '%s' is longer than %zu characters\n", what, val, len - 1);
		return -EINVAL;
	}
	for (p = val; *p; p++) {
		if (*p <= ' ' || *p > '~' || *p == '"' || *p == '\\' || *p == '#') {
			pr_warn("%s: '%s' holds a space, a quote, a '#' or a control character\n",
				what, val);
			return -EINVAL;
		}
	}
	snprintf(out, len, "%s", val);
	return 0;
}

int xs_check_set(struct xs_check *c, __u32 *given, int k, const char *val)
{
	unsigned int v;
	__u64 ms;
	__u32 u;
	int err = -EINVAL;

	switch (k) {
	case XS_CK_KIND:
		if (!xs_name_parse(xs_check_kind_names, val, "check", &v)) {
			c->kind = (__u8)v;
			err = 0;
		}
		break;
	case XS_CK_PORT:
		if (!xs_parse_u32(val, "check-port", 1, 65535, &u)) {
			c->port = (__u16)u;
			err = 0;
		}
		break;
	case XS_CK_INTERVAL:
	case XS_CK_TIMEOUT:
		if (!xs_parse_duration(val, xs_check_keys[k].opt.name, k == XS_CK_INTERVAL ?
				       XS_CHECK_MIN_INTERVAL_MS : XS_CHECK_MIN_TIMEOUT_MS,
				       XS_CHECK_MAX_INTERVAL_MS, &ms)) {
			*(k == XS_CK_INTERVAL ? &c->interval_ms : &c->timeout_ms) = (__u32)ms;
			err = 0;
		}
		break;
	case XS_CK_RISE:
	case XS_CK_FALL:
		if (!xs_parse_u32(val, xs_check_keys[k].opt.name, 1, XS_CHECK_MAX_COUNT, &u)) {
			*(k == XS_CK_RISE ? &c->rise : &c->fall) = (__u8)u;
			err = 0;
		}
		break;
	case XS_CK_PATH:
		if (val[0] != '/') {
			pr_warn("check-path: '%s' does not start with '/'\n", val);
			break;
		}
		err = xs_check_text("check-path", val, c->path, sizeof(c->path));
		break;
	case XS_CK_EXPECT:
		if (!xs_parse_u32(val, "expect", 100, 599, &u)) {
			c->expect = (__u16)u;
			err = 0;
		}
		break;
	case XS_CK_SEND:
		err = xs_check_text("check-send", val, c->send, sizeof(c->send));
		break;
	case XS_CK_REPLY:
		err = xs_check_text("check-reply", val, c->reply, sizeof(c->reply));
		break;
	case XS_CK_MIN_HEALTHY:
		if (!xs_parse_u32(val, "min-healthy", 0, XS_MAX_BACKENDS, &u)) {
			c->min_healthy = u;
			err = 0;
		}
		break;
	case XS_CK_ON_DOWN:
		if (!xs_name_parse(xs_on_down_names, val, "on-down", &v)) {
			c->on_down = (__u8)v;
			err = 0;
		}
		break;
	}
	if (!err)
		*given |= 1U << k;
	return err;
}

int xs_check_validate(const struct xs_check *c, __u32 given, const struct xs_service_key *key)
{
	char name[80];
	int k;

	xs_format_service(key, name, sizeof(name));
	for (k = 1; k < XS_CHECK_NKEYS; k++) {
		__u32 kinds = xs_check_key_kinds[k];

		if (!(given & (1U << k)))
			continue;
		if (c->kind == XS_CHECK_NONE) {
			pr_warn("service %s: %s needs a check (add check tcp|http|udp|dns)\n", name,
				xs_check_keys[k].opt.name);
			return -EINVAL;
		}
		if (kinds && !(kinds & (1U << c->kind))) {
			pr_warn("service %s: %s applies to %s checks only, not %s\n", name,
				xs_check_keys[k].opt.name, k <= XS_CK_EXPECT ? "http" : "udp",
				xs_name_of(xs_check_kind_names, c->kind));
			return -EINVAL;
		}
	}
	if (c->kind == XS_CHECK_NONE)
		return 0;
	if (c->timeout_ms > c->interval_ms) {
		pr_warn("service %s: timeout %ums is longer than interval %ums (one probe per "
			"backend is in flight at a time)\n", name, c->timeout_ms, c->interval_ms);
		return -EINVAL;
	}
	if (!xs_check_port(c, key)) {
		pr_warn("service %s: an any-port service needs check-port\n", name);
		return -EINVAL;
	}
	if ((c->kind == XS_CHECK_TCP || c->kind == XS_CHECK_HTTP) && key->proto != XS_IPPROTO_TCP &&
	    !c->port) {
		pr_warn("service %s: a %s check of a udp service needs check-port (the service's "
			"port is udp)\n", name, xs_name_of(xs_check_kind_names, c->kind));
		return -EINVAL;
	}
	return 0;
}

__u16 xs_check_port(const struct xs_check *c, const struct xs_service_key *key)
{
	return c->port ? c->port : ntohs(key->port);
}

bool xs_check_same(const struct xs_check *a, const struct xs_check *b)
{
	return !memcmp(a, b, sizeof(*a));
}

int xs_check_format(const struct xs_check *c, char *buf, size_t len)
{
	struct xs_check d;
	size_t n = 0;

	buf[0] = 0;
	if (c->kind == XS_CHECK_NONE)
		return 0;
	xs_check_init(&d);
#define XS_PUT(...) (n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
	XS_PUT(" check %s", xs_name_of(xs_check_kind_names, c->kind));
	if (c->port)
		XS_PUT(" check-port %u", c->port);
	if (c->interval_ms != d.interval_ms)
		XS_PUT(" interval %ums", c->interval_ms);
	if (c->timeout_ms != d.timeout_ms)
		XS_PUT(" timeout %ums", c->timeout_ms);
	if (c->rise != d.rise)
		XS_PUT(" rise %u", c->rise);
	if (c->fall != d.fall)
		XS_PUT(" fall %u", c->fall);
	if (c->kind == XS_CHECK_HTTP && strcmp(c->path, d.path))
		XS_PUT(" check-path %s", c->path);
	if (c->kind == XS_CHECK_HTTP && c->expect != d.expect)
		XS_PUT(" expect %u", c->expect);
	if (c->send[0])
		XS_PUT(" check-send %s", c->send);
	if (c->reply[0])
		XS_PUT(" check-reply %s", c->reply);
	if (c->min_healthy != d.min_healthy)
		XS_PUT(" min-healthy %u", c->min_healthy);
	if (c->on_down != d.on_down)
		XS_PUT(" on-down %s", xs_name_of(xs_on_down_names, c->on_down));
#undef XS_PUT
	return (int)n;
}

void xs_check_get(const struct xs_handle *h, const struct xs_service_key *key, struct xs_check *c)
{
	if (bpf_map_lookup_elem(h->checks_fd, key, c))
		xs_check_init(c);
}

int xs_check_put(const struct xs_handle *h, const struct xs_service_key *key,
		 const struct xs_check *c)
{
	char name[80];
	int err = 0;

	if (c->kind != XS_CHECK_NONE)
		err = bpf_map_update_elem(h->checks_fd, key, c, BPF_ANY) ? -errno : 0;
	else if (bpf_map_delete_elem(h->checks_fd, key) && errno != ENOENT)
		err = -errno;
	if (err) {
		xs_format_service(key, name, sizeof(name));
		pr_warn("%s: cannot write the check of %s into xs_checks: %s\n", h->ifname, name,
			strerror(-err));
	}
	return err;
}
