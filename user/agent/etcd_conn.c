// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The etcd client's plumbing (etcd_conn.h): one POST to the current
 * endpoint with its TLS material and token, the answer parsed or its error
 * read, authentication renewed once when etcd refuses a token. The unary
 * requests (etcd.c) and the watch (etcd_watch.c) both stand on it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>
#include <json-c/json.h>
#include "base64.h"
#include "etcd_conn.h"

void xs_etcd_err(struct xs_etcd *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->err, sizeof(e->err), fmt, ap);
	va_end(ap);
}

static size_t xs_buf_write(char *data, size_t size, size_t nmemb, void *arg)
{
	struct xs_buf *b = arg;
	size_t n = size * nmemb;

	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		if (cap > XS_ETCD_MAX_BODY)
			return 0;
		p = realloc(b->p, cap);
		if (!p)
			return 0;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = 0;
	return n;
}

/* Options every request shares: TLS material, no signals, bounded connects. */
void xs_etcd_setup(const struct xs_etcd *e, CURL *c, const char *path)
{
	char url[1024];

	snprintf(url, sizeof(url), "%s%s", e->eps[e->cur], path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)XS_ETCD_CONNECT_MS);
	curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(c, CURLOPT_TCP_KEEPIDLE, 5L);
	curl_easy_setopt(c, CURLOPT_TCP_KEEPINTVL, 2L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	if (e->cacert)
		curl_easy_setopt(c, CURLOPT_CAINFO, e->cacert);
	if (e->cert)
		curl_easy_setopt(c, CURLOPT_SSLCERT, e->cert);
	if (e->key)
		curl_easy_setopt(c, CURLOPT_SSLKEY, e->key);
}

struct curl_slist *xs_etcd_headers(const struct xs_etcd *e)
{
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	char auth[1024];

	if (h && e->token) {
		snprintf(auth, sizeof(auth), "Authorization: %s", e->token);
		h = curl_slist_append(h, auth);
	}
	return h;
}

/* An error answer: {"error": "...", "message": "...", "code": N}. The gRPC code, or -1. */
int xs_etcd_answer_error(struct xs_etcd *e, struct json_object *o, long http)
{
	struct json_object *v, *msg = NULL;

	if (o && json_object_object_get_ex(o, "error", &v)) {
		/* A streaming error nests it: {"error": {"grpc_code", "message"}}. */
		if (json_object_is_type(v, json_type_object)) {
			json_object_object_get_ex(v, "message", &msg);
			xs_etcd_err(e, "%s: %s", e->eps[e->cur],
				    msg ? json_object_get_string(msg) : json_object_get_string(v));
			return json_object_object_get_ex(v, "grpc_code", &v) ?
				       json_object_get_int(v) : -1;
		}
		json_object_object_get_ex(o, "message", &msg);
		xs_etcd_err(e, "%s: %s", e->eps[e->cur], json_object_get_string(msg ? msg : v));
		return json_object_object_get_ex(o, "code", &v) ? json_object_get_int(v) : -1;
	}
	if (http != 200) {
		xs_etcd_err(e, "%s: HTTP status %ld", e->eps[e->cur], http);
		return -1;
	}
	return 0;
}

/*
 * POST @body to @path; *@out the parsed answer, or in *@code the gRPC code
 * of etcd's refusal (-1 when there is none to tell). An unreachable endpoint
 * moves on to the next one for the next request.
 */
static int xs_etcd_post(struct xs_etcd *e, const char *path, struct json_object *body,
			struct json_object **out, int *code)
{
	struct curl_slist *hdrs;
	struct json_object *o;
	CURLcode rc;
	long http = 0;

	*out = NULL;
	*code = 0;
	curl_easy_reset(e->unary);
	xs_etcd_setup(e, e->unary, path);
	hdrs = xs_etcd_headers(e);
	curl_easy_setopt(e->unary, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(e->unary, CURLOPT_POSTFIELDS, json_object_to_json_string_ext(body,
										 JSON_C_TO_STRING_PLAIN));
	curl_easy_setopt(e->unary, CURLOPT_TIMEOUT_MS, (long)XS_ETCD_TIMEOUT_MS);
	curl_easy_setopt(e->unary, CURLOPT_WRITEFUNCTION, xs_buf_write);
	curl_easy_setopt(e->unary, CURLOPT_WRITEDATA, &e->resp);
	e->resp.len = 0;
	rc = curl_easy_perform(e->unary);
	curl_slist_free_all(hdrs);
	if (rc != CURLE_OK) {
		xs_etcd_err(e, "%s: %s", e->eps[e->cur], curl_easy_strerror(rc));
		e->cur = (e->cur + 1) % e->n_eps;
		*code = -1;
		return -EIO;
	}
	curl_easy_getinfo(e->unary, CURLINFO_RESPONSE_CODE, &http);
	o = e->resp.len ? json_tokener_parse(e->resp.p) : NULL;
	*code = xs_etcd_answer_error(e, o, http);
	if (!*code && !o) {
		xs_etcd_err(e, "%s%s: the answer is not JSON", e->eps[e->cur], path);
		*code = -1;
	}
	if (*code) {
		json_object_put(o);
		return *code == XS_GRPC_NOT_FOUND    ? -ENOENT :
		       *code == XS_GRPC_OUT_OF_RANGE ? -ESTALE :
						       -EIO;
	}
	*out = o;
	return 0;
}

int xs_etcd_authenticate(struct xs_etcd *e)
{
	struct json_object *body = json_object_new_object(), *o, *v;
	int err, code;

	json_object_object_add(body, "name", json_object_new_string(e->user));
	json_object_object_add(body, "password", json_object_new_string(e->password ?: ""));
	err = xs_etcd_post(e, "/v3/auth/authenticate", body, &o, &code);
	json_object_put(body);
	if (err)
		return err;
	if (!json_object_object_get_ex(o, "token", &v)) {
		xs_etcd_err(e, "%s: authentication gave no token", e->eps[e->cur]);
		json_object_put(o);
		return -EIO;
	}
	free(e->token);
	e->token = strdup(json_object_get_string(v));
	json_object_put(o);
	return e->token ? 0 : -ENOMEM;
}

/* xs_etcd_post() as the configured user, if any: with a token, renewed once if refused. */
int xs_etcd_call(struct xs_etcd *e, const char *path, struct json_object *body,
			struct json_object **out)
{
	int err, code, attempt;

	*out = NULL;
	for (attempt = 0;; attempt++) {
		if (e->user && !e->token && xs_etcd_authenticate(e))
			return -EIO;
		err = xs_etcd_post(e, path, body, out, &code);
		/*
		 * A token expires, and etcd says so in more than one way ("invalid
		 * auth token", "user name is empty", "revision in header is old"):
		 * any refusal but a missing lease or a compacted revision is worth
		 * one try with a new token.
		 */
		if (!err || !e->user || attempt || code <= 0 || code == XS_GRPC_NOT_FOUND ||
		    code == XS_GRPC_OUT_OF_RANGE)
			return err;
		free(e->token);
		e->token = NULL;
	}
}

long long xs_etcd_i64(struct json_object *o, const char *name)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, name, &v) ? (long long)json_object_get_int64(v) : 0;
}

void xs_json_add_b64(struct json_object *o, const char *name, const char *s, size_t len)
{
	char *b = xs_base64_encode(s, len);

	json_object_object_add(o, name, json_object_new_string(b ? b : ""));
	free(b);
}

void xs_json_add_i64(struct json_object *o, const char *name, long long v)
{
	char s[24];

	snprintf(s, sizeof(s), "%lld", v);
	json_object_object_add(o, name, json_object_new_string(s));
}
