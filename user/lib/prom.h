/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Prometheus text exposition (format 0.0.4): a family is a name, a type, a
 * help line and a function that writes its samples for one source (an
 * interface's snapshot, the agent). The families are tables, so a new one is
 * one entry; xs_prom_write() writes each family's HELP and TYPE once and then
 * its samples for every source, as the format requires (one group per name).
 */
#ifndef XS_PROM_H
#define XS_PROM_H

#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#define XS_PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct xs_prom_label {
	const char *name;
	const char *value;	/* escaped as it is written */
};

struct xs_prom_family;
/* Write @fam's samples for @src with xs_prom_sample(); nothing for a source that has none. */
typedef void (*xs_prom_emit_fn)(FILE *f, const struct xs_prom_family *fam, const void *src);

struct xs_prom_family {
	const char *name;	/* xdpsteer_..., _total for a counter, base units */
	const char *type;	/* "counter", "gauge" */
	const char *help;
	xs_prom_emit_fn emit;
	size_t field;		/* for the emit function: which field of the source it reads */
};

/* HELP and TYPE of @fam, then its samples for each of @srcs, for each family of @t. */
void xs_prom_write(FILE *f, const struct xs_prom_family *t, size_t n, const void *const *srcs,
		   size_t nsrcs);
/* One sample: NAME{l0="v0",...} VALUE. */
void xs_prom_sample(FILE *f, const char *name, const struct xs_prom_label *l, size_t nl,
		    double value);
void xs_prom_sample_u64(FILE *f, const char *name, const struct xs_prom_label *l, size_t nl,
			__u64 value);
/* A label value as the format spells it: \ " and newline escaped. */
void xs_prom_escape(FILE *f, const char *s);

#endif /* XS_PROM_H */
