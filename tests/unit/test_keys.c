// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Every key table (spec.c) as key.h binds it: each key sets a field or has
 * a setter, no two keys set the same bytes, each key's example parses and
 * prints back as given and changes that key alone, and a service compared
 * (xs_service_same) differs in every key bound to its delivery.
 */
#include <stdio.h>
#include <string.h>
#include "key.h"
#include "spec.h"
#include "service.h"
#include "test.h"

/* One spec of each object, with its defaults, and the table that sets it. */
union spec {
	struct xs_settings set;
	struct xs_target_spec tgt;
	struct xs_service_spec svc;
	struct xs_backend_spec be;
};

static const struct {
	const char *what;
	const struct xs_key *keys;
	size_t size;
} tables[] = {
	{ "setting", xs_settings_keys, sizeof(struct xs_settings) },
	{ "target", xs_target_keys, sizeof(struct xs_target_spec) },
	{ "service", xs_service_keys, sizeof(struct xs_service_spec) },
	{ "backend", xs_backend_keys, sizeof(struct xs_backend_spec) },
};

#define N_TABLES (sizeof(tables) / sizeof(tables[0]))

/* Table @t's object with its defaults; a target is a dev (@dev) or cpu 0. */
static void spec_init(size_t t, union spec *s, bool dev)
{
	memset(s, 0, sizeof(*s));
	switch (t) {
	case 0:
		xs_settings_init(&s->set);
		break;
	case 1:
		s->tgt.t.kind = dev ? XS_TARGET_DEV : XS_TARGET_CPU;
		s->tgt.t.qsize = dev ? 0 : XS_DEFAULT_QSIZE;
		s->tgt.place.id = XS_NO_TARGET;
		snprintf(s->tgt.ifname, sizeof(s->tgt.ifname), "lo");
		break;
	case 2:
		xs_service_spec_init(&s->svc, "10.0.0.10:443/udp");
		break;
	default:
		xs_backend_spec_init(&s->be, "10.0.0.10:443/udp", "10.0.1.1");
	}
}

static int spec_set(size_t t, union spec *s, const char *key, const char *val)
{
	switch (t) {
	case 0:
		return xs_settings_set(&s->set, key, val);
	case 1:
		return xs_target_spec_set(&s->tgt, key, val);
	case 2:
		return xs_service_spec_set(&s->svc, key, val);
	default:
		return xs_backend_spec_set(&s->be, key, val);
	}
}

TEST(every_key_is_bound)
{
	size_t t;
	int i;

	for (t = 0; t < N_TABLES; t++) {
		for (i = 0; tables[t].keys[i].opt.name; i++) {
			const struct xs_key *k = &tables[t].keys[i];

			ASSERT_TRUE(k->kind != XS_KK_NONE || k->set, "%s key '%s' sets nothing",
				    tables[t].what, k->opt.name);
			ASSERT_TRUE(k->kind == XS_KK_NONE || k->off + k->size <= tables[t].size,
				    "%s key '%s': field past the spec", tables[t].what, k->opt.name);
			ASSERT_TRUE(k->kind == XS_KK_NONE || k->size,
				    "%s key '%s': field of no size", tables[t].what, k->opt.name);
			ASSERT_TRUE(k->kind == XS_KK_NONE || k->kind == XS_KK_FLAG || k->example,
				    "%s key '%s': no example value", tables[t].what, k->opt.name);
			ASSERT_TRUE(!k->opt.arg == (k->kind == XS_KK_FLAG),
				    "%s key '%s': a flag is a key without a value", tables[t].what,
				    k->opt.name);
		}
	}
}

/* Does [a, a + an) meet [b, b + bn)? */
static bool overlap(size_t a, size_t an, size_t b, size_t bn)
{
	return a < b + bn && b < a + an;
}

static bool keys_overlap(const struct xs_key *a, const struct xs_key *b)
{
	bool a2 = a->kind == XS_KK_CIDR4 || a->kind == XS_KK_CIDR6;
	bool b2 = b->kind == XS_KK_CIDR4 || b->kind == XS_KK_CIDR6;

	return overlap(a->off, a->size, b->off, b->size) ||
	       (a2 && overlap(a->off2, 1, b->off, b->size)) ||
	       (b2 && overlap(a->off, a->size, b->off2, 1)) ||
	       (a2 && b2 && a->off2 == b->off2);
}

