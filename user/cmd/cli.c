// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Parsing and help, generated from the command table (main.c), in the
 * manner of iproute2 and bpftool:
 *
 *   xdpsteer [OPTIONS] OBJECT [COMMAND] [ARGS and OPTIONS, in any order]
 *
 * Command words may be shortened to any unique prefix (t l = target list;
 * an exact word always wins); an ambiguous one is refused with the
 * candidates. Options may come anywhere, before or after the positional
 * arguments; -v/-vv and -h/--help are valid everywhere. `help` and --help
 * work at every level, and every error names one short usage line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "help.h"
#include "log.h"
#include "suggest.h"
#include "xs_hash.h"

/* ---- parsing ------------------------------------------------------------- */

/* "-x..." that is an option, not a value such as -1 or a lone "-". */
static bool xs_is_opt(const char *s)
{
	return s[0] == '-' && s[1] && !isdigit((unsigned char)s[1]) && s[1] != '.';
}

/* Does the long option @name (@len chars) take a value, in any command? */
static bool xs_takes_value(const char *name, size_t len)
{
	const struct xs_cmd *c;
	int j;

	for (c = xs_commands; c->words; c++) {
		j = xs_opt_index(c, name, len);
		if (j >= 0)
			return xs_cmd_opt(c, j)->arg != NULL;
	}
	return false;
}

/* What a first pass over argv finds before the command is known. */
struct xs_scan {
	int nwords;
	int word[XS_MAX_POS + 2]; /* argv indexes of the first non-option words */
	bool help, version;
	int verbose;
};

static void xs_prescan(int argc, char **argv, struct xs_scan *s)
{
	bool opts = true;
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 1; i < argc; i++) {
		const char *w = argv[i];

		if (opts && !strcmp(w, "--")) {
			opts = false;
		} else if (opts && xs_is_opt(w)) {
			if (!strcmp(w, "-h") || !strcmp(w, "--help"))
				s->help = true;
			else if (!strcmp(w, "-V") || !strcmp(w, "--version"))
				s->version = true;
			else if (!strcmp(w, "-v") && s->verbose < 1)
				s->verbose = 1;
			else if (!strcmp(w, "-vv"))
				s->verbose = 2;
			else if (!strcmp(w, "-f") ||
				 (!strncmp(w, "--", 2) && !strchr(w, '=') &&
				  xs_takes_value(w + 2, strlen(w + 2))))
				i++; /* its value */
		} else if (s->nwords < (int)XS_ARRAY_SIZE(s->word)) {
			s->word[s->nwords++] = i;
		}
	}
}

/*
 * Everything on the line but the command words, against @cmd's options:
 * options anywhere, --name VALUE, --name=VALUE, -j -p -f FILE; "--" ends
 * them. A usage error is printed with its line.
 */
