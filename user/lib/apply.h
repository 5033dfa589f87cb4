/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Make an attachment's state equal to a configuration: compute the plan
 * (what changes, and the share of new flows each pool will place elsewhere),
 * print it, then apply it with the primitives the commands use.
 */
#ifndef XS_APPLY_H
#define XS_APPLY_H

#include <stdio.h>
#include "config.h"

#define XS_APPLY_SAMPLES 100000

/* Returns 0 (state equals @c, or would with @dry_run) or -errno (printed). */
int xs_apply(const struct xs_handle *h, const struct xs_config *c, bool dry_run);
/* The running state of @h in the configuration format. */
int xs_show(const struct xs_handle *h, FILE *f);

#endif /* XS_APPLY_H */
