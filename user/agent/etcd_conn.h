/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The etcd client's insides: its state and its plumbing (etcd_conn.c),
 * which the unary requests and life cycle (etcd.c) and the watch
 * (etcd_watch.c) share. Nothing outside those three files includes this.
 */
#ifndef XS_ETCD_CONN_H
#define XS_ETCD_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <curl/curl.h>
#include <json-c/json.h>
#include "etcd.h"

#define XS_ETCD_MAX_ENDPOINTS 8
#define XS_ETCD_MAX_BODY (64 << 20)

/* gRPC status codes the gateway passes on. */
#define XS_GRPC_NOT_FOUND 5
#define XS_GRPC_OUT_OF_RANGE 11

struct xs_buf {
	char *p;
	size_t len, cap;
};

struct xs_etcd {
	char *eps[XS_ETCD_MAX_ENDPOINTS];
	int n_eps, cur;
	char *cacert, *cert, *key, *user, *password;
	char *token;			/* from /v3/auth/authenticate, when a user is set */
	char err[512];
	CURL *unary;
	struct xs_buf resp;
	CURLM *multi;
	CURL *watch;
	char *watch_body;
	struct curl_slist *watch_hdrs;
	json_tokener *tok;
	bool watching;
	bool watch_failed;		/* the stream carried an error or could not be parsed */
	struct json_object **queue;	/* parsed, not yet delivered */
	size_t n_queue, cap_queue;
	xs_etcd_watch_fn fn;
	void *ctx;
};

void xs_etcd_err(struct xs_etcd *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Options every request shares: the URL of @path at the current endpoint, TLS, timeouts. */
void xs_etcd_setup(const struct xs_etcd *e, CURL *c, const char *path);
/* The JSON content type and, once authenticated, the token. */
struct curl_slist *xs_etcd_headers(const struct xs_etcd *e);
/* An error answer's gRPC code, or -1 when it names none; 0 when @o is no error. */
int xs_etcd_answer_error(struct xs_etcd *e, struct json_object *o, long http);
int xs_etcd_authenticate(struct xs_etcd *e);
/*
 * POST @body to @path as the configured user, if any: *@out the parsed
 * answer (json_object_put() it), or -errno with the reason in e->err
 * (-ENOENT: no such lease, -ESTALE: compacted, -EIO: anything else).
 */
int xs_etcd_call(struct xs_etcd *e, const char *path, struct json_object *body,
		 struct json_object **out);
void xs_json_add_b64(struct json_object *o, const char *name, const char *s, size_t len);
void xs_json_add_i64(struct json_object *o, const char *name, long long v);

#endif /* XS_ETCD_CONN_H */
