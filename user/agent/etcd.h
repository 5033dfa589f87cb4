/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A small etcd v3 client over etcd's JSON gateway (/v3/kv/range, /v3/kv/put,
 * /v3/watch, /v3/lease/...), with libcurl for HTTP and TLS and json-c for the
 * messages. Keys and values travel base64-encoded; revisions and lease ids
 * are 64-bit numbers the gateway writes as strings.
 *
 * Unary requests block for at most a few seconds (XS_ETCD_TIMEOUT_MS). A
 * watch is one streaming request driven by xs_etcd_wait(), which also waits
 * for the caller's own descriptors, so a daemon has one poll loop.
 */
#ifndef XS_ETCD_H
#define XS_ETCD_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

struct json_object;

#define XS_ETCD_CONNECT_MS 2000
#define XS_ETCD_TIMEOUT_MS 5000

/* As etcdctl takes them. */
struct xs_etcd_opts {
	const char *endpoints;	/* "http://a:2379,https://b:2379": tried in turn */
	const char *cacert;	/* verify the server with this CA bundle */
	const char *cert, *key;	/* client certificate and its key */
	const char *user;	/* "NAME" or "NAME:PASSWORD" */
	const char *password;	/* when user has none */
};

/* One key's value: @found false when the key does not exist. */
struct xs_etcd_kv {
	bool found;
	char *value;		/* NUL-terminated (malloc'd), NULL when not found */
	size_t len;
	long long mod_revision;
};

struct xs_etcd;

/* NULL on a bad option (printed). */
struct xs_etcd *xs_etcd_new(const struct xs_etcd_opts *o);
void xs_etcd_free(struct xs_etcd *e);
/* The endpoint in use, and the last error's text ("" if none). */
const char *xs_etcd_endpoint(const struct xs_etcd *e);
const char *xs_etcd_error(const struct xs_etcd *e);

/*
 * Unary requests: 0, or -errno with the reason in xs_etcd_error(). -ENOENT:
 * etcd said the lease is unknown; -ESTALE: the revision asked for was
 * compacted; -EIO: etcd could not be reached or answered an error.
 */
/* @key at @rev (0: the newest); *@header_rev: the store's revision the answer is of. */
int xs_etcd_get(struct xs_etcd *e, const char *key, long long rev, struct xs_etcd_kv *kv,
		long long *header_rev);
void xs_etcd_kv_free(struct xs_etcd_kv *kv);
/* @lease 0: none. */
int xs_etcd_put(struct xs_etcd *e, const char *key, const char *value, long long lease);
int xs_etcd_lease_grant(struct xs_etcd *e, long long ttl, long long *id);
/* *@ttl <= 0: the lease has expired. */
int xs_etcd_lease_keepalive(struct xs_etcd *e, long long id, long long *ttl);
int xs_etcd_lease_revoke(struct xs_etcd *e, long long id);

/*
 * A watch of every key with prefix @prefix from revision @start. @fn gets
 * each message's "result" object (created, events, canceled with
 * compact_revision, header). Only one watch at a time; a new one replaces it.
 */
typedef void (*xs_etcd_watch_fn)(void *ctx, struct json_object *result);
int xs_etcd_watch(struct xs_etcd *e, const char *prefix, long long start, xs_etcd_watch_fn fn,
		  void *ctx);
void xs_etcd_watch_stop(struct xs_etcd *e);
/* Whether the watch request is still open (false once it failed or ended). */
bool xs_etcd_watching(const struct xs_etcd *e);

/*
 * Wait up to @timeout_ms for the watch stream or one of @fds (their revents
 * are set as poll() sets them), then deliver whatever the stream brought.
 * 0, or -errno if waiting failed.
 */
int xs_etcd_wait(struct xs_etcd *e, struct pollfd *fds, unsigned int n, int timeout_ms);

/* A 64-bit field of @o, which the gateway writes as a string; 0 when absent. */
long long xs_etcd_i64(struct json_object *o, const char *name);

#endif /* XS_ETCD_H */
