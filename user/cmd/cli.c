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
#include "log.h"
#include "xs_hash.h"

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

int xs_cmd_nopts(const struct xs_cmd *cmd)
{
	return xs_count(cmd->opts) + xs_count(cmd->keys);
}

/* Option @i of @cmd: its own options first, then the keys of the object it edits. */
const struct xs_opt *xs_cmd_opt(const struct xs_cmd *cmd, int i)
{
	int own = xs_count(cmd->opts);

	return i < own ? &cmd->opts[i] : &cmd->keys[i - own];
}

char xs_opt_short(const char *name)
{
	size_t i;

	for (i = 0; i < XS_ARRAY_SIZE(xs_shorts); i++)
		if (!strcmp(xs_shorts[i].name, name))
			return xs_shorts[i].c;
	return 0;
}

static const char *xs_short_name(char c)
{
	size_t i;

	for (i = 0; i < XS_ARRAY_SIZE(xs_shorts); i++)
		if (xs_shorts[i].c == c)
			return xs_shorts[i].name;
	return NULL;
}

static int xs_opt_index(const struct xs_cmd *cmd, const char *name, size_t len)
{
	int j, n = xs_cmd_nopts(cmd);

	for (j = 0; j < n; j++)
		if (strlen(xs_cmd_opt(cmd, j)->name) == len &&
		    !strncmp(xs_cmd_opt(cmd, j)->name, name, len))
			return j;
	return -1;
}

const char *xs_arg(const struct xs_args *a, const char *name)
{
	int i = xs_opt_index(a->cmd, name, strlen(name));

	return i < 0 ? NULL : a->val[i];
}

bool xs_flag(const struct xs_args *a, const char *name)
{
	return xs_arg(a, name) != NULL;
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

/* ---- the table's words ------------------------------------------------- */

static size_t xs_first_len(const char *words)
{
	return strcspn(words, " ");
}

bool xs_cmd_has_sub(const struct xs_cmd *cmd)
{
	return strchr(cmd->words, ' ') != NULL;
}

bool xs_cmd_first_of_object(const struct xs_cmd *cmd)
{
	size_t n = xs_first_len(cmd->words);
	const struct xs_cmd *c;

	for (c = xs_commands; c < cmd; c++)
		if (xs_first_len(c->words) == n && !strncmp(c->words, cmd->words, n))
			return false;
	return true;
}

/* The second word of a two-word command. */
static const char *xs_sub_word(const struct xs_cmd *cmd)
{
	const char *sp = strchr(cmd->words, ' ');

	return sp ? sp + 1 : "";
}

static bool xs_same_object(const struct xs_cmd *a, const struct xs_cmd *b)
{
	size_t n = xs_first_len(a->words);

	return xs_first_len(b->words) == n && !strncmp(a->words, b->words, n);
}

/*
 * @word among the candidates @cand[0..n) (each named by @name()): an exact
 * match, else the one candidate it is a prefix of. NULL, with the error
 * printed, when none or several match.
 */
static const struct xs_cmd *xs_resolve(const char *what, const char *word,
				       const struct xs_cmd **cand, int n,
				       const char *(*name)(const struct xs_cmd *, size_t *))
{
	const struct xs_cmd *hit = NULL;
	size_t wl = strlen(word), len;
	char list[256] = "";
	int i, nhit = 0;

	for (i = 0; i < n; i++) {
		const char *s = name(cand[i], &len);

		if (len == wl && !strncmp(s, word, wl))
			return cand[i];
	}
	for (i = 0; i < n; i++) {
		const char *s = name(cand[i], &len);

		if (wl && wl < len && !strncmp(s, word, wl)) {
			hit = cand[i];
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%.*s",
				 nhit++ ? ", " : "", (int)len, s);
		}
	}
	if (nhit == 1)
		return hit;
	if (nhit)
		pr_warn("%sambiguous command '%s': %s\n", what, word, list);
	else
		pr_warn("%sunknown command '%s'\n", what, word);
	return NULL;
}

static const char *xs_object_name(const struct xs_cmd *c, size_t *len)
{
	*len = xs_first_len(c->words);
	return c->words;
}

static const char *xs_sub_name(const struct xs_cmd *c, size_t *len)
{
	const char *s = xs_sub_word(c);

	*len = strlen(s);
	return s;
}

/* The first command of each object, in table order. */
static int xs_objects(const struct xs_cmd **out, int max)
{
	const struct xs_cmd *c;
	int n = 0;

	for (c = xs_commands; c->words && n < max; c++)
		if (xs_cmd_first_of_object(c))
			out[n++] = c;
	return n;
}

