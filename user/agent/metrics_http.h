/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * `xdpsteer agent --metrics ADDR:PORT`: Prometheus text exposition on
 * http://ADDR:PORT/metrics (docs/metrics.md), served by libmicrohttpd from
 * the agent's own loop. The server has no thread: its epoll fd joins the
 * loop's poll, and each scrape reads the agent's state and the maps in the
 * loop's thread, so nothing the loop writes is read half-written.
 */
#ifndef XS_METRICS_HTTP_H
#define XS_METRICS_HTTP_H

#include <stdio.h>
#include <sys/socket.h>

struct xs_agent;
struct xs_metrics_http;

/* ADDR:PORT or [ADDR6]:PORT, port 1-65535, into @ss: 0, or -EINVAL printed. */
int xs_metrics_addr_parse(const char *s, struct sockaddr_storage *ss, socklen_t *len);
/* Listen on @addr for @a: 0, or -errno with the reason printed. */
int xs_metrics_http_start(struct xs_agent *a, const char *addr, struct xs_metrics_http **out);
/* The fd to poll for POLLIN. */
int xs_metrics_http_fd(const struct xs_metrics_http *m);
/* Serve whatever is ready (accept, read, answer); never blocks. */
void xs_metrics_http_run(struct xs_metrics_http *m);
void xs_metrics_http_stop(struct xs_metrics_http *m);

/* agent_metrics.c: the agent's families, then the data plane's of each attached interface. */
int xs_agent_metrics_write(const struct xs_agent *a, FILE *f);

#endif /* XS_METRICS_HTTP_H */
