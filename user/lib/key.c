// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Keys by kind (key.h): how a value of each kind is parsed into the field a
 * key names, printed back, and compared. The words of every error are the
 * parser's (parse.c, names.c), named by the key, so a command and a file
 * refuse a value alike.
 */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include "key.h"
#include "log.h"
#include "names.h"
#include "parse.h"
#include "service.h"
#include "spec.h"
#include "suggest.h"

static __u32 xs_key_load(const void *p, __u16 size)
{
	switch (size) {
	case 1:
		return *(const __u8 *)p;
	case 2:
		return *(const __u16 *)p;
	default:
		return *(const __u32 *)p;
	}
}

static void xs_key_store(void *p, __u16 size, __u32 v)
{
	switch (size) {
	case 1:
		*(__u8 *)p = (__u8)v;
		break;
	case 2:
		*(__u16 *)p = (__u16)v;
		break;
	default:
		*(__u32 *)p = v;
	}
}

/* The struct xs_place an XS_KK_SLOTS field (its n_slots and slots) lies in. */
static struct xs_place *xs_key_place(const struct xs_key *k, const void *spec)
{
	return (struct xs_place *)((char *)spec + k->off - offsetof(struct xs_place, n_slots));
}

const struct xs_key *xs_key_find(const struct xs_key *keys, const char *what, const char *key,
				 const char *val)
{
	struct xs_suggest sg;
	char hint[96];
	int i;

	xs_suggest_init(&sg, key, strlen(key));
	for (i = 0; keys[i].opt.name; i++) {
		xs_suggest_add(&sg, keys[i].opt.name, strlen(keys[i].opt.name));
		if (strcmp(keys[i].opt.name, key))
			continue;
		if (!keys[i].opt.arg != !val) {
			pr_warn("%s: '%s' %s\n", what, key,
				val ? "takes no value" : "needs a value");
			return NULL;
		}
		return &keys[i];
	}
	pr_warn("%s: unknown key '%s'%s\n", what, key,
		xs_suggest_hint(&sg, NULL, hint, sizeof(hint)));
	return NULL;
}

int xs_key_set(const struct xs_key *keys, const char *what, void *spec, const char *key,
	       const char *val)
{
	const struct xs_key *k = xs_key_find(keys, what, key, val);

	if (!k)
		return -EINVAL;
	return k->set ? k->set(spec, k, val) : xs_key_parse(k, spec, val);
}

int xs_key_parse(const struct xs_key *k, void *spec, const char *val)
{
	char *p = (char *)spec + k->off;
	unsigned int v;
	__u64 ms;
	__u32 u;

	switch (k->kind) {
	case XS_KK_FLAG:
		*(bool *)p = true;
		return 0;
	case XS_KK_UINT:
		if (xs_parse_u32(val, k->opt.name, k->min, k->max, &u))
			return -EINVAL;
		xs_key_store(p, k->size, u);
		return 0;
	case XS_KK_NAME:
		if (xs_name_parse(k->names, val, k->opt.name, &v))
			return -EINVAL;
		xs_key_store(p, k->size, v);
		return 0;
	case XS_KK_FIELDS:
		return xs_parse_fields(val, k->opt.name, (__u8 *)p);
	case XS_KK_CIDR4:
		return xs_parse_cidr(val, AF_INET, p, (__u8 *)spec + k->off2);
	case XS_KK_CIDR6:
		return xs_parse_cidr(val, AF_INET6, p, (__u8 *)spec + k->off2);
	case XS_KK_SECONDS:
		if (xs_parse_duration(val, k->opt.name, k->min * 1000ULL, k->max * 1000ULL, &ms))
			return -EINVAL;
		*(__u32 *)p = (__u32)(ms / 1000);
		return 0;
	case XS_KK_SLOTS:
		return xs_parse_slots(val, xs_key_place(k, spec));
	case XS_KK_SEED:
		return xs_parse_seed(val, (__u64 *)p);
	default:
		pr_warn("internal: key '%s' has no field and no setter\n", k->opt.name);
		return -EINVAL;
	}
}

