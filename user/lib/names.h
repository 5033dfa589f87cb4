/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * One name table per enum: parsing, printing and help all read the same
 * table, so a value cannot be spelled one way in a command and another in a
 * file, or printed by a name nothing parses.
 */
#ifndef XS_NAMES_H
#define XS_NAMES_H

#include <stddef.h>
#include <linux/types.h>

struct xs_name {
	unsigned int val;
	const char *name;
};

/* Terminated by a NULL name. */
extern const struct xs_name xs_algo_names[];
extern const struct xs_name xs_encap_names[];
extern const struct xs_name xs_kind_names[];	/* every target kind */
extern const struct xs_name xs_queue_kind_names[]; /* cpu and dev: what `target` takes */
extern const struct xs_name xs_verdict_names[];	/* --unparsed */
extern const struct xs_name xs_too_big_names[];	/* --too-big */
extern const struct xs_name xs_onoff_names[];	/* on|off keys (quic) */
extern const struct xs_name xs_check_kind_names[];	/* enum xs_check_kind */
extern const struct xs_name xs_on_down_names[];	/* enum xs_check_policy */
extern const struct xs_name xs_mode_names[];	/* XDP attach modes (libxdp) */
extern const struct xs_name xs_counter_names[];	/* enum xs_counter, by field name */
extern const char *const xs_counter_kinds[];	/* "pass", "drop", "tx" or "info", by counter */

/* The name of @val in @t, or "?" for a value the table does not hold. */
const char *xs_name_of(const struct xs_name *t, unsigned int val);
/* @s's value in @t; -EINVAL with "WHAT: 'S' is not a, b or c" printed. */
int xs_name_parse(const struct xs_name *t, const char *s, const char *what, unsigned int *val);
/* Every name of @t: "a|b|c" with @sep "|" (help), "a, b or c" with " or " (errors). */
const char *xs_name_choices(const struct xs_name *t, const char *sep, char *buf, size_t len);

#endif /* XS_NAMES_H */
