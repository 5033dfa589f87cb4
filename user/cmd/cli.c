// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "log.h"
#include "xs_hash.h"

static int xs_count(const struct xs_opt *t)
{
	int n = 0;

	while (t && t[n].name)
		n++;
	return n;
}

static int xs_nopts(const struct xs_cmd *cmd)
{
	return xs_count(cmd->opts) + xs_count(cmd->keys);
}

/* Option @i of @cmd: its own options first, then the keys of the object it edits. */
static const struct xs_opt *xs_opt_at(const struct xs_cmd *cmd, int i)
{
	int own = xs_count(cmd->opts);

	return i < own ? &cmd->opts[i] : &cmd->keys[i - own];
}

const char *xs_arg(const struct xs_args *a, const char *name)
{
	int i, n = xs_nopts(a->cmd);

	for (i = 0; i < n; i++)
		if (!strcmp(xs_opt_at(a->cmd, i)->name, name))
			return a->val[i];
	return NULL;
}

bool xs_flag(const struct xs_args *a, const char *name)
{
	return xs_arg(a, name) != NULL;
}

int xs_args_keys(const struct xs_args *a, xs_key_setter set, void *spec)
{
	int i, own = xs_count(a->cmd->opts), n = xs_nopts(a->cmd), err;

	for (i = own; i < n; i++) {
		const struct xs_opt *o = xs_opt_at(a->cmd, i);

		if (!a->val[i])
			continue;
		err = set(spec, o->name, o->arg ? a->val[i] : NULL);
		if (err)
			return err;
	}
	return 0;
}

void xs_usage_cmd(const struct xs_cmd *cmd, FILE *f)
{
	int i, n = xs_nopts(cmd);

	fprintf(f, "  xdpsteer %s %s\n      %s\n", cmd->words, cmd->synopsis, cmd->help);
	for (i = 0; i < n; i++) {
		const struct xs_opt *o = xs_opt_at(cmd, i);
		char left[64];

		snprintf(left, sizeof(left), "--%s%s%s", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		fprintf(f, "        %-24s %s\n", left, o->help);
	}
}

static void xs_usage(FILE *f)
{
	const struct xs_cmd *c;

	fprintf(f, "usage: xdpsteer [-v|-vv] COMMAND ...\n\n");
	for (c = xs_commands; c->words; c++)
		xs_usage_cmd(c, f);
	fprintf(f, "\nIPv6 endpoints are written [addr]:port. State lives in %s/IFACE/.\n",
		"/sys/fs/bpf/xdpsteer");
}

/* Number of leading argv words that spell @words ("target add" is 2). */
static int xs_match(const char *words, int argc, char **argv)
{
	char buf[64], *tok, *save = NULL;
	int i = 0;

	snprintf(buf, sizeof(buf), "%s", words);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save), i++)
		if (i >= argc || strcmp(argv[i], tok))
			return 0;
	return i;
}

static int xs_parse_args(const struct xs_cmd *cmd, int argc, char **argv, struct xs_args *a)
{
	int i, j, n = xs_nopts(cmd);

	memset(a, 0, sizeof(*a));
	a->cmd = cmd;
	for (i = 0; i < argc; i++) {
		const char *s = argv[i], *eq;
		size_t len;

		if (strncmp(s, "--", 2) || !s[2]) {
			if (a->npos >= XS_MAX_POS || a->npos >= cmd->max_pos) {
				pr_warn("%s: unexpected argument '%s'\n", cmd->words, s);
				goto usage;
			}
			a->pos[a->npos++] = s;
			continue;
		}
		s += 2;
		eq = strchr(s, '=');
		len = eq ? (size_t)(eq - s) : strlen(s);
		for (j = 0; j < n; j++)
			if (strlen(xs_opt_at(cmd, j)->name) == len &&
			    !strncmp(xs_opt_at(cmd, j)->name, s, len))
				break;
		if (j == n) {
			pr_warn("%s: unknown option '--%.*s'\n", cmd->words, (int)len, s);
			goto usage;
		}
		if (!xs_opt_at(cmd, j)->arg) {
			if (eq) {
				pr_warn("%s: option '--%s' takes no value\n", cmd->words,
					xs_opt_at(cmd, j)->name);
				goto usage;
			}
			a->val[j] = "";
		} else if (eq) {
			a->val[j] = eq + 1;
		} else if (i + 1 < argc) {
			a->val[j] = argv[++i];
		} else {
			pr_warn("%s: option '--%s' needs a value (%s)\n", cmd->words,
				xs_opt_at(cmd, j)->name, xs_opt_at(cmd, j)->arg);
			goto usage;
		}
	}
	if (a->npos < cmd->min_pos) {
		pr_warn("%s: missing arguments\n", cmd->words);
		goto usage;
	}
	return 0;
usage:
	fprintf(stderr, "usage:\n");
	xs_usage_cmd(cmd, stderr);
	return -EINVAL;
}

int xs_cli_main(int argc, char **argv)
{
	const struct xs_cmd *c, *best = NULL;
	struct xs_args a;
	int i = 1, used = 0, n;

	xs_log_init();
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v")) {
			xs_log_set_level(XS_LOG_INFO);
		} else if (!strcmp(argv[i], "-vv")) {
			xs_log_set_level(XS_LOG_DEBUG);
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			xs_usage(stdout);
			return 0;
		} else {
			pr_warn("unknown option '%s'\n", argv[i]);
			xs_usage(stderr);
			return 2;
		}
	}
	if (i >= argc) {
		xs_usage(stderr);
		return 2;
	}
	for (c = xs_commands; c->words; c++) {
		n = xs_match(c->words, argc - i, argv + i);
		if (n > used) {
			used = n;
			best = c;
		}
	}
	if (!best) {
		pr_warn("unknown command '%s' (xdpsteer --help lists commands)\n", argv[i]);
		return 2;
	}
	if (xs_parse_args(best, argc - i - used, argv + i + used, &a))
		return 2;
	return (best->edit ? xs_cmd_edit(&a, best->edit) : best->run(&a)) ? 1 : 0;
}

