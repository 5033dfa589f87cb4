// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The agent's etcd mode (docs/fleet.md): the two configuration keys read,
 * then watched; a lost watch or a lost etcd retried with backoff and jitter;
 * the status key kept under a lease. A new revision is only marked due
 * (apply_due): the loop commits it (agent.c), by the agent's one path to a
 * change of state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "base64.h"
#include "clock.h"
#include "log.h"
#include "state.h"

/* etcd answered: whatever was wrong with it is over. */
static void xs_agent_etcd_up(struct xs_agent *a)
{
	a->etcd_up = true;
	a->etcd_error[0] = 0;
	a->backoff_ms = XS_BACKOFF_MIN_MS;
}

/* Up to a fifth of the backoff, different on every host: a fleet does not retry in step. */
static int xs_agent_jitter(struct xs_agent *a)
{
	/* xorshift32: spreading retries needs no better randomness. */
	a->jitter ^= a->jitter << 13;
	a->jitter ^= a->jitter >> 17;
	a->jitter ^= a->jitter << 5;
	return a->backoff_ms >= 5 ? (int)(a->jitter % (unsigned int)(a->backoff_ms / 5)) : 0;
}

static void xs_agent_etcd_down(struct xs_agent *a, long long now, const char *why)
{
	/* Said once per outage, and again only if the reason changes. */
	if (a->etcd_up || strcmp(why, a->etcd_error))
		printf("agent: etcd: %s; retrying (the data plane keeps revision %lld)\n", why,
		       xs_agent_applied(a));
	a->etcd_up = false;
	a->etcd_errors++;
	snprintf(a->etcd_error, sizeof(a->etcd_error), "%s", why);
	xs_etcd_watch_stop(a->etcd);
	a->connected = false;
	a->retry_at = now + a->backoff_ms + xs_agent_jitter(a);
	a->backoff_ms = a->backoff_ms * 2 > XS_BACKOFF_MAX_MS ? XS_BACKOFF_MAX_MS : a->backoff_ms * 2;
}

static bool xs_json_bool(struct json_object *o, const char *name)
{
	struct json_object *v;

	return json_object_object_get_ex(o, name, &v) && json_object_get_boolean(v);
}

static long long xs_agent_config_rev(const struct xs_agent *a)
{
	return a->mod_rev[0] > a->mod_rev[1] ? a->mod_rev[0] : a->mod_rev[1];
}

/* One message of the watch: events, the watch's creation, progress, or its end. */
static void xs_agent_on_watch(void *ctx, struct json_object *r)
{
	struct xs_agent *a = ctx;
	struct json_object *hdr = NULL, *evs, *v;
	bool changed = false;
	size_t i, n;
	int k;

	json_object_object_get_ex(r, "header", &hdr);
	if (xs_json_bool(r, "canceled")) {
		long long compact = xs_etcd_i64(r, "compact_revision");

		if (compact) {
			/* Nothing to wait for: read the keys as they are now, then watch on. */
			printf("agent: etcd has compacted its history past revision %lld (to %lld): "
			       "reading the keys anew\n", a->seen + 1, compact);
			xs_etcd_watch_stop(a->etcd);
			a->connected = false;
			a->synced = false;
			a->retry_at = 0;
		} else {
			char why[XS_AGENT_ERR_LEN];

			snprintf(why, sizeof(why), "the watch was canceled: %s",
				 json_object_object_get_ex(r, "cancel_reason", &v) ?
					 json_object_get_string(v) : "no reason given");
			xs_agent_etcd_down(a, xs_mono_ms(), why);
		}
		return;
	}
	if (xs_json_bool(r, "created")) {
		xs_agent_etcd_up(a);
		printf("agent: etcd %s: watching %s from revision %lld\n",
		       xs_etcd_endpoint(a->etcd), a->watch_prefix, a->seen + 1);
		return;
	}
	if (!json_object_object_get_ex(r, "events", &evs) || !(n = json_object_array_length(evs))) {
		/* Progress: every event up to the header's revision has been sent. */
		if (xs_etcd_i64(hdr, "revision") > a->seen)
			a->seen = xs_etcd_i64(hdr, "revision");
		return;
	}
	for (i = 0; i < n; i++) {
		struct json_object *ev = json_object_array_get_idx(evs, i), *kv;
		long long rev;
		size_t len;
		char *key;

		if (!json_object_object_get_ex(ev, "kv", &kv) ||
		    !json_object_object_get_ex(kv, "key", &v))
			continue;
		rev = xs_etcd_i64(kv, "mod_revision");
		if (rev > a->seen)
			a->seen = rev;
		key = xs_base64_decode(json_object_get_string(v), &len);
		for (k = 0; key && k < XS_N_KEYS; k++) {
			if (strcmp(key, a->key[k]))
				continue;
			free(a->text[k]);
			a->text[k] = NULL;
			a->text_len[k] = 0;
			/* A delete is "type": "DELETE"; a put leaves the type out (0). */
			if (!json_object_object_get_ex(ev, "type", &v)) {
				if (json_object_object_get_ex(kv, "value", &v))
					a->text[k] = xs_base64_decode(json_object_get_string(v),
								      &a->text_len[k]);
				else
					a->text[k] = strdup("");
			}
			a->mod_rev[k] = rev;
			changed = true;
		}
		free(key);
	}
	if (!changed)
		return;
	a->revision = xs_agent_config_rev(a);
	a->have_config = true;
	a->apply_due = true;
}

/*
 * Read both keys at one revision, apply them if they changed, then watch
 * from the next revision. A store behind what this agent has already seen
 * is refused: the agent only ever moves forward.
 */
