// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * help --doc: the command table's synopses in the markup of the docs
 * (markdown for docs/usage.md, scdoc for xdpsteer(8)), and the
 * configuration file's keys, so `make docs` writes the documentation's
 * synopses from the binary and tests/ns/test_docs.sh fails when they
 * differ. Every option of a command is on its line, in table order.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "help.h"
#include "log.h"
#include "spec.h"

enum xs_doc_fmt { XS_DOC_MD, XS_DOC_SCD };

/* A markdown line wraps here; scdoc fills its own lines. */
#define XS_DOC_WIDTH 80

/*
 * @s[0..n) in the page's markup. scdoc: an upper-case placeholder (IFACE,
 * VIP:PORT/PROTO, /PATH) underlined, a lower-case literal (cpu, random,
 * native) bold, as man-pages(7) asks; brackets, bars and dots plain.
 */
static void xs_doc_words(const char *s, size_t n, enum xs_doc_fmt fmt, FILE *f)
{
	size_t i = 0, k;

	if (fmt == XS_DOC_MD) {
		fprintf(f, "%.*s", (int)n, s);
		return;
	}
	while (i < n) {
		bool upper = false, lower = false;

		for (k = i; k < n && (isalnum((unsigned char)s[k]) || strchr("_:/-", s[k])); k++) {
			upper |= isupper((unsigned char)s[k]);
			lower |= islower((unsigned char)s[k]);
		}
		if (k == i) {
			fputc(s[i++], f);
			continue;
		}
		if (upper && !lower)
			fprintf(f, "_%.*s_", (int)(k - i), s + i);
		else if (lower && !upper)
			fprintf(f, "*%.*s*", (int)(k - i), s + i);
		else
			fprintf(f, "%.*s", (int)(k - i), s + i);
		i = k;
	}
}

static bool xs_doc_is_json(const struct xs_opt *o)
{
	return !strcmp(o->name, "json") || !strcmp(o->name, "pretty");
}

/* Does the positional synopsis already show option @o ("IFACE -f FILE")? */
static bool xs_doc_in_synopsis(const struct xs_cmd *cmd, const struct xs_opt *o)
{
	char c = xs_opt_short(o->name), sh[4] = { '-', c, ' ', 0 };
	size_t n = strlen(o->name);
	const char *p;

	if (c && strstr(cmd->synopsis, sh))
		return true;
	for (p = cmd->synopsis; (p = strstr(p, "--")); p += 2)
		if (!strncmp(p + 2, o->name, n) && !isalnum((unsigned char)p[2 + n]) &&
		    p[2 + n] != '-')
			return true;
	return false;
}

/* The pieces of one command's line: words, synopsis, [-j|-p], then each option. */
struct xs_doc_line {
	FILE *f;
	enum xs_doc_fmt fmt;
	int col, indent;
};

/* One piece, on a new markdown line when it would pass the width. */
static void xs_doc_piece(struct xs_doc_line *l, const char *s)
{
	int len = (int)strlen(s);

	if (l->fmt == XS_DOC_MD && l->col > l->indent && l->col + 1 + len > XS_DOC_WIDTH)
		l->col = fprintf(l->f, "\n%*s", l->indent, "") - 1;
	else if (l->col)
		l->col += fprintf(l->f, " ");
	xs_doc_words(s, strlen(s), l->fmt, l->f);
	l->col += len;
}

