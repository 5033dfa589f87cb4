// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* A backend's health in `stats` and `service list`, plain and JSON (json.h). */
#include <stdio.h>
#include <time.h>
#include "health_state.h"
#include "json.h"
#include "names.h"

static const struct xs_health_backend *xs_health_of(const struct xs_health_state *hs,
						    const struct xs_service_key *key,
						    const struct xs_target *t)
{
	return hs ? xs_health_find(hs, key, t->addr) : NULL;
}

void xs_health_json(xs_json *b, const struct xs_health_state *hs,
		    const struct xs_service_key *key, const struct xs_target *t)
{
	const struct xs_health_backend *h = xs_health_of(hs, key, t);

	/* The running state says down even with no agent: it is out of the pool. */
	if (!h) {
		xj_str(b, "health", t->down ? "down" : "unchecked");
		return;
	}
	xj_str(b, "health", xs_name_of(xs_health_names, h->state));
	xj_u64(b, "health_since", h->since);
	xj_u64(b, "ok_in_a_row", h->ok_run);
	xj_u64(b, "failed_in_a_row", h->fail_run);
	xj_u64(b, "probes", h->probes);
	xj_u64(b, "probe_failures", h->failures);
	xj_str(b, "last_error", h->error[0] ? h->error : NULL);
}

const char *xs_health_text(const struct xs_health_state *hs, const struct xs_service_key *key,
			   const struct xs_target *t, char *buf, size_t len)
{
	const struct xs_health_backend *h = xs_health_of(hs, key, t);
	char when[32];
	time_t since;
	struct tm tm;

	if (!h) {
		snprintf(buf, len, "%s", t->down ? ", health down" : "");
		return buf;
	}
	since = (time_t)h->since;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&since, &tm));
	snprintf(buf, len, ", health %s since %s (%u ok, %u failed in a row%s%s)",
		 xs_name_of(xs_health_names, h->state), when, h->ok_run, h->fail_run,
		 h->error[0] ? "; last: " : "", h->error);
	return buf;
}