/* The commands of @obj's object. */
static int xs_subs(const struct xs_cmd *obj, const struct xs_cmd **out, int max)
{
	const struct xs_cmd *c;
	int n = 0;

	for (c = xs_commands; c->words && n < max; c++)
		if (xs_same_object(obj, c))
			out[n++] = c;
	return n;
}

#define XS_MAX_CMDS 64

/* ---- help ---------------------------------------------------------------- */

static void xs_opt_left(const struct xs_opt *o, char *buf, size_t len)
{
	char c = xs_opt_short(o->name);

	if (c)
		snprintf(buf, len, "-%c, --%s%s%s", c, o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
	else /* aligned under the "--" of "-j, --json" */
		snprintf(buf, len, "    --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

static bool xs_is_json_opt(const struct xs_opt *o)
{
	return !strcmp(o->name, "json") || !strcmp(o->name, "pretty");
}

/*
 * One command in the listing of --help and of its object: synopsis, help,
 * options (-j and -p, which every command that prints data has, on the
 * synopsis line).
 */
void xs_usage_cmd(const struct xs_cmd *cmd, FILE *f)
{
	int i, n = xs_cmd_nopts(cmd);
	bool json = false;

	for (i = 0; i < n; i++)
		json |= xs_is_json_opt(xs_cmd_opt(cmd, i));
	fprintf(f, "  xdpsteer %s%s%s%s\n      %s\n", cmd->words, cmd->synopsis[0] ? " " : "",
		cmd->synopsis, json ? " [-j|-p]" : "", cmd->help);
	for (i = 0; i < n; i++) {
		char left[64];

		if (xs_is_json_opt(xs_cmd_opt(cmd, i)))
			continue;
		xs_opt_left(xs_cmd_opt(cmd, i), left, sizeof(left));
		fprintf(f, "        %-28s %s\n", left, xs_cmd_opt(cmd, i)->help);
	}
}

static void xs_synopsis(const struct xs_cmd *cmd, FILE *f)
{
	fprintf(f, "usage: xdpsteer %s%s%s%s\n", cmd->words, cmd->synopsis[0] ? " " : "",
		cmd->synopsis, xs_cmd_nopts(cmd) ? " [OPTIONS]" : "");
}

static const char xs_common[] =
	"common options: -v, -vv (log what each step does; more), -h, --help (this help)\n"
	"exit status: 0 done, 1 refused or failed (nothing changed), 2 usage error\n";

/* `xdpsteer target add --help`. */
static void xs_help_cmd(const struct xs_cmd *cmd, FILE *f)
{
	int i, n = xs_cmd_nopts(cmd);

	xs_synopsis(cmd, f);
	fprintf(f, "%s\n", cmd->help);
	if (n)
		fprintf(f, "\noptions:\n");
	for (i = 0; i < n; i++) {
		char left[64];

		xs_opt_left(xs_cmd_opt(cmd, i), left, sizeof(left));
		fprintf(f, "  %-28s %s\n", left, xs_cmd_opt(cmd, i)->help);
	}
	fprintf(f, "\n%s", xs_common);
}

/* "usage: xdpsteer target { add | del | list } ..." */
static void xs_object_synopsis(const struct xs_cmd *obj, FILE *f)
{
	const struct xs_cmd *sub[XS_MAX_CMDS];
	int i, n = xs_subs(obj, sub, XS_MAX_CMDS);

	if (!xs_cmd_has_sub(obj)) {
		xs_synopsis(obj, f);
		return;
	}
	fprintf(f, "usage: xdpsteer %.*s {", (int)xs_first_len(obj->words), obj->words);
	for (i = 0; i < n; i++)
		fprintf(f, " %s%s", xs_sub_word(sub[i]), i + 1 < n ? " |" : "");
	fprintf(f, " | help } ...\n");
}

/* The shortest prefix of @word that no other of @names[0..n) (each a command) starts with. */
static int xs_unique_len(const char *word, size_t wl, const struct xs_cmd **cand, int n,
			 const char *(*name)(const struct xs_cmd *, size_t *))
{
	size_t k, len;
	int i;

	for (k = 1; k < wl; k++) {
		for (i = 0; i < n; i++) {
			const char *s = name(cand[i], &len);

			if (!(len == wl && !strncmp(s, word, wl)) && len >= k && !strncmp(s, word, k))
				break;
		}
		if (i == n)
			break;
	}
	return (int)k;
}

/* `xdpsteer target`, `xdpsteer target help`, `xdpsteer target --help`. */
static void xs_help_object(const struct xs_cmd *obj, FILE *f)
{
	const struct xs_cmd *sub[XS_MAX_CMDS], *objs[XS_MAX_CMDS];
	int i, n = xs_subs(obj, sub, XS_MAX_CMDS), no = xs_objects(objs, XS_MAX_CMDS);
	int len = (int)xs_first_len(obj->words);
	const char *last;

	if (!xs_cmd_has_sub(obj) || n < 1) {
		xs_help_cmd(obj, f);
		return;
	}
	xs_object_synopsis(obj, f);
	fprintf(f, "\n");
	for (i = 0; i < n; i++)
		xs_usage_cmd(sub[i], f);
	last = xs_sub_word(sub[n - 1]);
	fprintf(f, "\nxdpsteer %.*s COMMAND --help shows one command. A unique prefix names a "
		   "word:\nxdpsteer %.*s %.*s = xdpsteer %s.\n%s",
		len, obj->words, xs_unique_len(obj->words, (size_t)len, objs, no, xs_object_name),
		obj->words, xs_unique_len(last, strlen(last), sub, n, xs_sub_name), last,
		sub[n - 1]->words, xs_common);
}

static void xs_top_synopsis(FILE *f)
{
	const struct xs_cmd *obj[XS_MAX_CMDS];
	int i, n = xs_objects(obj, XS_MAX_CMDS), col;

	fprintf(f, "usage: xdpsteer [-v|-vv] OBJECT { COMMAND | help } [ARGS] [OPTIONS]\n"
		   "       xdpsteer { -h | --help | -V | --version }\n");
	col = fprintf(f, "where  OBJECT := {");
	for (i = 0; i < n; i++) {
		int len = (int)xs_first_len(obj[i]->words);

		if (col + len + 3 > 80)
			col = fprintf(f, "\n                   ");
		col += fprintf(f, " %.*s%s", len, obj[i]->words, i + 1 < n ? " |" : " }\n");
	}
}

/* `xdpsteer --help`, `xdpsteer help`: the whole tree. */
static void xs_help_all(FILE *f)
{
	const struct xs_cmd *c;

	xs_top_synopsis(f);
	fprintf(f, "\n");
	for (c = xs_commands; c->words; c++)
		xs_usage_cmd(c, f);
	fprintf(f, "\nCommand words may be shortened to a unique prefix (xdpsteer t l eth0 = "
		   "xdpsteer target list eth0);\noptions may come anywhere after xdpsteer. IPv6 "
		   "endpoints are written [addr]:port.\nState lives in %s/IFACE/. man xdpsteer "
		   "has the rest.\n%s",
		"/sys/fs/bpf/xdpsteer", xs_common);
}

/* A usage error: its line was printed; now the short usage of where it happened. */
static int xs_usage_error(const struct xs_cmd *obj, const struct xs_cmd *cmd)
{
	if (cmd) {
		xs_synopsis(cmd, stderr);
		fprintf(stderr, "(xdpsteer %s --help: its options)\n", cmd->words);
	} else if (obj) {
		xs_object_synopsis(obj, stderr);
		fprintf(stderr, "(xdpsteer %.*s help: its commands)\n",
			(int)xs_first_len(obj->words), obj->words);
	} else {
		xs_top_synopsis(stderr);
		fprintf(stderr, "(xdpsteer --help: every command)\n");
	}
	return XS_EXIT_USAGE;
}

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
	int i, k, j;
	bool opts = true;

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
				pr_warn("%s: unknown option '--%.*s'\n", cmd->words, (int)len, s);
				return -EINVAL;
			}
		}
		if (!xs_cmd_opt(cmd, j)->arg) {
			if (eq) {
				pr_warn("%s: option '--%s' takes no value\n", cmd->words,
					xs_cmd_opt(cmd, j)->name);
				return -EINVAL;
			}
			a->val[j] = "";
		} else if (eq) {
			a->val[j] = eq + 1;
		} else if (i + 1 < argc) {
			a->val[j] = argv[++i];
		} else {
			pr_warn("%s: option '--%s' needs a value (%s)\n", cmd->words,
				xs_cmd_opt(cmd, j)->name, xs_cmd_opt(cmd, j)->arg);
			return -EINVAL;
		}
	}
	if (a->npos < cmd->min_pos) {
		pr_warn("%s: missing arguments (%s)\n", cmd->words, cmd->synopsis);
		return -EINVAL;
	}
	/* --pretty is JSON, pretty-printed. */
	j = xs_opt_index(cmd, "json", 4);
	if (j >= 0 && xs_flag(a, "pretty"))
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
	int used, rc;

	if (!a->npos) {
		xs_help_all(stdout);
		return XS_EXIT_OK;
	}
	c = xs_find(a->npos, (char **)a->pos, &obj, &used, &rc);
	if (c && used < a->npos) {
		pr_warn("help: unexpected argument '%s'\n", a->pos[used]);
		return xs_usage_error(NULL, a->cmd);
	}
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
	if (!s.nwords) {
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
