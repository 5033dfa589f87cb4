// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* What a plan says (plan.h): each change as it is printed, and errors where they were made. */
#include <stdarg.h>
#include <string.h>
#include <arpa/inet.h>
#include "names.h"
#include "parse.h"
#include "plan.h"
#include "spec.h"

static void xs_fmt_encap(const struct xs_service *s, char *b, size_t n)
{
	snprintf(b, n, "%s", xs_name_of(xs_encap_names, s->encap));
}

static void xs_fmt_src4(const struct xs_service *s, char *b, size_t n)
{
	char a[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, s->src4, a, sizeof(a));
	snprintf(b, n, "%s/%u", a, 32 - s->src4_bits);
}

static void xs_fmt_src6(const struct xs_service *s, char *b, size_t n)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, s->src6, a, sizeof(a));
	snprintf(b, n, "%s/%u", a, 128 - s->src6_bits);
}

static void xs_fmt_quic(const struct xs_service *s, char *b, size_t n)
{
	snprintf(b, n, "%s", s->quic ? "on" : "off");
}

static void xs_fmt_chance(const struct xs_service *s, char *b, size_t n)
{
	snprintf(b, n, "%s", s->second_chance ? "on" : "off");
}

static void xs_fmt_window(const struct xs_service *s, char *b, size_t n)
{
	snprintf(b, n, "%us", s->chance_window_s);
}

/* The delivery settings of struct xs_service, each by its key's name (spec.c). */
static const struct {
	const char *name;
	void (*fmt)(const struct xs_service *s, char *buf, size_t len);
} xs_service_fields[] = {
	{ "encap", xs_fmt_encap },
	{ "tunnel-src", xs_fmt_src4 },
	{ "tunnel-src6", xs_fmt_src6 },
	{ "quic", xs_fmt_quic },
	{ "second-chance", xs_fmt_chance },
	{ "second-chance-window", xs_fmt_window },
};

#define XS_PUT(buf, len, n, ...) \
	((n) += (size_t)snprintf((buf) + (n), (n) < (len) ? (len) - (n) : 0, __VA_ARGS__))

void xs_plan_service_diff(const struct xs_service *o, const struct xs_service *n, char *buf,
			  size_t len)
{
	char a[64], b[64];
	size_t i, at = 0;

	buf[0] = 0;
	for (i = 0; i < sizeof(xs_service_fields) / sizeof(xs_service_fields[0]); i++) {
		xs_service_fields[i].fmt(o, a, sizeof(a));
		xs_service_fields[i].fmt(n, b, sizeof(b));
		if (strcmp(a, b))
			XS_PUT(buf, len, at, "%s%s %s -> %s", at ? ", " : "",
			       xs_service_fields[i].name, a, b);
	}
}

void xs_plan_service_new(const struct xs_service_spec *s, char *buf, size_t len)
{
	struct xs_service_spec d;
	char a[64], b[64];
	size_t i, at = 0;

	XS_PUT(buf, len, at, "%s", xs_name_of(xs_algo_names, s->algo));
	if (s->algo == XS_ALGO_SHUFFLE)
		XS_PUT(buf, len, at, " hand-size %u", s->hand_size);
	XS_PUT(buf, len, at, ", %s", xs_name_of(xs_encap_names, s->svc.encap));
	/* The defaults, as service add starts from them: what differs was set. */
	if (xs_service_spec_init(&d, "192.0.2.1:1/tcp"))
		return;
	for (i = 1; i < sizeof(xs_service_fields) / sizeof(xs_service_fields[0]); i++) {
		xs_service_fields[i].fmt(&d.svc, a, sizeof(a));
		xs_service_fields[i].fmt(&s->svc, b, sizeof(b));
		if (strcmp(a, b))
			XS_PUT(buf, len, at, ", %s %s", xs_service_fields[i].name, b);
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
