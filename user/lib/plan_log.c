// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* What a plan says (plan.h): each change as it is printed, and errors where they were made. */
#include <stdarg.h>
#include "plan.h"

void xs_plan_say(struct xs_plan *pl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void xs_plan_say(struct xs_plan *pl, const char *fmt, ...)
{
	va_list ap;

	pl->changes++;
	fputs("  ", pl->out);
	va_start(ap, fmt);
	vfprintf(pl->out, fmt, ap);
	va_end(ap);
	fputc('\n', pl->out);
}

void xs_plan_err(const struct xs_plan *pl, const char *source, int line, const char *fmt, ...)
{
	va_list ap;

	source = source ?: pl->origin;
	if (source && line > 0)
		fprintf(stderr, "%s:%d: ", source, line);
	else
		fprintf(stderr, "%s: ", pl->h->ifname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
