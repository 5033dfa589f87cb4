// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The words of the command table (objects, their commands, unique
 * prefixes) and the help made from them: at every level, and one short
 * usage for a usage error.
 */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "help.h"
#include "log.h"
#include "suggest.h"

/* ---- the table's words ------------------------------------------------- */

size_t xs_first_len(const char *words)
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
const struct xs_cmd *xs_resolve(const char *what, const char *word, const struct xs_cmd **cand,
				int n, const char *(*name)(const struct xs_cmd *, size_t *))
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

		if (wl && wl < len && wl >= cand[i]->min_prefix && !strncmp(s, word, wl)) {
			hit = cand[i];
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%.*s",
				 nhit++ ? ", " : "", (int)len, s);
		}
	}
	if (nhit == 1)
		return hit;
	if (nhit) {
		pr_warn("%sambiguous command '%s': %s\n", what, word, list);
	} else {
		struct xs_suggest sg;
		char hint[96];

		xs_suggest_init(&sg, word, wl);
		for (i = 0; i < n; i++) {
			const char *s = name(cand[i], &len);

			xs_suggest_add(&sg, s, len);
		}
		pr_warn("%sunknown command '%s'%s\n", what, word,
			xs_suggest_hint(&sg, NULL, hint, sizeof(hint)));
	}
	return NULL;
}

const char *xs_object_name(const struct xs_cmd *c, size_t *len)
{
	*len = xs_first_len(c->words);
	return c->words;
}

const char *xs_sub_name(const struct xs_cmd *c, size_t *len)
{
	const char *s = xs_sub_word(c);

	*len = strlen(s);
	return s;
}

/* The first command of each object, in table order. */
int xs_objects(const struct xs_cmd **out, int max)
{
	const struct xs_cmd *c;
	int n = 0;

	for (c = xs_commands; c->words && n < max; c++)
		if (xs_cmd_first_of_object(c))
			out[n++] = c;
	return n;
}

/* The commands of @obj's object. */
int xs_subs(const struct xs_cmd *obj, const struct xs_cmd **out, int max)
{
	const struct xs_cmd *c;
	int n = 0;

	for (c = xs_commands; c->words && n < max; c++)
		if (xs_same_object(obj, c))
			out[n++] = c;
	return n;
}


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
void xs_help_cmd(const struct xs_cmd *cmd, FILE *f)
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
void xs_help_object(const struct xs_cmd *obj, FILE *f)
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
void xs_help_all(FILE *f)
{
	const struct xs_cmd *c;

	xs_top_synopsis(f);
	fprintf(f, "\n");
	for (c = xs_commands; c->words; c++)
		xs_usage_cmd(c, f);
	fprintf(f, "\nCommand words may be shortened to a unique prefix (xdpsteer t l eth0 = "
		   "xdpsteer target list eth0);\noptions may come anywhere after xdpsteer. IPv6 "
		   "endpoints are written [addr]:port.\nState lives in %s/IFACE/, or in\n"
		   "%s/netns:COOKIE/IFACE/ outside the initial network namespace\n(xdpsteer "
		   "status IFACE prints it). man xdpsteer has the rest.\n%s",
		XS_PIN_ROOT, XS_PIN_ROOT, xs_common);
}

/* A usage error: its line was printed; now the short usage of where it happened. */
int xs_usage_error(const struct xs_cmd *obj, const struct xs_cmd *cmd)
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
