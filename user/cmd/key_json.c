// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* An object's keys as `show --json` gives them, each by its table line (key.h). */
#include <string.h>
#include "json.h"
#include "key.h"
#include "spec.h"

/* One key's value: a number, a flag, a slot list, or the text a file gives. */
static void xs_key_json(const struct xs_key *k, const void *spec, xs_json *o)
{
	const char *p = (const char *)spec + k->off;
	char name[32], val[XS_MAX_WEIGHT * 8];
	const struct xs_place *pl;
	xs_json *arr;
	size_t i;

	/* A file's key-name, a document's key_name. */
	snprintf(name, sizeof(name), "%s", k->opt.name);
	for (i = 0; name[i]; i++)
		if (name[i] == '-')
			name[i] = '_';
	switch (k->kind) {
	case XS_KK_FLAG:
		xj_bool(o, name, *(const bool *)p);
		break;
	case XS_KK_UINT:
		xs_key_format(k, spec, val, sizeof(val));
		xj_u64(o, name, strtoull(val, NULL, 10));
		break;
	case XS_KK_SLOTS:
		pl = (const struct xs_place *)(p - offsetof(struct xs_place, n_slots));
		arr = xj_arr();
		for (i = 0; i < pl->n_slots; i++)
			xj_push(arr, json_object_new_int64(pl->slots[i]));
		xj_add(o, name, arr);
		break;
	default:
		xs_key_format(k, spec, val, sizeof(val));
		xj_str(o, name, val);
	}
}

void xs_keys_json(const struct xs_key *keys, const void *spec, xs_json *o, size_t lo, size_t hi,
		  bool secrets)
{
	int i;

	for (i = 0; keys[i].opt.name; i++) {
		const struct xs_key *k = &keys[i];

		if (k->json == XS_JSON_NO || k->off < lo || k->off >= hi ||
		    (k->json == XS_JSON_SET && !xs_key_given(k, spec)))
			continue;
		/* The seed is a secret: only when asked for. */
		if (k->kind == XS_KK_SEED && !secrets)
			continue;
		xs_key_json(k, spec, o);
	}
}