static int xs_parse_args(const struct xs_cmd *cmd, int argc, char **argv, const int *skip,
			 int nskip, struct xs_args *a)
{
	const char *value = NULL;
	bool opts = true, repeat;
	int i, k, j;

	memset(a, 0, sizeof(*a));
	a->cmd = cmd;
	for (i = 1; i < argc; i++) {
		const char *s = argv[i], *eq, *name;
		size_t len;

		for (k = 0; k < nskip && skip[k] != i; k++)
			;
		if (k < nskip)
			continue;
		if (opts && !strcmp(s, "--")) {
			opts = false;
			continue;
		}
		if (!opts || !xs_is_opt(s)) {
			if (a->npos >= XS_MAX_POS || a->npos >= cmd->max_pos) {
				pr_warn("%s: unexpected argument '%s'\n", cmd->words, s);
				return -EINVAL;
			}
			a->pos[a->npos++] = s;
			continue;
		}
		if (!strcmp(s, "-v") || !strcmp(s, "-vv") || !strcmp(s, "-h") ||
		    !strcmp(s, "--help"))
			continue; /* taken by the first pass */
		if ((!strcmp(s, "-V") || !strcmp(s, "--version")) && cmd->run == xs_cmd_version)
			continue; /* xdpsteer --version [--json] */
		if (s[1] != '-') {
			/* -j, -p, -f FILE, -fFILE */
			name = xs_short_name(s[1]);
			j = name ? xs_opt_index(cmd, name, strlen(name)) : -1;
			if (j < 0 || (s[2] && !xs_cmd_opt(cmd, j)->arg)) {
				pr_warn("%s: unknown option '%s'\n", cmd->words, s);
				return -EINVAL;
			}
			eq = s[2] ? s + 1 : NULL; /* "-fFILE": the value follows the letter */
		} else {
			s += 2;
			eq = strchr(s, '=');
			len = eq ? (size_t)(eq - s) : strlen(s);
			j = xs_opt_index(cmd, s, len);
			if (j < 0) {
				struct xs_suggest sg;
				char hint[96];

				xs_suggest_init(&sg, s, len);
				for (j = 0; j < xs_cmd_nopts(cmd); j++)
					xs_suggest_add(&sg, xs_cmd_opt(cmd, j)->name,
						       strlen(xs_cmd_opt(cmd, j)->name));
				pr_warn("%s: unknown option '--%.*s'%s\n", cmd->words, (int)len, s,
					xs_suggest_hint(&sg, "--", hint, sizeof(hint)));
				return -EINVAL;
			}
		}
		repeat = !strcmp(xs_cmd_opt(cmd, j)->name, "file");
		if (a->val[j] && !repeat) {
			pr_warn("%s: option '--%s' is given twice\n", cmd->words,
				xs_cmd_opt(cmd, j)->name);
			return -EINVAL;
		}
		if (!xs_cmd_opt(cmd, j)->arg) {
			if (eq) {
				pr_warn("%s: option '--%s' takes no value\n", cmd->words,
					xs_cmd_opt(cmd, j)->name);
				return -EINVAL;
			}
			a->val[j] = "";
		} else if (eq) {
			value = eq + 1;
		} else if (xs_cmd_opt(cmd, j)->arg[0] == '[') {
			/*
			 * An optional value ("[SECONDS]"): the next word is the value
			 * only if it is a number, so `stats --watch eth0` still works.
			 */
			if (i + 1 < argc && isdigit((unsigned char)argv[i + 1][0]))
				value = argv[++i];
			else
				a->val[j] = "";
		} else if (i + 1 < argc) {
			value = argv[++i];
		} else {
			pr_warn("%s: option '--%s' needs a value (%s)\n", cmd->words,
				xs_cmd_opt(cmd, j)->name, xs_cmd_opt(cmd, j)->arg);
			return -EINVAL;
		}
		if (value && repeat) {
			if (a->nfiles == XS_MAX_FILES) {
				pr_warn("%s: more than %d files\n", cmd->words, XS_MAX_FILES);
				return -EINVAL;
			}
			a->files[a->nfiles++] = value;
		}
		if (value && !a->val[j])
			a->val[j] = value;
		value = NULL;
	}
	if (a->npos < cmd->min_pos) {
		pr_warn("%s: missing arguments (%s)\n", cmd->words, cmd->synopsis);
		return -EINVAL;
	}
	/* --pretty is JSON, pretty-printed. */
	j = xs_opt_index(cmd, "json", 4);
	if (j >= 0 && xs_flag(a, XS_OPT_PRETTY))
		a->val[j] = "";
	return 0;
}

/*
 * The object, and its command, that the words name. NULL with a usage error
 * printed, or with *@obj set and no command when the object's usage is what
 * was asked for (`xdpsteer target`, `xdpsteer target help`).
 */
