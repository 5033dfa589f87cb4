// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The etcd v3 JSON gateway client (etcd.h): the connection, its unary
 * requests and its life cycle. One easy handle serves every unary request and
 * keeps its connection; the watch (etcd_watch.c) is a second handle on a
 * multi handle.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>
#include <json-c/json.h>
#include "base64.h"
#include "etcd_conn.h"

static char *xs_strdup0(const char *s)
{
	return s ? strdup(s) : NULL;
}

const char *xs_etcd_endpoint(const struct xs_etcd *e)
{
	return e->eps[e->cur];
}

const char *xs_etcd_error(const struct xs_etcd *e)
{
	return e->err;
}

/* ---- unary requests --------------------------------------------------------- */

int xs_etcd_get(struct xs_etcd *e, const char *key, long long rev, struct xs_etcd_kv *kv,
		long long *header_rev)
{
	struct json_object *body = json_object_new_object(), *o, *kvs, *hdr, *v;
	int err;

	memset(kv, 0, sizeof(*kv));
	xs_json_add_b64(body, "key", key, strlen(key));
	if (rev)
		xs_json_add_i64(body, "revision", rev);
	err = xs_etcd_call(e, "/v3/kv/range", body, &o);
	json_object_put(body);
	if (err)
		return err;
	json_object_object_get_ex(o, "header", &hdr);
	*header_rev = xs_etcd_i64(hdr, "revision");
	if (json_object_object_get_ex(o, "kvs", &kvs) && json_object_array_length(kvs)) {
		struct json_object *k = json_object_array_get_idx(kvs, 0);

		kv->found = true;
		kv->mod_revision = xs_etcd_i64(k, "mod_revision");
		/* An empty value is left out of the answer. */
		if (json_object_object_get_ex(k, "value", &v))
			kv->value = xs_base64_decode(json_object_get_string(v), &kv->len);
		else
			kv->value = strdup("");
		if (!kv->value) {
			xs_etcd_err(e, "%s: the value of %s is not base64", e->eps[e->cur], key);
			err = -EIO;
		}
	}
	json_object_put(o);
	if (err)
		xs_etcd_kv_free(kv);
	return err;
}

void xs_etcd_kv_free(struct xs_etcd_kv *kv)
{
	free(kv->value);
	memset(kv, 0, sizeof(*kv));
}

int xs_etcd_put(struct xs_etcd *e, const char *key, const char *value, long long lease)
{
	struct json_object *body = json_object_new_object(), *o;
	int err;

	xs_json_add_b64(body, "key", key, strlen(key));
	xs_json_add_b64(body, "value", value, strlen(value));
	if (lease)
		xs_json_add_i64(body, "lease", lease);
	err = xs_etcd_call(e, "/v3/kv/put", body, &o);
	json_object_put(body);
	json_object_put(o);
	return err;
}

int xs_etcd_lease_grant(struct xs_etcd *e, long long ttl, long long *id)
{
	struct json_object *body = json_object_new_object(), *o;
	int err;

	xs_json_add_i64(body, "TTL", ttl);
	err = xs_etcd_call(e, "/v3/lease/grant", body, &o);
	json_object_put(body);
	if (err)
		return err;
	*id = xs_etcd_i64(o, "ID");
	json_object_put(o);
	if (!*id) {
		xs_etcd_err(e, "%s: lease grant gave no id", e->eps[e->cur]);
		return -EIO;
	}
	return 0;
}

int xs_etcd_lease_keepalive(struct xs_etcd *e, long long id, long long *ttl)
{
	struct json_object *body = json_object_new_object(), *o, *r;
	int err;

	xs_json_add_i64(body, "ID", id);
	/* A stream of one request: the gateway answers {"result": {...}}. */
	err = xs_etcd_call(e, "/v3/lease/keepalive", body, &o);
	json_object_put(body);
	if (err)
		return err;
	*ttl = json_object_object_get_ex(o, "result", &r) ? xs_etcd_i64(r, "TTL") : 0;
	json_object_put(o);
	return 0;
}

int xs_etcd_lease_revoke(struct xs_etcd *e, long long id)
{
	struct json_object *body = json_object_new_object(), *o;
	int err;

	xs_json_add_i64(body, "ID", id);
	err = xs_etcd_call(e, "/v3/lease/revoke", body, &o);
	json_object_put(body);
	json_object_put(o);
	return err;
}

/* ---- life cycle -------------------------------------------------------------- */

struct xs_etcd *xs_etcd_new(const struct xs_etcd_opts *o)
{
	struct xs_etcd *e = calloc(1, sizeof(*e));
	char *list, *tok, *save = NULL, *colon;

	if (!e)
		return NULL;
	list = strdup(o->endpoints ? o->endpoints : "");
	for (tok = list ? strtok_r(list, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
		size_t len = strlen(tok);

		if (strncmp(tok, "http://", 7) && strncmp(tok, "https://", 8)) {
			fprintf(stderr, "xdpsteer: --etcd: '%s' is not an http:// or https:// URL\n",
				tok);
			goto fail;
		}
		if (e->n_eps == XS_ETCD_MAX_ENDPOINTS) {
			fprintf(stderr, "xdpsteer: --etcd: more than %d endpoints\n",
				XS_ETCD_MAX_ENDPOINTS);
			goto fail;
		}
		while (len && tok[len - 1] == '/')
			tok[--len] = 0;
		e->eps[e->n_eps++] = strdup(tok);
	}
	if (!e->n_eps) {
		fprintf(stderr, "xdpsteer: --etcd: no endpoint given\n");
		goto fail;
	}
	e->cacert = xs_strdup0(o->cacert);
	e->cert = xs_strdup0(o->cert);
	e->key = xs_strdup0(o->key);
	if (o->user) {
		e->user = strdup(o->user);
		colon = e->user ? strchr(e->user, ':') : NULL;
		if (colon) {
			*colon = 0;
			e->password = strdup(colon + 1);
		} else {
			e->password = xs_strdup0(o->password);
		}
	}
	e->unary = curl_easy_init();
	e->multi = curl_multi_init();
	e->tok = json_tokener_new();
	if (!e->unary || !e->multi || !e->tok)
		goto fail;
	free(list);
	return e;
fail:
	free(list);
	xs_etcd_free(e);
	return NULL;
}

void xs_etcd_free(struct xs_etcd *e)
{
	int i;

	if (!e)
		return;
	xs_etcd_watch_stop(e);
	free(e->queue);
	if (e->tok)
		json_tokener_free(e->tok);
	if (e->multi)
		curl_multi_cleanup(e->multi);
	if (e->unary)
		curl_easy_cleanup(e->unary);
	free(e->resp.p);
	for (i = 0; i < e->n_eps; i++)
		free(e->eps[i]);
	free(e->cacert);
	free(e->cert);
	free(e->key);
	free(e->user);
	if (e->password)
		explicit_bzero(e->password, strlen(e->password));
	free(e->password);
	free(e->token);
	free(e);
}