int xs_key_format(const struct xs_key *k, const void *spec, char *buf, size_t len)
{
	const char *p = (const char *)spec + k->off;
	const struct xs_place *pl;
	char a[INET6_ADDRSTRLEN];
	size_t at = 0;
	__u32 i;

	buf[0] = 0;
	switch (k->kind) {
	case XS_KK_FLAG:
		return 0;
	case XS_KK_UINT:
		return snprintf(buf, len, "%u", xs_key_load(p, k->size));
	case XS_KK_NAME:
		return snprintf(buf, len, "%s", xs_name_of(k->names, xs_key_load(p, k->size)));
	case XS_KK_FIELDS:
		return xs_format_fields(*(const __u8 *)p, buf, len);
	case XS_KK_CIDR4:
	case XS_KK_CIDR6: {
		bool v4 = k->kind == XS_KK_CIDR4;

		inet_ntop(v4 ? AF_INET : AF_INET6, p, a, sizeof(a));
		return snprintf(buf, len, "%s/%u", a,
				(v4 ? 32 : 128) - *((const __u8 *)spec + k->off2));
	}
	case XS_KK_SECONDS:
		return snprintf(buf, len, "%us", *(const __u32 *)p);
	case XS_KK_SLOTS:
		pl = xs_key_place(k, spec);
		for (i = 0; i < pl->n_slots && at < len; i++)
			at += (size_t)snprintf(buf + at, len - at, "%s%u", i ? "," : "",
					       pl->slots[i]);
		return (int)at;
	case XS_KK_SEED:
		return snprintf(buf, len, "%016llx%016llx", ((const unsigned long long *)p)[0],
				((const unsigned long long *)p)[1]);
	default:
		return -1;
	}
}

bool xs_key_given(const struct xs_key *k, const void *spec)
{
	const char *p = (const char *)spec + k->off;

	switch (k->kind) {
	case XS_KK_FLAG:
		return *(const bool *)p;
	case XS_KK_UINT:
	case XS_KK_NAME:
	case XS_KK_FIELDS:
	case XS_KK_SECONDS:
		return xs_key_load(p, k->size) != k->none;
	case XS_KK_SLOTS:
		return xs_key_place(k, spec)->n_slots != 0;
	case XS_KK_NONE:
		return false;
	default:
		return true;
	}
}

bool xs_key_same(const struct xs_key *k, const void *a, const void *b)
{
	const struct xs_place *pa, *pb;

	switch (k->kind) {
	case XS_KK_NONE:
		return true;
	case XS_KK_CIDR4:
	case XS_KK_CIDR6:
		if (*((const __u8 *)a + k->off2) != *((const __u8 *)b + k->off2))
			return false;
		break;
	case XS_KK_SLOTS:
		/* Only the slots listed count: the rest of the array is not set. */
		pa = xs_key_place(k, a);
		pb = xs_key_place(k, b);
		return pa->n_slots == pb->n_slots &&
		       !memcmp(pa->slots, pb->slots, pa->n_slots * sizeof(pa->slots[0]));
	default:
		break;
	}
	return !memcmp((const char *)a + k->off, (const char *)b + k->off, k->size);
}

bool xs_keys_same(const struct xs_key *keys, const void *a, const void *b, size_t lo, size_t hi)
{
	int i;

	for (i = 0; keys[i].opt.name; i++)
		if (keys[i].size && keys[i].off >= lo && keys[i].off < hi &&
		    !xs_key_same(&keys[i], a, b))
			return false;
	return true;
}

static bool xs_key_shown(const struct xs_key *keys, int i, const void *spec, bool late)
{
	const struct xs_key *k = &keys[i];

	switch (k->show) {
	case XS_SHOW_ALWAYS:
		return !late;
	case XS_SHOW_SET:
		return !late && xs_key_given(k, spec);
	case XS_SHOW_LATE:
		return late && xs_key_given(k, spec);
	case XS_SHOW_WITH_PREV:
		return i > 0 && xs_key_shown(keys, i - 1, spec, late);
	default:
		return false;
	}
}

void xs_keys_print(const struct xs_key *keys, const void *spec, const char *sep,
		   const char *end, FILE *f)
{
	char val[XS_MAX_WEIGHT * 8];
	int pass, i;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; keys[i].opt.name; i++) {
			if (!xs_key_shown(keys, i, spec, pass))
				continue;
			xs_key_format(&keys[i], spec, val, sizeof(val));
			fprintf(f, "%s%s%s%s%s", sep, keys[i].opt.name, keys[i].opt.arg ? " " : "",
				keys[i].opt.arg ? val : "", end);
		}
	}
}
