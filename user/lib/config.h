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

/* One piece of configuration text, and the name its errors carry (a file, an etcd key). */
struct xs_config_src {
	const char *name;
	const char *text;	/* NUL-terminated */
};

/*
 * Read and validate @n files against this host (@nr_cpus possible CPUs, its
 * interfaces) into one model @m, which it initialises: a fleet's shared file
 * and a host's own, say. An object or a setting declared twice, in one file
 * or in two, is an error. Every error is one line on stderr, "FILE:LINE:
 * what is wrong"; @m is then empty.
 */
int xs_config_load(const char *const *files, int n, int nr_cpus, struct xs_model *m);
/* The same, from text already in memory (the agent's etcd values). */
int xs_config_parse(const struct xs_config_src *src, int n, int nr_cpus, struct xs_model *m);
/*
 * @m in the file format: every setting, defaults included, and every
 * object's place, so apply of it changes nothing. The seed only with @secrets.
 */
void xs_config_print(const struct xs_model *m, bool secrets, FILE *f);

#endif /* XS_CONFIG_H */
