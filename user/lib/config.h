/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The configuration file: one object per line, as `xdpsteer show` prints
 * it and `xdpsteer apply` reads it (docs/configuration.md). Each line is
 * made into the model by the model's own edits (model.h), so a file accepts
 * exactly what the commands accept; parsing never touches a map.
 */
#ifndef XS_CONFIG_H
#define XS_CONFIG_H

#include <stdio.h>
#include "model.h"

/* Overridable at build time (-DXS_CFG_MAX_SIZE=...), as the bench's big build does. */
#ifndef XS_CFG_MAX_SIZE
#define XS_CFG_MAX_SIZE (1024 * 1024)
#endif

/*
 * Read and validate @file against this host (@nr_cpus possible CPUs, its
 * interfaces) into @m, which it initialises. Every error is one line on
 * stderr, "FILE:LINE: what is wrong"; @m is then empty.
 */
int xs_config_load(const char *file, int nr_cpus, struct xs_model *m);
/* @m in the file format: every setting, defaults included, so apply of it changes nothing. */
void xs_config_print(const struct xs_model *m, FILE *f);

#endif /* XS_CONFIG_H */
