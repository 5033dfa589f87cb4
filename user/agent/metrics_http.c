// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The /metrics endpoint (metrics_http.h), on libmicrohttpd: a small,
 * long-maintained HTTP/1.1 server (GNU) that parses requests, keeps
 * connections and times out idle ones, which a hand-written server would
 * have to get right itself (docs/install.md says why it was chosen). It runs
 * in "external" mode with epoll: no thread of its own; the agent's loop polls
 * its one epoll fd and calls MHD_run(), which never blocks.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <microhttpd.h>
#include "endpoint.h"
#include "log.h"
#include "metrics_http.h"
#include "prom.h"
#include "state.h"

#define XS_METRICS_CONN_LIMIT 32
#define XS_METRICS_CONN_TIMEOUT_S 10

struct xs_metrics_http {
	struct MHD_Daemon *d;
	struct xs_agent *a;
	int epoll_fd;
	char why[256];		/* libmicrohttpd's last message: why it could not start */
};

int xs_metrics_addr_parse(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	struct xs_endpoint ep;

	memset(ss, 0, sizeof(*ss));
	if (xs_parse_endpoint(s, "agent: --metrics", &ep))
		return -EINVAL;
	if (!ep.port) {
		pr_warn("agent: --metrics %s: give a port from 1 to 65535\n", s);
		return -EINVAL;
	}
	if (ep.family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_family = AF_INET;
		in->sin_port = ep.port;
		in->sin_addr.s_addr = ep.addr[3];
		*len = sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = ep.port;
		memcpy(&in6->sin6_addr, ep.addr, sizeof(in6->sin6_addr));
		*len = sizeof(*in6);
	}
	return 0;
}

static void xs_metrics_log(void *cls, const char *fmt, va_list ap)
{
	struct xs_metrics_http *m = cls;

	vsnprintf(m->why, sizeof(m->why), fmt, ap);
	m->why[strcspn(m->why, "\n")] = 0;
	pr_debug("agent: metrics: %s\n", m->why);
}

static enum MHD_Result xs_metrics_reply(struct MHD_Connection *c, unsigned int status,
					const char *type, char *body, size_t len)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result xs_metrics_text(struct MHD_Connection *c, unsigned int status,
				       const char *text)
{
	char *body = strdup(text);

	return body ? xs_metrics_reply(c, status, "text/plain; charset=utf-8", body, strlen(body))
		    : MHD_NO;
}

/* GET /metrics: the exposition, built whole for each scrape. */
static enum MHD_Result xs_metrics_answer(void *cls, struct MHD_Connection *c, const char *url,
					 const char *method, const char *version,
					 const char *upload, size_t *upload_size, void **req)
{
	struct xs_metrics_http *m = cls;
	char *body = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return xs_metrics_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	if (*upload_size) {
		*upload_size = 0; /* a GET with a body: the body is ignored */
		return MHD_YES;
	}
	if (!strcmp(url, "/"))
		return xs_metrics_text(c, MHD_HTTP_OK, "xdpsteer agent: metrics are at /metrics\n");
	if (strcmp(url, "/metrics"))
		return xs_metrics_text(c, MHD_HTTP_NOT_FOUND, "not found; metrics are at /metrics\n");
	f = open_memstream(&body, &len);
	if (!f)
		return MHD_NO;
	err = xs_agent_metrics_write(m->a, f);
	if (fclose(f) || err) {
		free(body);
		return xs_metrics_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
				       "cannot write the metrics (the agent's log says why)\n");
	}
	return xs_metrics_reply(c, MHD_HTTP_OK, XS_PROM_CONTENT_TYPE, body, len);
}

int xs_metrics_http_start(struct xs_agent *a, const char *addr, struct xs_metrics_http **out)
{
	struct xs_metrics_http *m = calloc(1, sizeof(*m));
	const union MHD_DaemonInfo *info;
	struct sockaddr_storage ss;
	unsigned int flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
	socklen_t sslen;
	int err;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	err = xs_metrics_addr_parse(addr, &ss, &sslen);
	if (err) {
		free(m);
		return err;
	}
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	m->a = a;
	m->d = MHD_start_daemon(flags, ntohs(((struct sockaddr_in *)&ss)->sin_port), NULL, NULL,
				xs_metrics_answer, m, MHD_OPTION_EXTERNAL_LOGGER, xs_metrics_log,
				m, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)XS_METRICS_CONN_LIMIT,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)XS_METRICS_CONN_TIMEOUT_S,
				MHD_OPTION_END);
	if (!m->d) {
		pr_warn("agent: --metrics %s: cannot listen: %s\n", addr,
			m->why[0] ? m->why : "libmicrohttpd refused to start");
		free(m);
		return -EADDRNOTAVAIL;
	}
	info = MHD_get_daemon_info(m->d, MHD_DAEMON_INFO_EPOLL_FD);
	if (!info || info->epoll_fd < 0) {
		pr_warn("agent: --metrics %s: libmicrohttpd has no epoll fd\n", addr);
		MHD_stop_daemon(m->d);
		free(m);
		return -ENOTSUP;
	}
	m->epoll_fd = info->epoll_fd;
	*out = m;
	return 0;
}

int xs_metrics_http_fd(const struct xs_metrics_http *m)
{
	return m->epoll_fd;
}

void xs_metrics_http_run(struct xs_metrics_http *m)
{
	MHD_run(m->d);
}

void xs_metrics_http_stop(struct xs_metrics_http *m)
{
	if (!m)
		return;
	MHD_stop_daemon(m->d);
	free(m);
}
