// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The name tables (names.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/bpf.h>
#include <xdp/libxdp.h>
#include "log.h"
#include "names.h"
#include "suggest.h"
#include "xdpsteer.h"
#include "xs_check.h"

const struct xs_name xs_algo_names[] = {
	{ XS_ALGO_JUMP, "jump" },
	{ XS_ALGO_SHUFFLE, "shuffle" },
	{ 0, NULL },
};

const struct xs_name xs_encap_names[] = {
	{ XS_ENCAP_IPIP, "ipip" },
	{ XS_ENCAP_L2, "l2" },
	{ XS_ENCAP_GUE, "gue" },
	{ 0, NULL },
};

const struct xs_name xs_kind_names[] = {
	{ XS_TARGET_CPU, "cpu" },
	{ XS_TARGET_DEV, "dev" },
	{ XS_TARGET_BACKEND, "backend" },
	{ 0, NULL },
};

/* The kinds a `target` line or command may name: a backend belongs to a service. */
const struct xs_name xs_queue_kind_names[] = {
	{ XS_TARGET_CPU, "cpu" },
	{ XS_TARGET_DEV, "dev" },
	{ 0, NULL },
};

const struct xs_name xs_verdict_names[] = {
	{ XDP_PASS, "pass" },
	{ XDP_DROP, "drop" },
	{ 0, NULL },
};

const struct xs_name xs_too_big_names[] = {
	{ XS_TOO_BIG_ICMP, "icmp" },
	{ XS_TOO_BIG_DROP, "drop" },
	{ 0, NULL },
};

const struct xs_name xs_onoff_names[] = {
	{ 1, "on" },
	{ 0, "off" },
	{ 0, NULL },
};

const struct xs_name xs_check_kind_names[] = {
	{ XS_CHECK_TCP, "tcp" },
	{ XS_CHECK_HTTP, "http" },
	{ XS_CHECK_UDP, "udp" },
	{ XS_CHECK_DNS, "dns" },
	{ XS_CHECK_NONE, "none" },
	{ 0, NULL },
};

const struct xs_name xs_on_down_names[] = {
	{ XS_DOWN_REDECIDE, "redecide" },
	{ XS_DOWN_DRAIN, "drain" },
	{ 0, NULL },
};

const struct xs_name xs_mode_names[] = {
	{ XDP_MODE_NATIVE, "native" },
	{ XDP_MODE_SKB, "skb" },
	{ XDP_MODE_HW, "hw" },
	{ 0, NULL },
};

#define XS_COUNTER_NAME(e, name, kind) { e, #name },
const struct xs_name xs_counter_names[] = { XS_COUNTERS(XS_COUNTER_NAME) { 0, NULL } };
#undef XS_COUNTER_NAME
#define XS_COUNTER_KIND(e, name, kind) kind,
const char *const xs_counter_kinds[] = { XS_COUNTERS(XS_COUNTER_KIND) };
#undef XS_COUNTER_KIND

const char *xs_name_of(const struct xs_name *t, unsigned int val)
{
	for (; t->name; t++)
		if (t->val == val)
			return t->name;
	return "?";
}

const char *xs_name_choices(const struct xs_name *t, const char *sep, char *buf, size_t len)
{
	const struct xs_name *i;
	size_t used = 0;

	buf[0] = 0;
	for (i = t; i->name && used < len; i++) {
		/* "a, b or c" where @sep is " or ": the last one joins with it. */
		const char *join = i == t ? "" : !i[1].name ? sep : strcmp(sep, "|") ? ", " : "|";

		used += (size_t)snprintf(buf + used, len - used, "%s%s", join, i->name);
	}
	return buf;
}

int xs_name_parse(const struct xs_name *t, const char *s, const char *what, unsigned int *val)
{
	const struct xs_name *i;
	char choices[128], hint[96];
	struct xs_suggest sg;

	xs_suggest_init(&sg, s, strlen(s));
	for (i = t; i->name; i++) {
		xs_suggest_add(&sg, i->name, strlen(i->name));
		if (!strcmp(i->name, s)) {
			*val = i->val;
			return 0;
		}
	}
	pr_warn("%s: '%s' is not %s%s\n", what, s, xs_name_choices(t, " or ", choices, sizeof(choices)),
		xs_suggest_hint(&sg, NULL, hint, sizeof(hint)));
	return -EINVAL;
}
