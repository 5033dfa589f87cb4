/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The command table's words and the help made from them (help.c), for the parser (cli.c). */
#ifndef XS_HELP_H
#define XS_HELP_H

#include <stddef.h>
#include <stdio.h>
#include "cli.h"

/* Room for every command of the table: a list of candidates never holds more. */
#define XS_MAX_CMDS 64

/* Length of the first word of @words ("target" of "target add"). */
size_t xs_first_len(const char *words);
/* The object word of @c, and the command word of @c: each with its length. */
const char *xs_object_name(const struct xs_cmd *c, size_t *len);
const char *xs_sub_name(const struct xs_cmd *c, size_t *len);
/* The one of @cand whose @name @word names, by unique prefix; NULL (printed) when none or many. */
const struct xs_cmd *xs_resolve(const char *what, const char *word, const struct xs_cmd **cand,
				int n, const char *(*name)(const struct xs_cmd *, size_t *));
/* The first command of each object, into @out (at most @max); their count. */
int xs_objects(const struct xs_cmd **out, int max);
/* The commands of @obj's object, into @out (at most @max); their count. */
int xs_subs(const struct xs_cmd *obj, const struct xs_cmd **out, int max);
void xs_help_cmd(const struct xs_cmd *cmd, FILE *f);
void xs_help_object(const struct xs_cmd *obj, FILE *f);
void xs_help_all(FILE *f);
/* One short usage for @cmd (or @obj, or the tool) on stderr; returns XS_EXIT_USAGE. */
int xs_usage_error(const struct xs_cmd *obj, const struct xs_cmd *cmd);
/* help --doc FORMAT: every synopsis (or @obj's, or @cmd's) for the docs, or the file's keys (docgen.c). */
int xs_doc_print(const char *format, const struct xs_cmd *obj, const struct xs_cmd *cmd, FILE *f);

#endif /* XS_HELP_H */
