// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Prometheus text exposition (prom.h). */
#include <math.h>
#include "prom.h"

void xs_prom_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '\\':
			fputs("\\\\", f);
			break;
		case '"':
			fputs("\\\"", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

/* HELP text escapes only \ and newline (a quote is literal there). */
static void xs_prom_help(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void xs_prom_labels(FILE *f, const char *name, const struct xs_prom_label *l, size_t nl)
{
	size_t i;

	fputs(name, f);
	if (!nl)
		return;
	fputc('{', f);
	for (i = 0; i < nl; i++) {
		fprintf(f, "%s%s=\"", i ? "," : "", l[i].name);
		xs_prom_escape(f, l[i].value);
		fputc('"', f);
	}
	fputc('}', f);
}

void xs_prom_sample(FILE *f, const char *name, const struct xs_prom_label *l, size_t nl,
		    double value)
{
	xs_prom_labels(f, name, l, nl);
	if (isnan(value))
		fputs(" NaN\n", f);
	else
		fprintf(f, " %.17g\n", value);
}

/* Counters are written as integers: exact, and equal to what `stats --json` prints. */
void xs_prom_sample_u64(FILE *f, const char *name, const struct xs_prom_label *l, size_t nl,
			__u64 value)
{
	xs_prom_labels(f, name, l, nl);
	fprintf(f, " %llu\n", (unsigned long long)value);
}

void xs_prom_write(FILE *f, const struct xs_prom_family *t, size_t n, const void *const *srcs,
		   size_t nsrcs)
{
	size_t i, s;

	for (i = 0; i < n; i++) {
		fprintf(f, "# HELP %s ", t[i].name);
		xs_prom_help(f, t[i].help);
		fprintf(f, "\n# TYPE %s %s\n", t[i].name, t[i].type);
		for (s = 0; s < nsrcs; s++)
			t[i].emit(f, &t[i], srcs[s]);
	}
}
