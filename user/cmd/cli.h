/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The command line is a table: each command declares its words, positional
 * arguments and options once, and parsing and help are generated from it.
 */
#ifndef XS_CLI_H
#define XS_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "parse.h"

#define XS_MAX_POS 8
#define XS_MAX_OPTS 16

struct xs_opt {
	const char *name;  /* long option, without the dashes */
	const char *arg;   /* placeholder of its value, NULL for a flag */
	const char *help;
};

struct xs_args {
	const struct xs_cmd *cmd;
	int npos;
	const char *pos[XS_MAX_POS];
	const char *val[XS_MAX_OPTS]; /* value, "" for a flag, NULL if absent */
};

struct xs_cmd {
	const char *words;    /* "target add" */
	const char *synopsis; /* positional part of the usage line */
	const char *help;
	int min_pos, max_pos;
	const struct xs_opt *opts; /* NULL-name terminated, may be NULL */
	int (*run)(const struct xs_args *a);
};

extern const struct xs_cmd xs_commands[];

/* Option value by name; NULL when not given. */
const char *xs_arg(const struct xs_args *a, const char *name);
bool xs_flag(const struct xs_args *a, const char *name);
int xs_cli_main(int argc, char **argv);
void xs_usage_cmd(const struct xs_cmd *cmd, FILE *f);


#endif /* XS_CLI_H */
