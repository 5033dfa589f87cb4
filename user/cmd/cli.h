/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The command line is a table: each command declares its words, positional
 * arguments and options once, and parsing, help and shell completion are
 * generated from it.
 */
#ifndef XS_CLI_H
#define XS_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "model.h"
#include "opts.h"
#include "parse.h"

/* trace: IFACE and four filter pairs. */
#define XS_MAX_POS 9
#define XS_MAX_OPTS 24
/* -f may be given several times: a fleet's shared file and a host's own, say. */
#define XS_MAX_FILES 8

/* Exit status: done; refused or failed (nothing changed); a usage error. */
#define XS_EXIT_OK 0
#define XS_EXIT_FAIL 1
#define XS_EXIT_USAGE 2
/* A command's run() returns -XS_EUSAGE for a usage error (exit 2), printed. */
#define XS_EUSAGE 4096

struct xs_args {
	const struct xs_cmd *cmd;
	int npos;
	const char *pos[XS_MAX_POS];
	const char *val[XS_MAX_OPTS]; /* value, "" for a flag, NULL if absent */
	const char *files[XS_MAX_FILES]; /* every -f FILE, in order (val holds the first) */
	int nfiles;
};

struct xs_args;
struct xs_handle;
/* An edit of the model a command makes: 0, or -errno with one line printed. */
typedef int (*xs_edit_fn)(struct xs_model *m, const struct xs_handle *h, const struct xs_args *a);

struct xs_cmd {
	const char *words;    /* "target add" */
	const char *synopsis; /* positional part of the usage line */
	const char *help;
	int min_pos, max_pos;
	const struct xs_opt *opts; /* the command's own options, NULL-name terminated, or NULL */
	const struct xs_key *keys; /* then the keys of the object it edits (model.h), or NULL */
	int (*run)(const struct xs_args *a);	/* a command that reads, or does its own thing */
	xs_edit_fn edit;	/* or: a command that changes state, one edit of the model */
	/*
	 * The shortest prefix of its object word that names it (0: any). A
	 * word added later takes a longer one, so that the prefixes in use
	 * before it stay unique: "t" is still target, "tr" is trace.
	 */
	unsigned char min_prefix;
};

extern const struct xs_cmd xs_commands[];

/* The long option the one-letter @c stands for, or NULL (args.c). */
const char *xs_short_name(char c);
/* Index of the option @name (@len chars) among @cmd's, or -1. */
int xs_opt_index(const struct xs_cmd *cmd, const char *name, size_t len);
/* Option value by id (opts.h); NULL when not given, or when the command has no such option. */
const char *xs_arg(const struct xs_args *a, enum xs_opt_id id);
bool xs_flag(const struct xs_args *a, enum xs_opt_id id);
/* Each of cmd->keys that was given, into @set (a model spec setter): 0 or its error. */
int xs_args_keys(const struct xs_args *a, xs_key_setter set, void *spec);
int xs_cli_main(int argc, char **argv);
void xs_usage_cmd(const struct xs_cmd *cmd, FILE *f);

/* A command's options: its own, then the keys of the object it edits. */
int xs_cmd_nopts(const struct xs_cmd *cmd);
const struct xs_opt *xs_cmd_opt(const struct xs_cmd *cmd, int i);
/* The one-letter form of option @name ('j' for json), or 0. */
char xs_opt_short(const char *name);
/* Does a command's word list start a new object ("target" of "target add")? */
bool xs_cmd_first_of_object(const struct xs_cmd *cmd);
/* Does the object of @cmd have commands of its own ("target add", ...)? */
bool xs_cmd_has_sub(const struct xs_cmd *cmd);

#endif /* XS_CLI_H */