static const struct xs_cmd *xs_find(int nwords, char **words, const struct xs_cmd **obj,
				    int *used, int *rc)
{
	const struct xs_cmd *cand[XS_MAX_CMDS], *o, *c;
	char what[64];
	int n;

	*obj = NULL;
	*rc = XS_EXIT_USAGE;
	n = xs_objects(cand, XS_MAX_CMDS);
	o = xs_resolve("", words[0], cand, n, xs_object_name);
	if (!o)
		return NULL;
	*obj = o;
	*used = 1;
	if (!xs_cmd_has_sub(o))
		return o;
	if (nwords < 2 || !strcmp(words[1], "help")) {
		*rc = XS_EXIT_OK;
		return NULL;
	}
	n = xs_subs(o, cand, XS_MAX_CMDS);
	snprintf(what, sizeof(what), "%.*s: ", (int)xs_first_len(o->words), o->words);
	c = xs_resolve(what, words[1], cand, n, xs_sub_name);
	if (c)
		*used = 2;
	return c;
}

/* `xdpsteer help [OBJECT [COMMAND]]`. */
static int xs_help(const struct xs_args *a)
{
	const struct xs_cmd *obj, *c;
	const char *doc = xs_arg(a, XS_OPT_DOC);
	int used, rc;

	if (!a->npos) {
		if (doc)
			return xs_doc_print(doc, NULL, NULL, stdout) ? xs_usage_error(NULL, a->cmd)
								   : XS_EXIT_OK;
		xs_help_all(stdout);
		return XS_EXIT_OK;
	}
	c = xs_find(a->npos, (char **)a->pos, &obj, &used, &rc);
	if (c && used < a->npos) {
		pr_warn("help: unexpected argument '%s'\n", a->pos[used]);
		return xs_usage_error(NULL, a->cmd);
	}
	if (doc && obj && (c || rc == XS_EXIT_OK))
		return xs_doc_print(doc, obj, c, stdout) ? xs_usage_error(NULL, a->cmd) : XS_EXIT_OK;
	if (c && xs_cmd_has_sub(c))
		xs_help_cmd(c, stdout);
	else if (obj && (c || rc == XS_EXIT_OK))
		xs_help_object(obj, stdout);
	else
		return xs_usage_error(obj, NULL);
	return XS_EXIT_OK;
}

int xs_cmd_help(const struct xs_args *a)
{
	/* Reached only through xs_cli_main, which runs xs_help() itself. */
	return xs_help(a) ? -XS_EUSAGE : 0;
}

int xs_cli_main(int argc, char **argv)
{
	const struct xs_cmd *obj, *cmd;
	char *words[XS_MAX_POS + 2];
	struct xs_scan s;
	struct xs_args a;
	int i, used = 0, rc, err;

	xs_log_init();
	xs_prescan(argc, argv, &s);
	if (s.verbose)
		xs_log_set_level(s.verbose > 1 ? XS_LOG_DEBUG : XS_LOG_INFO);
	if (s.nwords <= 0) {
		if (s.help) {
			xs_help_all(stdout);
			return XS_EXIT_OK;
		}
		for (cmd = xs_commands; s.version && cmd->words; cmd++)
			if (cmd->run == xs_cmd_version)
				goto run; /* xdpsteer --version: the version command */
		pr_warn("name a command\n");
		return xs_usage_error(NULL, NULL);
	}
	for (i = 0; i < s.nwords; i++)
		words[i] = argv[s.word[i]];
	cmd = xs_find(s.nwords, words, &obj, &used, &rc);
	if (!cmd) {
		if (rc == XS_EXIT_OK) {
			xs_help_object(obj, stdout);
			return XS_EXIT_OK;
		}
		return xs_usage_error(obj, NULL);
	}
	if (s.help) {
		xs_help_cmd(cmd, stdout);
		return XS_EXIT_OK;
	}
run:
	if (xs_parse_args(cmd, argc, argv, s.word, used, &a))
		return xs_usage_error(NULL, cmd);
	if (cmd->run == xs_cmd_help)
		return xs_help(&a);
	err = cmd->edit ? xs_cmd_edit(&a, cmd->edit) : cmd->run(&a);
	if (err == -XS_EUSAGE)
		return xs_usage_error(NULL, cmd);
	return err ? XS_EXIT_FAIL : XS_EXIT_OK;
}