static void xs_doc_opt(struct xs_doc_line *l, const struct xs_opt *o)
{
	char buf[128];

	if (l->fmt == XS_DOC_MD) {
		snprintf(buf, sizeof(buf), "[--%s%s%s]", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		xs_doc_piece(l, buf);
		return;
	}
	/* scdoc: the option bold, its argument as any other words. */
	if (l->col)
		fputc(' ', l->f);
	fprintf(l->f, "[*--%s*", o->name);
	if (o->arg) {
		fputc(' ', l->f);
		xs_doc_words(o->arg, strlen(o->arg), l->fmt, l->f);
	}
	fputc(']', l->f);
	l->col = 1;
}

/* One command: "xdpsteer target add IFACE cpu N | dev IFNAME [-j|-p] [--qsize Q] ...". */
static void xs_doc_cmd(const struct xs_cmd *cmd, enum xs_doc_fmt fmt, FILE *f)
{
	struct xs_doc_line l = { .f = f, .fmt = fmt };
	int i, n = xs_cmd_nopts(cmd);
	bool json = false;

	if (fmt == XS_DOC_MD) {
		l.col = fprintf(f, "xdpsteer %s", cmd->words);
		l.indent = l.col + 1;
	} else {
		fprintf(f, "*%s*", cmd->words);
		l.col = 1;
	}
	if (cmd->synopsis[0]) {
		/* The positional part stays whole: its alternatives read as one. */
		l.col += fprintf(f, " ");
		xs_doc_words(cmd->synopsis, strlen(cmd->synopsis), fmt, f);
		l.col += (int)strlen(cmd->synopsis);
	}
	for (i = 0; i < n; i++)
		json |= xs_doc_is_json(xs_cmd_opt(cmd, i));
	if (json)
		xs_doc_piece(&l, "[-j|-p]");
	for (i = 0; i < n; i++) {
		const struct xs_opt *o = xs_cmd_opt(cmd, i);

		if (!xs_doc_is_json(o) && !xs_doc_in_synopsis(cmd, o))
			xs_doc_opt(&l, o);
	}
}

/*
 * The configuration file's keys, a line each: "OBJECT KEY [ARG]", OBJECT
 * being setting, target, service or backend (user/lib/spec.c's tables, the
 * ones the file's parser reads).
 */
static void xs_doc_keys(FILE *f)
{
	static const struct {
		const char *object;
		const struct xs_key *keys;
	} tables[] = {
		{ "setting", xs_settings_keys },
		{ "target", xs_target_keys },
		{ "service", xs_service_keys },
		{ "backend", xs_backend_keys },
	};
	const struct xs_key *k;
	size_t i;

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		for (k = tables[i].keys; k->opt.name; k++)
			fprintf(f, "%s %s%s%s\n", tables[i].object, k->opt.name,
				k->opt.arg ? " " : "", k->opt.arg ? k->opt.arg : "");
}

/*
 * help --doc FORMAT [OBJECT [COMMAND]]: the synopsis of every command (or
 * of @obj's, or of @cmd alone) in FORMAT, a command a line in markdown
 * (wrapped), a command a line joined by scdoc's "++" line breaks; or, for
 * FORMAT keys, the file's keys. 0, or -1 with the error printed.
 */
int xs_doc_print(const char *format, const struct xs_cmd *obj, const struct xs_cmd *cmd, FILE *f)
{
	const struct xs_cmd *list[XS_MAX_CMDS];
	enum xs_doc_fmt fmt;
	int i, n;

	if (!strcmp(format, "keys")) {
		xs_doc_keys(f);
		return 0;
	}
	if (!strcmp(format, "markdown")) {
		fmt = XS_DOC_MD;
	} else if (!strcmp(format, "scdoc")) {
		fmt = XS_DOC_SCD;
	} else {
		pr_warn("help: --doc '%s': want markdown, scdoc or keys\n", format);
		return -1;
	}
	if (cmd) {
		list[0] = cmd;
		n = 1;
	} else if (obj) {
		n = xs_subs(obj, list, XS_MAX_CMDS);
	} else {
		for (n = 0; xs_commands[n].words && n < XS_MAX_CMDS; n++)
			list[n] = &xs_commands[n];
	}
	for (i = 0; i < n; i++) {
		/* The whole list in markdown: an object of several commands is a paragraph. */
		if (fmt == XS_DOC_MD && !obj && i && xs_cmd_first_of_object(list[i]) &&
		    (xs_cmd_has_sub(list[i]) || xs_cmd_has_sub(list[i - 1])))
			fprintf(f, "\n");
		xs_doc_cmd(list[i], fmt, f);
		fprintf(f, "%s\n", fmt == XS_DOC_SCD && i + 1 < n ? "++" : "");
	}
	return 0;
}
