// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* What a plan says (plan.h): each change as it is printed, and errors where they were made. */
#include <stdarg.h>
#include <string.h>
#include <arpa/inet.h>
#include "names.h"
#include "parse.h"
#include "plan.h"
#include "spec.h"

/* The delivery keys: those bound to a field of struct xs_service (spec.c). */
static bool xs_delivery_key(const struct xs_key *k)
{
	size_t lo = offsetof(struct xs_service_spec, svc);

	return k->size && k->off >= lo && k->off < lo + sizeof(struct xs_service);
}

#define XS_PUT(buf, len, n, ...) \
	((n) += (size_t)snprintf((buf) + (n), (n) < (len) ? (len) - (n) : 0, __VA_ARGS__))

void xs_plan_service_diff(const struct xs_service *o, const struct xs_service *n, char *buf,
			  size_t len)
{
	struct xs_service_spec so = { .svc = *o }, sn = { .svc = *n };
	char a[64], b[64];
	size_t at = 0;
	int i;

	buf[0] = 0;
	for (i = 0; xs_service_keys[i].opt.name; i++) {
		const struct xs_key *k = &xs_service_keys[i];

		if (!xs_delivery_key(k))
			continue;
		xs_key_format(k, &so, a, sizeof(a));
		xs_key_format(k, &sn, b, sizeof(b));
		if (strcmp(a, b))
			XS_PUT(buf, len, at, "%s%s %s -> %s", at ? ", " : "", k->opt.name, a, b);
	}
}

void xs_plan_service_new(const struct xs_service_spec *s, char *buf, size_t len)
{
	const size_t encap = offsetof(struct xs_service_spec, svc.encap);
	struct xs_service_spec d;
	char a[64], b[64];
	size_t at = 0;
	int i;

	XS_PUT(buf, len, at, "%s", xs_name_of(xs_algo_names, s->algo));
	if (s->algo == XS_ALGO_SHUFFLE)
		XS_PUT(buf, len, at, " hand-size %u", s->hand_size);
	XS_PUT(buf, len, at, ", %s", xs_name_of(xs_encap_names, s->svc.encap));
	/* The defaults, as service add starts from them: what differs was set. */
	if (xs_service_spec_init(&d, "192.0.2.1:1/tcp"))
		return;
	for (i = 0; xs_service_keys[i].opt.name; i++) {
		const struct xs_key *k = &xs_service_keys[i];

		if (!xs_delivery_key(k) || k->off == encap)
			continue;
		xs_key_format(k, &d, a, sizeof(a));
		xs_key_format(k, s, b, sizeof(b));
		if (strcmp(a, b))
			XS_PUT(buf, len, at, ", %s %s", k->opt.name, b);
	}
	if (s->flow_fields) {
		xs_format_fields(s->flow_fields, a, sizeof(a));
		XS_PUT(buf, len, at, ", hash-fields %s", a);
	}
}

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