static int xs_agent_sync(struct xs_agent *a, bool force, char *why, size_t len)
{
	struct xs_etcd_kv kv[XS_N_KEYS];
	long long rev = 0, rev2;
	bool changed = false;
	int k, err;

	err = xs_etcd_get(a->etcd, a->key[0], 0, &kv[0], &rev);
	if (!err) {
		err = xs_etcd_get(a->etcd, a->key[1], rev, &kv[1], &rev2);
		if (err)
			xs_etcd_kv_free(&kv[0]);
	}
	if (err) {
		snprintf(why, len, "%s", xs_etcd_error(a->etcd));
		return err;
	}
	if (rev < a->seen) {
		snprintf(why, len,
			 "etcd is at revision %lld, behind revision %lld that this agent has seen: "
			 "refusing to go back (restored from a backup? restart the agent to "
			 "follow it)", rev, a->seen);
		for (k = 0; k < XS_N_KEYS; k++)
			xs_etcd_kv_free(&kv[k]);
		return -ESTALE;
	}
	for (k = 0; k < XS_N_KEYS; k++) {
		bool had = a->text[k] != NULL;

		if (had != kv[k].found || (had && strcmp(a->text[k], kv[k].value)) ||
		    (kv[k].found && kv[k].mod_revision != a->mod_rev[k]))
			changed = true;
		/* A key that went away while we were not watching: gone by @rev at the latest. */
		if (had && !kv[k].found)
			a->mod_rev[k] = rev;
		else
			a->mod_rev[k] = kv[k].mod_revision;
		free(a->text[k]);
		a->text[k] = kv[k].value;
		a->text_len[k] = kv[k].len;
		kv[k].value = NULL;
	}
	a->seen = rev;
	a->synced = true;
	if (changed || force || !a->have_config) {
		a->revision = xs_agent_config_rev(a);
		a->have_config = true;
		a->apply_due = true;
	}
	err = xs_etcd_watch(a->etcd, a->watch_prefix, rev + 1, xs_agent_on_watch, a);
	if (err)
		snprintf(why, len, "%s", xs_etcd_error(a->etcd));
	return err;
}

/* Connect, keep the lease, write the status: whatever is due. */
void xs_agent_etcd_step(struct xs_agent *a, long long now, bool *force)
{
	char *status, why[XS_AGENT_ERR_LEN];
	long long ttl = 0;
	int err = 0;

	if (a->connected && !xs_etcd_watching(a->etcd))
		xs_agent_etcd_down(a, now, xs_etcd_error(a->etcd));
	if (!a->connected) {
		if (now < a->retry_at)
			return;
		if (a->synced) {
			err = xs_etcd_watch(a->etcd, a->watch_prefix, a->seen + 1, xs_agent_on_watch, a);
			snprintf(why, sizeof(why), "%s", xs_etcd_error(a->etcd));
		} else {
			err = xs_agent_sync(a, *force, why, sizeof(why));
		}
		if (err) {
			xs_agent_etcd_down(a, now, why);
			return;
		}
		*force = false;
		a->connected = true;
	}
	if (!a->lease || now >= a->keepalive_at) {
		if (a->lease) {
			err = xs_etcd_lease_keepalive(a->etcd, a->lease, &ttl);
			if (!err && ttl <= 0) {
				printf("agent: etcd: the status key's lease expired; taking a new one\n");
				a->lease = 0;
			}
		}
		if (!err && !a->lease) {
			err = xs_etcd_lease_grant(a->etcd, a->o->lease_ttl, &a->lease);
			ttl = a->o->lease_ttl;
			a->status_dirty = true;
		}
		if (err) {
			xs_agent_etcd_down(a, now, xs_etcd_error(a->etcd));
			return;
		}
		a->keepalive_at = now + (ttl * 1000 / 3 > 500 ? ttl * 1000 / 3 : 500);
		xs_agent_etcd_up(a);
	}
	if (a->status_dirty) {
		status = xs_agent_status_json(a);
		err = status ? xs_etcd_put(a->etcd, a->status_key, status, a->lease) : -ENOMEM;
		free(status);
		if (err == -ENOENT) {
			a->lease = 0; /* gone while we were away: the next step takes a new one */
		} else if (err) {
			xs_agent_etcd_down(a, now, xs_etcd_error(a->etcd));
		} else {
			a->status_dirty = false;
		}
	}
}

/* The keys under --prefix for --host. */
int xs_agent_keys(struct xs_agent *a)
{
	const char *p = a->o->prefix, *h = a->o->host;
	size_t len = strlen(p);
	int n;

	while (len > 1 && p[len - 1] == '/')
		len--;
	if (!len || strchr(h, '/') || !*h) {
		pr_warn("agent: want a non-empty --prefix and a --host without '/'\n");
		return -EINVAL;
	}
	snprintf(a->key[XS_KEY_FLEET], sizeof(a->key[0]), "%.*s/fleet", (int)len, p);
	snprintf(a->key[XS_KEY_HOST], sizeof(a->key[0]), "%.*s/hosts/%s", (int)len, p, h);
	snprintf(a->status_key, sizeof(a->status_key), "%.*s/status/%s", (int)len, p, h);
	n = snprintf(a->watch_prefix, sizeof(a->watch_prefix), "%.*s/", (int)len, p);
	if (n < 0 || (size_t)n >= sizeof(a->watch_prefix) - 1)
		return -ENAMETOOLONG;
	snprintf(a->source[0], sizeof(a->source[0]), "etcd:%s", a->key[0]);
	snprintf(a->source[1], sizeof(a->source[1]), "etcd:%s", a->key[1]);
	return 0;
}