TEST(no_two_keys_share_a_field)
{
	size_t t;
	int i, j;

	for (t = 0; t < N_TABLES; t++) {
		const struct xs_key *keys = tables[t].keys;

		for (i = 0; keys[i].opt.name; i++) {
			if (!keys[i].size)
				continue;
			for (j = i + 1; keys[j].opt.name; j++)
				ASSERT_TRUE(!keys[j].size || !keys_overlap(&keys[i], &keys[j]),
					    "%s keys '%s' and '%s' set the same bytes",
					    tables[t].what, keys[i].opt.name, keys[j].opt.name);
		}
	}
}

/* Set @k to its example in a fresh spec: the target kind that takes it. */
static int set_example(size_t t, const struct xs_key *k, union spec *s)
{
	spec_init(t, s, false);
	if (!spec_set(t, s, k->opt.name, k->opt.arg ? k->example : NULL))
		return 0;
	if (t != 1)
		return -1;
	spec_init(t, s, true);
	return spec_set(t, s, k->opt.name, k->opt.arg ? k->example : NULL);
}

TEST(example_round_trips)
{
	union spec a, b;
	char buf[256];
	size_t t;
	int i, j;

	for (t = 0; t < N_TABLES; t++) {
		const struct xs_key *keys = tables[t].keys;

		for (i = 0; keys[i].opt.name; i++) {
			const struct xs_key *k = &keys[i];

			if (k->kind == XS_KK_NONE)
				continue;
			if (!ASSERT_TRUE(!set_example(t, k, &b), "%s %s %s refused", tables[t].what,
					 k->opt.name, k->example ?: ""))
				continue;
			ASSERT_TRUE(xs_key_given(k, &b), "%s %s: set but not printed",
				    tables[t].what, k->opt.name);
			xs_key_format(k, &b, buf, sizeof(buf));
			ASSERT_TRUE(!strcmp(buf, k->opt.arg ? k->example : ""),
				    "%s %s %s prints back as '%s'", tables[t].what, k->opt.name,
				    k->example, buf);
			/* The same spec without the key: it differs in that key, and no other. */
			spec_init(t, &a, b.tgt.t.kind == XS_TARGET_DEV && t == 1);
			ASSERT_TRUE(!xs_key_same(k, &a, &b), "%s %s %s: the example is the default",
				    tables[t].what, k->opt.name, k->example ?: "");
			for (j = 0; keys[j].opt.name; j++)
				ASSERT_TRUE(j == i || xs_key_same(&keys[j], &a, &b),
					    "%s %s also changed '%s'", tables[t].what, k->opt.name,
					    keys[j].opt.name);
		}
	}
}

/* Two services whose delivery differs in one key are not the same (plan.c updates it). */
TEST(service_same_sees_every_delivery_key)
{
	union spec a, b;
	size_t lo = offsetof(struct xs_service_spec, svc);
	size_t hi = lo + sizeof(struct xs_service);
	int i, n = 0;

	for (i = 0; xs_service_keys[i].opt.name; i++) {
		const struct xs_key *k = &xs_service_keys[i];

		if (k->kind == XS_KK_NONE || k->off < lo || k->off >= hi)
			continue;
		n++;
		spec_init(2, &a, false);
		set_example(2, k, &b);
		ASSERT_TRUE(!xs_service_same(&a.svc.svc, &b.svc.svc),
			    "services differing in %s %s compare the same", k->opt.name,
			    k->example);
		ASSERT_TRUE(xs_service_same(&a.svc.svc, &a.svc.svc),
			    "a service differs from itself");
	}
	/* At least encap tunnel-src tunnel-src6 quic second-chance second-chance-window. */
	ASSERT_TRUE(n >= 6, "only %d service keys bound to struct xs_service", n);
}

/* show's line for a service is its keys in table order, the late ones last. */
TEST(show_prints_keys_as_a_file_gives_them)
{
	union spec s;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	spec_init(2, &s, false);
	spec_set(2, &s, "hash-fields", "dport");
	spec_set(2, &s, "second-chance", "on");
	spec_set(2, &s, "quic", "on");
	xs_keys_print(xs_service_keys, &s, " ", "", f);
	fclose(f);
	ASSERT_TRUE(!strcmp(text, " algo jump hand-size 4 encap ipip tunnel-src 172.16.0.0/16 "
			    "tunnel-src6 fd00:7873::/96 quic on second-chance on "
			    "second-chance-window 600s hash-fields dport"), "got '%s'", text);
	free(text);
}

TEST_MAIN("keys", NULL, NULL)
