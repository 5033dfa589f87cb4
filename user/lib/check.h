/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A service's health check as the model holds it (include/xs_check.h): its
 * keys, parsed one at a time by the service's setter (spec.c), checked as
 * a whole when the service enters a model, printed as a service line's keys,
 * and read and written in the pinned xs_checks map.
 */
#ifndef XS_CHECK_SPEC_H
#define XS_CHECK_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include "handle.h"
#include "xdpsteer.h"
#include "xs_check.h"

/* GLB's defaults (docs/health.md). */
#define XS_CHECK_DEFAULT_INTERVAL_MS 2000
#define XS_CHECK_DEFAULT_TIMEOUT_MS 1000
#define XS_CHECK_DEFAULT_RISE 3
#define XS_CHECK_DEFAULT_FALL 3
#define XS_CHECK_DEFAULT_EXPECT 200
#define XS_CHECK_DEFAULT_PATH "/"
#define XS_CHECK_DEFAULT_MIN_HEALTHY 1
#define XS_CHECK_MIN_INTERVAL_MS 50
#define XS_CHECK_MAX_INTERVAL_MS 3600000
#define XS_CHECK_MIN_TIMEOUT_MS 10
#define XS_CHECK_MAX_COUNT 100	/* rise and fall */

/* The check keys of a service line, in xs_service_keys (spec.c); @... adds to each entry. */
#define XS_CHECK_KEYS(...) \
	XS_KEY("check", "tcp|http|udp|dns|none", \
	       "health check the agent runs on each backend (default none; docs/health.md)", \
	       __VA_ARGS__), \
	XS_KEY("check-port", "P", \
	       "check: the port probed on each backend (default the service's)", __VA_ARGS__), \
	XS_KEY("interval", "DURATION", \
	       "check: time between probes, e.g. 2s or 500ms (default 2s)", __VA_ARGS__), \
	XS_KEY("timeout", "DURATION", \
	       "check: a probe not answered in this fails, at most the interval (default 1s)", \
	       __VA_ARGS__), \
	XS_KEY("rise", "N", \
	       "check: good probes in a row that bring a backend back, 1-100 (default 3)", \
	       __VA_ARGS__), \
	XS_KEY("fall", "N", \
	       "check: failed probes in a row that take it out, 1-100 (default 3)", __VA_ARGS__), \
	XS_KEY("check-path", "/PATH", "http: the path GET asks for (default /)", __VA_ARGS__), \
	XS_KEY("expect", "CODE", \
	       "http: the status code wanted, 100-599 (default 200)", __VA_ARGS__), \
	XS_KEY("check-send", "TEXT", \
	       "udp: the datagram sent (default one zero byte)", __VA_ARGS__), \
	XS_KEY("check-reply", "TEXT", \
	       "udp: what the answer must start with (default: any answer)", __VA_ARGS__), \
	XS_KEY("min-healthy", "N", \
	       "check: fewer backends up than N is reported, and withdraws the VIP from BGP " \
	       "(default 1)", __VA_ARGS__), \
	XS_KEY("on-down", "redecide|drain", \
	       "check: flows pinned to a backend taken out are decided again, or kept as on " \
	       "drain (default redecide)", __VA_ARGS__)
#define XS_CHECK_NKEYS 12

/* Defaults: no check, and GLB's timings should one be turned on. */
void xs_check_init(struct xs_check *c);
/* Check key number @k (0: check, ... as XS_CHECK_KEYS) set to @val; bit k of *@given set. */
int xs_check_set(struct xs_check *c, __u32 *given, int k, const char *val);
/*
 * The whole check of service @key, once every key is set: a key that needs
 * another (check-path needs http), a timeout longer than the interval.
 * -EINVAL printed, naming the service.
 */
int xs_check_validate(const struct xs_check *c, __u32 given, const struct xs_service_key *key);
/* The port probed: check-port, else the service's. */
__u16 xs_check_port(const struct xs_check *c, const struct xs_service_key *key);
/* " check http check-port 80 interval 2000ms ...": the keys that differ from the defaults. */
int xs_check_format(const struct xs_check *c, char *buf, size_t len);
bool xs_check_same(const struct xs_check *a, const struct xs_check *b);

/* The running check of @key (no entry: none). */
void xs_check_get(const struct xs_handle *h, const struct xs_service_key *key, struct xs_check *c);
/* Write it (kind none: remove the entry). -errno printed. */
int xs_check_put(const struct xs_handle *h, const struct xs_service_key *key,
		 const struct xs_check *c);

#endif /* XS_CHECK_SPEC_H */
