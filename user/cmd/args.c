// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* A command's options: the table's lookups, and the values a command line gave them. */
#include <stdio.h>
#include <string.h>
#include "cli.h"

/* One-letter forms of long options, valid where the command has the long one. */
static const struct {
	char c;
	const char *name;
} xs_shorts[] = {
	{ 'j', "json" },
	{ 'p', "pretty" },
	{ 'f', "file" },
};

static int xs_count(const struct xs_opt *t)
{
	int n = 0;

	while (t && t[n].name)
		n++;
	return n;
}

static int xs_count_keys(const struct xs_key *t)
{
	int n = 0;

	while (t && t[n].opt.name)
		n++;
	return n;
}

int xs_cmd_nopts(const struct xs_cmd *cmd)
{
	return xs_count(cmd->opts) + xs_count_keys(cmd->keys);
}

/* Option @i of @cmd: its own options first, then the keys of the object it edits. */
const struct xs_opt *xs_cmd_opt(const struct xs_cmd *cmd, int i)
{
	int own = xs_count(cmd->opts);

	return i < own ? &cmd->opts[i] : &cmd->keys[i - own].opt;
}

char xs_opt_short(const char *name)
{
	size_t i;

	for (i = 0; i < XS_ARRAY_SIZE(xs_shorts); i++)
		if (!strcmp(xs_shorts[i].name, name))
			return xs_shorts[i].c;
	return 0;
}

const char *xs_short_name(char c)
{
	size_t i;

	for (i = 0; i < XS_ARRAY_SIZE(xs_shorts); i++)
		if (xs_shorts[i].c == c)
			return xs_shorts[i].name;
	return NULL;
}

int xs_opt_index(const struct xs_cmd *cmd, const char *name, size_t len)
{
	int j, n = xs_cmd_nopts(cmd);

	for (j = 0; j < n; j++)
		if (strlen(xs_cmd_opt(cmd, j)->name) == len &&
		    !strncmp(xs_cmd_opt(cmd, j)->name, name, len))
			return j;
	return -1;
}

const char *const xs_opt_names[XS_OPT_NR] = {
#define XS_OPT_NAME(id, name) [XS_OPT_##id] = name,
	XS_OPTS(XS_OPT_NAME)
#undef XS_OPT_NAME
};

const char *xs_arg(const struct xs_args *a, enum xs_opt_id id)
{
	const char *name = xs_opt_names[id];
	int i = xs_opt_index(a->cmd, name, strlen(name));

	return i < 0 ? NULL : a->val[i];
}

bool xs_flag(const struct xs_args *a, enum xs_opt_id id)
{
	return xs_arg(a, id) != NULL;
}

int xs_args_keys(const struct xs_args *a, xs_key_setter set, void *spec)
{
	int i, own = xs_count(a->cmd->opts), n = xs_cmd_nopts(a->cmd), err;

	for (i = own; i < n; i++) {
		const struct xs_opt *o = xs_cmd_opt(a->cmd, i);

		if (!a->val[i])
			continue;
		err = set(spec, o->name, o->arg ? a->val[i] : NULL);
		if (err)
			return err;
	}
	return 0;
}
