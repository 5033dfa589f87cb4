// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The etcd client's watch (etcd.h): one streaming request on the client's
 * multi handle, its response a stream of JSON objects that json-c parses as
 * the bytes arrive; xs_etcd_wait() polls it with the caller's descriptors and
 * delivers what it brought.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "etcd_conn.h"

static void xs_etcd_queue(struct xs_etcd *e, struct json_object *o)
{
	struct json_object *r;

	if (!json_object_object_get_ex(o, "result", &r)) {
		/* The stream ended in an error: say why, and let the caller start over. */
		xs_etcd_answer_error(e, o, 200);
		free(e->token);
		e->token = NULL; /* perhaps expired: the next watch takes a new one */
		e->watch_failed = true;
		json_object_put(o);
		return;
	}
	if (e->n_queue == e->cap_queue) {
		size_t cap = e->cap_queue ? 2 * e->cap_queue : 16;
		struct json_object **q = realloc(e->queue, cap * sizeof(struct json_object *));

		if (!q) {
			xs_etcd_err(e, "out of memory");
			e->watch_failed = true;
			json_object_put(o);
			return;
		}
		e->queue = q;
		e->cap_queue = cap;
	}
	e->queue[e->n_queue++] = o;
}

/* Bytes of the stream: as many whole messages as they complete, queued. */
static size_t xs_watch_write(char *data, size_t size, size_t nmemb, void *arg)
{
	struct xs_etcd *e = arg;
	size_t n = size * nmemb, off = 0;

	while (off < n && !e->watch_failed) {
		struct json_object *o = json_tokener_parse_ex(e->tok, data + off, (int)(n - off));
		enum json_tokener_error jerr = json_tokener_get_error(e->tok);
		size_t used = json_tokener_get_parse_end(e->tok);

		if (o) {
			xs_etcd_queue(e, o);
			json_tokener_reset(e->tok);
		} else if (jerr == json_tokener_continue) {
			return n;
		} else {
			xs_etcd_err(e, "%s: watch stream: %s", e->eps[e->cur],
				    json_tokener_error_desc(jerr));
			e->watch_failed = true;
			break;
		}
		off += used ? used : n - off;
	}
	return e->watch_failed ? 0 : n;
}

void xs_etcd_watch_stop(struct xs_etcd *e)
{
	size_t i;

	if (e->watch) {
		curl_multi_remove_handle(e->multi, e->watch);
		curl_easy_cleanup(e->watch);
		e->watch = NULL;
	}
	curl_slist_free_all(e->watch_hdrs);
	e->watch_hdrs = NULL;
	free(e->watch_body);
	e->watch_body = NULL;
	for (i = 0; i < e->n_queue; i++)
		json_object_put(e->queue[i]);
	e->n_queue = 0;
	e->watching = false;
}

int xs_etcd_watch(struct xs_etcd *e, const char *prefix, long long start, xs_etcd_watch_fn fn,
		  void *ctx)
{
	struct json_object *body = json_object_new_object(), *req = json_object_new_object();
	size_t len = strlen(prefix);
	char *end = strdup(prefix);

	xs_etcd_watch_stop(e);
	if (!end || !len) {
		free(end);
		json_object_put(body);
		json_object_put(req);
		return -EINVAL;
	}
	/* The range end of a prefix: the prefix with its last byte plus one. */
	end[len - 1]++;
	xs_json_add_b64(req, "key", prefix, len);
	xs_json_add_b64(req, "range_end", end, len);
	xs_json_add_i64(req, "start_revision", start);
	json_object_object_add(req, "progress_notify", json_object_new_boolean(1));
	json_object_object_add(body, "create_request", req);
	free(end);
	e->watch_body = strdup(json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN));
	json_object_put(body);
	if (e->user && !e->token && xs_etcd_authenticate(e))
		return -EIO;
	e->watch = curl_easy_init();
	if (!e->watch || !e->watch_body) {
		xs_etcd_watch_stop(e);
		return -ENOMEM;
	}
	json_tokener_reset(e->tok);
	e->watch_failed = false;
	e->fn = fn;
	e->ctx = ctx;
	xs_etcd_setup(e, e->watch, "/v3/watch");
	e->watch_hdrs = xs_etcd_headers(e);
	curl_easy_setopt(e->watch, CURLOPT_HTTPHEADER, e->watch_hdrs);
	curl_easy_setopt(e->watch, CURLOPT_POSTFIELDS, e->watch_body);
	curl_easy_setopt(e->watch, CURLOPT_WRITEFUNCTION, xs_watch_write);
	curl_easy_setopt(e->watch, CURLOPT_WRITEDATA, e);
	if (curl_multi_add_handle(e->multi, e->watch) != CURLM_OK) {
		xs_etcd_watch_stop(e);
		return -ENOMEM;
	}
	e->watching = true;
	return 0;
}

bool xs_etcd_watching(const struct xs_etcd *e)
{
	return e->watching;
}

int xs_etcd_wait(struct xs_etcd *e, struct pollfd *fds, unsigned int n, int timeout_ms)
{
	struct curl_waitfd w[16];
	struct CURLMsg *m;
	int running, left;
	unsigned int i;
	size_t k;

	if (n > sizeof(w) / sizeof(w[0]))
		return -EINVAL;
	for (i = 0; i < n; i++)
		w[i] = (struct curl_waitfd){ .fd = fds[i].fd, .events = fds[i].events };
	if (curl_multi_poll(e->multi, w, n, timeout_ms, NULL) != CURLM_OK)
		return -EIO;
	for (i = 0; i < n; i++)
		fds[i].revents = w[i].revents;
	curl_multi_perform(e->multi, &running);
	while ((m = curl_multi_info_read(e->multi, &left))) {
		long http = 0;

		if (m->msg != CURLMSG_DONE || m->easy_handle != e->watch)
			continue;
		curl_easy_getinfo(e->watch, CURLINFO_RESPONSE_CODE, &http);
		if (m->data.result != CURLE_OK && !e->watch_failed)
			xs_etcd_err(e, "%s: watch: %s", e->eps[e->cur],
				    curl_easy_strerror(m->data.result));
		else if (!e->watch_failed)
			xs_etcd_err(e, "%s: the watch stream ended (HTTP status %ld)",
				    e->eps[e->cur], http);
		if (m->data.result == CURLE_COULDNT_CONNECT ||
		    m->data.result == CURLE_OPERATION_TIMEDOUT)
			e->cur = (e->cur + 1) % e->n_eps;
		e->watching = false;
	}
	if (e->watch_failed)
		e->watching = false;
	/* Deliver after curl is done with the stream: the callback may stop the watch. */
	for (k = 0; k < e->n_queue; k++) {
		struct json_object *o = e->queue[k], *r;

		e->queue[k] = NULL;
		if (json_object_object_get_ex(o, "result", &r) && e->watch)
			e->fn(e->ctx, r);
		json_object_put(o);
	}
	e->n_queue = 0;
	return 0;
}
