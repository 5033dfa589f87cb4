/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * --json output, through json-c. A command builds its whole document and
 * prints it once, at the end, and only when it succeeded: stdout then holds
 * one complete JSON document, or nothing. json-c escapes every string
 * (interface names may hold '"' and '\').
 */
#ifndef XS_JSON_H
#define XS_JSON_H

#include <stdbool.h>
#include <json-c/json.h>
#include <linux/types.h>

struct xs_args;

typedef struct json_object xs_json;

/* A new object or array; NULL only when out of memory (the adders accept NULL). */
static inline xs_json *xj_obj(void)
{
	return json_object_new_object();
}

static inline xs_json *xj_arr(void)
{
	return json_object_new_array();
}

/* Add @val under @key of object @o; @val NULL adds null. Takes @val's reference. */
void xj_add(xs_json *o, const char *key, xs_json *val);
void xj_str(xs_json *o, const char *key, const char *s); /* NULL: null */
void xj_u64(xs_json *o, const char *key, __u64 v);
void xj_int(xs_json *o, const char *key, long long v);
void xj_bool(xs_json *o, const char *key, bool v);
/* A number printed with printf format @fmt (e.g. "%.2f"), parsed as @v. */
void xj_dbl(xs_json *o, const char *key, double v, const char *fmt);
/* Append @val to array @a. */
void xj_push(xs_json *a, xs_json *val);

/*
 * Print @doc on stdout (pretty with --pretty) and release it. 0, or -errno
 * when it could not be rendered or written (printed).
 */
int xs_json_print(const struct xs_args *a, xs_json *doc);
/*
 * The keys of @keys (key.h) that `show --json` has, of those bound to a field
 * in [@lo, @hi) of @spec, into @o (key_json.c). A seed only with @secrets.
 */
struct xs_key;
void xs_keys_json(const struct xs_key *keys, const void *spec, xs_json *o, size_t lo, size_t hi,
		  bool secrets);
/* Release a document that will not be printed. NULL is fine. */
static inline void xs_json_drop(xs_json *doc)
{
	json_object_put(doc);
}

/*
 * Run @fn(@ctx) with stdout going to a string instead: returned in *@text
 * (free() it), also when @fn fails. Lets a command put text that a library
 * prints into a document, or hold its output until it knows it succeeded.
 */
int xs_capture_stdout(int (*fn)(void *ctx), void *ctx, char **text);

/*
 * The text a commit prints (model.h: the plan, the moved shares, the
 * outcome) as a document: {"ifname", "changes": [{"op", "object",
 * "text"}], "moves": [{"pool", "share", "sampled"}], "dry_run", "applied"}.
 */
/*
 * A backend's health, as the agent's health file has it (health_state.h):
 * "health" (up, down, unknown; "unchecked" when no agent checks it),
 * "health_since", "ok_in_a_row", "failed_in_a_row", "last_error".
 */
struct xs_health_state;
struct xs_service_key;
struct xs_target;
void xs_health_json(xs_json *b, const struct xs_health_state *hs,
		    const struct xs_service_key *key, const struct xs_target *t);
/* The same as ", health up since 12:00:01 (5 ok in a row)" for a plain line; "" unchecked. */
const char *xs_health_text(const struct xs_health_state *hs, const struct xs_service_key *key,
			   const struct xs_target *t, char *buf, size_t len);

xs_json *xs_plan_json(const char *text, const char *ifname, const char *file, bool dry_run);

#endif /* XS_JSON_H */
