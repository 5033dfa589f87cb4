// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * completion bash: a bash completion script made from the command table, so
 * it knows every command word, option and option value the binary does.
 * The Makefile installs its output; `source <(xdpsteer completion bash)`
 * loads it by hand. It needs nothing but bash (not the bash-completion
 * package), completes unique prefixes as the parser reads them
 * (xdpsteer t l <TAB>), and interface names where an IFACE goes.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "log.h"

/* Candidates of one piece of a synopsis or option argument ("IFACE", "cpu", "HEX|random"). */
static void xs_piece(const char *p, size_t n, FILE *f, bool *any)
{
	static const char *const special[][2] = {
		{ "IFACE", "@iface" }, { "IFNAME", "@iface" }, { "OBJECT", "@object" },
		{ "COMMAND", "@sub" }, { "PROTO", "tcp|udp|sctp|icmp|icmpv6" },
	};
	size_t i;

	for (i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		if (strlen(special[i][0]) == n && !strncmp(p, special[i][0], n))
			goto out;
	for (i = 0; i < n; i++)
		if (!islower((unsigned char)p[i]) && p[i] != '-' && !isdigit((unsigned char)p[i]))
			return; /* a placeholder (N, VIP:PORT/PROTO): nothing to offer */
	fprintf(f, "%s%.*s", *any ? "|" : "", (int)n, p);
	*any = true;
	return;
out:
	fprintf(f, "%s%s", *any ? "|" : "", special[i][1]);
	*any = true;
}

/* "a|b" or "[a]" as candidates. */
static void xs_token(const char *t, size_t n, FILE *f, bool *any)
{
	size_t k;

	while (n && t[0] == '[')
		t++, n--;
	while (n && t[n - 1] == ']')
		n--;
	while (n) {
		k = strcspn(t, "|");
		if (k > n)
			k = n;
		xs_piece(t, k, f, any);
		t += k + (k < n);
		n -= k + (k < n);
	}
}

#define XS_MAX_ALT 4

/*
 * The candidates of each positional of @syn, a word per position ("-" for
 * none). Alternatives " | " are aligned right, since they differ only at
 * the end ("IFACE cpu N | dev IFNAME | id N"); "-f FILE" pairs are options.
 */
static void xs_positions(const char *syn, FILE *f)
{
	const char *alt[XS_MAX_ALT][XS_MAX_POS];
	size_t len[XS_MAX_ALT][XS_MAX_POS];
	int nalt = 0, ntok[XS_MAX_ALT] = { 0 }, most = 0, a, p;
	const char *s = syn;

	while (*s && nalt < XS_MAX_ALT) {
		const char *end = strstr(s, " | ");
		size_t n;

		if (!end)
			end = s + strlen(s);
		while (s < end) {
			while (*s == ' ')
				s++;
			n = strcspn(s, " ");
			if ((size_t)(end - s) < n)
				n = (size_t)(end - s);
			if (!n)
				break;
			if (s[0] == '-') {
				s += n; /* "-f FILE": an option, and its value */
				while (*s == ' ')
					s++;
				s += strcspn(s, " ");
				continue;
			}
			if (ntok[nalt] < XS_MAX_POS) {
				alt[nalt][ntok[nalt]] = s;
				len[nalt][ntok[nalt]++] = n;
			}
			s += n;
		}
		if (ntok[nalt] > most)
			most = ntok[nalt];
		nalt++;
		s = *end ? end + 3 : end;
	}
	for (p = 0; p < most; p++) {
		bool any = false;

		fputs(p ? " " : "", f);
		for (a = 0; a < nalt; a++) {
			int k = p - (most - ntok[a]);

			if (k >= 0)
				xs_token(alt[a][k], len[a][k], f, &any);
		}
		if (!any)
			fputs("-", f);
	}
}

static const char xs_script_body[] =
	"# _xdpsteer_pick WORD CANDIDATES...: the candidate WORD names, as the parser reads it:\n"
	"# an exact match, else the one candidate it is a prefix of (at least its min prefix).\n"
	"_xdpsteer_pick() {\n"
	"\tlocal w=$1 c hit= n=0\n"
	"\tshift\n"
	"\tfor c in \"$@\"; do [[ $c == \"$w\" ]] && { echo \"$c\"; return 0; }; done\n"
	"\tfor c in \"$@\"; do [[ $c == \"$w\"* ]] && ((${#w} >= ${_xdpsteer_minpfx[$c]:-0})) &&\n"
	"\t\t{ hit=$c; n=$((n + 1)); }; done\n"
	"\t[[ $n == 1 ]] && echo \"$hit\"\n"
	"}\n"
	"\n"
	"_xdpsteer() {\n"
	"\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev= i w obj= cmd= sub= c= alt\n"
	"\tlocal -a pos=() spec=()\n"
	"\tCOMPREPLY=()\n"
	"\t((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
	"\t# The value of an option.\n"
	"\tif [[ \" $_xdpsteer_valued \" == *\" $prev \"* ]]; then\n"
	"\t\tif [[ -n ${_xdpsteer_choices[$prev]:-} ]]; then\n"
	"\t\t\tCOMPREPLY=($(compgen -W \"${_xdpsteer_choices[$prev]}\" -- \"$cur\"))\n"
	"\t\telif [[ \" $_xdpsteer_files \" == *\" $prev \"* ]]; then\n"
	"\t\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	"\t\tfi\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\t# The words before the cursor: the command, then its positionals.\n"
	"\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	"\t\tw=${COMP_WORDS[i]}\n"
	"\t\tif [[ $w == -?* && $w != -[0-9]* ]]; then\n"
	"\t\t\t[[ \" $_xdpsteer_valued \" == *\" $w \"* ]] && i=$((i + 1))\n"
	"\t\t\tcontinue\n"
	"\t\tfi\n"
	"\t\tif [[ -z $obj ]]; then\n"
	"\t\t\tobj=$(_xdpsteer_pick \"$w\" $_xdpsteer_objects) || return 0\n"
	"\t\t\t[[ -z ${_xdpsteer_subs[$obj]:-} ]] && cmd=$obj\n"
	"\t\telif [[ -z $cmd ]]; then\n"
	"\t\t\t[[ $w == help ]] && return 0\n"
	"\t\t\tsub=$(_xdpsteer_pick \"$w\" ${_xdpsteer_subs[$obj]}) || return 0\n"
	"\t\t\tcmd=\"$obj $sub\"\n"
	"\t\telse\n"
	"\t\t\tpos+=(\"$w\")\n"
	"\t\tfi\n"
	"\tdone\n"
	"\tif [[ $cur == -* ]]; then\n"
	"\t\tif [[ -n $cmd ]]; then\n"
	"\t\t\tCOMPREPLY=($(compgen -W \"${_xdpsteer_opts[$cmd]:-} -v -vv -h --help\" -- \"$cur\"))\n"
	"\t\telse\n"
	"\t\t\tCOMPREPLY=($(compgen -W \"-v -vv -h --help -V --version\" -- \"$cur\"))\n"
	"\t\tfi\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\tif [[ -z $obj ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -W \"$_xdpsteer_objects\" -- \"$cur\"))\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\tif [[ -z $cmd ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -W \"${_xdpsteer_subs[$obj]} help\" -- \"$cur\"))\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\tread -ra spec <<<\"${_xdpsteer_args[$cmd]:-}\"\n"
	"\t((${#pos[@]} < ${#spec[@]})) || return 0\n"
	"\tfor alt in ${spec[${#pos[@]}]//|/ }; do\n"
	"\t\tcase $alt in\n"
	"\t\t@iface) c+=\" $(command ls /sys/class/net 2>/dev/null)\" ;;\n"
	"\t\t@object) c+=\" $_xdpsteer_objects\" ;;\n"
	"\t\t@sub) c+=\" ${_xdpsteer_subs[$(_xdpsteer_pick \"${pos[0]}\" $_xdpsteer_objects)]:-}\" ;;\n"
	"\t\t-) ;;\n"
	"\t\t*) c+=\" $alt\" ;;\n"
	"\t\tesac\n"
	"\tdone\n"
	"\tCOMPREPLY=($(compgen -W \"$c\" -- \"$cur\"))\n"
	"}\n"
	"complete -F _xdpsteer xdpsteer\n";

/* Every option that takes a value, once, in table order; with -f. */
static void xs_valued(FILE *f, bool files)
{
	const struct xs_cmd *c, *d;
	int i, j;

	for (c = xs_commands; c->words; c++) {
		for (i = 0; i < xs_cmd_nopts(c); i++) {
			const struct xs_opt *o = xs_cmd_opt(c, i);
			bool seen = false;

			/* An optional value ("[SECONDS]") may be left out: the next word is free. */
			if (!o->arg || o->arg[0] == '[' || (files && strncmp(o->arg, "FILE", 4)))
				continue;
			for (d = xs_commands; d <= c && !seen; d++)
				for (j = 0; j < xs_cmd_nopts(d) && !seen; j++)
					seen = (d < c || j < i) && !strcmp(xs_cmd_opt(d, j)->name, o->name);
			if (seen)
				continue;
			fprintf(f, " --%s", o->name);
			if (xs_opt_short(o->name))
				fprintf(f, " -%c", xs_opt_short(o->name));
		}
	}
}

int xs_cmd_completion(const struct xs_args *a)
{
	const struct xs_cmd *c;
	FILE *f = stdout;
	int i;

	if (a->npos && strcmp(a->pos[0], "bash")) {
		pr_warn("completion: '%s' is not a shell this knows (bash)\n", a->pos[0]);
		return -XS_EUSAGE;
	}
	fprintf(f, "# bash completion for xdpsteer: generated by `xdpsteer completion bash` from\n"
		   "# its command table (user/cmd/main.c). Do not edit.\n");
	fprintf(f, "_xdpsteer_objects='");
	for (c = xs_commands; c->words; c++)
		if (xs_cmd_first_of_object(c))
			fprintf(f, "%s%.*s", c == xs_commands ? "" : " ",
				(int)strcspn(c->words, " "), c->words);
	/* Objects named only by a longer prefix (struct xs_cmd.min_prefix). */
	fprintf(f, "'\ndeclare -gA _xdpsteer_minpfx=(");
	for (c = xs_commands; c->words; c++)
		if (xs_cmd_first_of_object(c) && c->min_prefix)
			fprintf(f, " [%.*s]=%u", (int)strcspn(c->words, " "), c->words,
				c->min_prefix);
	fprintf(f, " )\ndeclare -gA _xdpsteer_subs=(");
	for (c = xs_commands; c->words; c++) {
		const struct xs_cmd *d;
		size_t n = strcspn(c->words, " ");

		if (!xs_cmd_has_sub(c) || !xs_cmd_first_of_object(c))
			continue;
		fprintf(f, " [%.*s]='", (int)n, c->words);
		for (d = c; d->words; d++)
			if (strlen(d->words) > n && !strncmp(d->words, c->words, n + 1))
				fprintf(f, "%s%s", d == c ? "" : " ", d->words + n + 1);
		fprintf(f, "'");
	}
	fprintf(f, " )\ndeclare -gA _xdpsteer_opts=(");
	for (c = xs_commands; c->words; c++) {
		fprintf(f, " ['%s']='", c->words);
		for (i = 0; i < xs_cmd_nopts(c); i++) {
			const char *name = xs_cmd_opt(c, i)->name;

			fprintf(f, "%s--%s", i ? " " : "", name);
			if (xs_opt_short(name))
				fprintf(f, " -%c", xs_opt_short(name));
		}
		fprintf(f, "'");
	}
	fprintf(f, " )\ndeclare -gA _xdpsteer_args=(");
	for (c = xs_commands; c->words; c++) {
		fprintf(f, " ['%s']='", c->words);
		xs_positions(c->synopsis, f);
		fprintf(f, "'");
	}
	fprintf(f, " )\ndeclare -gA _xdpsteer_choices=(");
	for (c = xs_commands; c->words; c++)
		for (i = 0; i < xs_cmd_nopts(c); i++) {
			const struct xs_opt *o = xs_cmd_opt(c, i);
			const char *p;

			if (!o->arg || !strchr(o->arg, '|'))
				continue;
			fprintf(f, " [--%s]='", o->name);
			for (p = o->arg; *p; p++)
				fputc(*p == '|' ? ' ' : *p, f);
			fprintf(f, "'");
		}
	fprintf(f, " )\n_xdpsteer_valued='");
	xs_valued(f, false);
	fprintf(f, " '\n_xdpsteer_files='");
	xs_valued(f, true);
	fprintf(f, " '\n\n%s", xs_script_body);
	if (fflush(f)) {
		pr_warn("cannot write the output: %s\n", strerror(errno));
		return -EIO;
	}
	return 0;
}
