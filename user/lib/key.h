/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A key of an object (spec.h) bound to the field it sets: `--NAME ARG` on a
 * command, `NAME ARG` on a line of a file. Its kind says how a value is
 * parsed, printed and compared; its offset and size say where it lives in
 * the object's spec. The one table per object then drives the command's
 * options, the file's keys, their help, `show` and the comparisons, so a
 * new setting is one line of its table (and the code that uses it).
 */
#ifndef XS_KEY_H
#define XS_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

struct xs_name;

enum xs_key_kind {
	XS_KK_NONE,	/* no field: the setter alone knows what it sets */
	XS_KK_FLAG,	/* bool, no value: given or not */
	XS_KK_UINT,	/* unsigned of 1, 2 or 4 bytes, @min..@max */
	XS_KK_NAME,	/* one of @names, stored as an unsigned of @size bytes */
	XS_KK_FIELDS,	/* a __u8 of hash fields (enum xs_field), "src,dst" */
	XS_KK_CIDR4,	/* __u8[4] prefix at @off, __u8 host bits at @off2 */
	XS_KK_CIDR6,	/* __u8[16] prefix at @off, __u8 host bits at @off2 */
	XS_KK_SECONDS,	/* __u32 seconds, given as a DURATION of @min..@max s */
	XS_KK_SLOTS,	/* struct xs_place: its slot list */
	XS_KK_SEED,	/* __u64[2], 32 hex digits */
};

/* When `show` prints a key: the line is the whole state, defaults included. */
enum xs_key_show {
	XS_SHOW_ALWAYS,
	XS_SHOW_SET,	/* when it is not @none (a flag: when given) */
	XS_SHOW_LATE,	/* as XS_SHOW_SET, after every other key */
	XS_SHOW_WITH_PREV, /* when the key before it is printed (second-chance-window) */
	XS_SHOW_NEVER,	/* another printer's (the check's), or not state (seed-file) */
};

/* Whether `show --json` has a key, named as the key with '_' for '-'. */
enum xs_key_json {
	XS_JSON_NO,
	XS_JSON_ALWAYS,
	XS_JSON_SET,	/* when it is not @none, as XS_SHOW_SET */
};

struct xs_key;
/* A key that needs more than its kind: a rule that reads another field, a side effect. */
typedef int (*xs_key_set_fn)(void *spec, const struct xs_key *k, const char *val);

/* A command's option, or a key as help sees it: `--NAME ARG`, arg NULL for a flag. */
struct xs_opt {
	const char *name;
	const char *arg;
	const char *help;
};

struct xs_key {
	struct xs_opt opt;	/* its name, its argument (NULL: a flag) and help */
	enum xs_key_kind kind;
	__u16 off, size, off2;	/* the field in the object's spec */
	__u32 min, max;		/* XS_KK_UINT, XS_KK_SECONDS */
	__u32 none;		/* XS_SHOW_SET: the value that is not printed */
	const struct xs_name *names;	/* XS_KK_NAME */
	xs_key_set_fn set;	/* parses instead of the kind (which still prints and compares) */
	enum xs_key_show show;
	enum xs_key_json json;
	const char *example;	/* a value the key takes, as show prints it back (tests) */
};

/* A key table line: the key as help sees it, then what it is bound to. */
#define XS_KEY(name, arg, help, ...) { .opt = { (name), (arg), (help) }, __VA_ARGS__ }
/* The field @m of spec type @T, for a key table line. */
#define XS_KEY_FIELD(T, m) .off = offsetof(T, m), .size = sizeof(((T *)0)->m)

/* @key of @keys: -EINVAL printed ("WHAT: unknown key", with a hint) when there is none. */
const struct xs_key *xs_key_find(const struct xs_key *keys, const char *what, const char *key,
				 const char *val);
/* Set @key to @val (NULL for a flag) in @spec through its table. -EINVAL printed. */
int xs_key_set(const struct xs_key *keys, const char *what, void *spec, const char *key,
	       const char *val);
/* Parse @val into @k's field by its kind alone (a setter calls it, then checks). */
int xs_key_parse(const struct xs_key *k, void *spec, const char *val);
/* @k's value in @spec as a file gives it. -1 for a key without a field. */
int xs_key_format(const struct xs_key *k, const void *spec, char *buf, size_t len);
/* Would show print @k of @spec (XS_SHOW_SET: not @none)? */
bool xs_key_given(const struct xs_key *k, const void *spec);
/* Do @a and @b hold the same value of @k? */
bool xs_key_same(const struct xs_key *k, const void *a, const void *b);
/* Is every key of @keys whose field lies in [@lo, @hi) of the spec the same in @a and @b? */
bool xs_keys_same(const struct xs_key *keys, const void *a, const void *b, size_t lo, size_t hi);
/* " NAME VALUE" for each key show prints, in show's order (@sep before each, @end after). */
void xs_keys_print(const struct xs_key *keys, const void *spec, const char *sep,
		   const char *end, FILE *f);

#endif /* XS_KEY_H */
