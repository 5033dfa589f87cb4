// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The kinds of probe, in a table: each connects (tcp, http) or sends (udp,
 * dns) on a non-blocking socket to the backend's own address at the check
 * port, and reads the start of the answer. Nothing here blocks: the agent's
 * loop calls back when epoll says the socket is ready.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include "probe.h"

static int xs_probe_fail(struct xs_probe *p, const char *why)
{
	snprintf(p->h.error, sizeof(p->h.error), "%s", why);
	/* Spaces would split the health file's fields. */
	for (char *s = p->h.error; *s; s++)
		if (*s == ' ')
			*s = '_';
	return -1;
}

static int xs_probe_send(struct xs_probe *p, const void *buf, size_t len)
{
	if (send(p->fd, buf, len, MSG_NOSIGNAL) != (ssize_t)len)
		return xs_probe_fail(p, strerror(errno));
	p->sent = true;
	return 0;
}

/* http: a GET that asks the server to close, so one read sees the status line. */
static int xs_http_send(struct xs_probe *p)
{
	char req[256], host[64];
	__be32 a;

	memcpy(&a, p->h.addr + 12, sizeof(a)); /* IPv4-mapped: the last four bytes */

	if (p->family == 4)
		inet_ntop(AF_INET, &a, host, sizeof(host));
	else
		inet_ntop(AF_INET6, p->h.addr, host, sizeof(host));
	snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: %s\r\nUser-Agent: xdpsteer-check\r\n"
		 "Connection: close\r\n\r\n", p->ck.path, host);
	return xs_probe_send(p, req, strlen(req));
}

/* "HTTP/1.x CODE ...": the code must be the one expected. */
static int xs_http_answer(struct xs_probe *p)
{
	const char *sp;
	unsigned long code;
	char why[40], *end;

	if (!memchr(p->buf, '\n', p->have) && p->have < sizeof(p->buf) - 1)
		return 0;
	sp = strncmp(p->buf, "HTTP/", 5) ? NULL : strchr(p->buf, ' ');
	if (!sp)
		return xs_probe_fail(p, "not_an_HTTP_answer");
	errno = 0;
	code = strtoul(sp + 1, &end, 10);
	if (errno || end == sp + 1 || code > 999 || (*end != ' ' && *end != '\r' && *end != '\n'))
		return xs_probe_fail(p, "not_an_HTTP_answer");
	if (code == p->ck.expect)
		return 1;
	snprintf(why, sizeof(why), "status %lu, not %u", code, p->ck.expect);
	return xs_probe_fail(p, why);
}

static int xs_udp_send(struct xs_probe *p)
{
	static const char zero;

	if (p->ck.send[0])
		return xs_probe_send(p, p->ck.send, strlen(p->ck.send));
	return xs_probe_send(p, &zero, 1);
}

static int xs_udp_answer(struct xs_probe *p)
{
	size_t n = strlen(p->ck.reply);

	if (p->have >= n && !memcmp(p->buf, p->ck.reply, n))
		return 1;
	return xs_probe_fail(p, "unexpected_answer");
}

/* dns: the root's NS, recursion not asked: any server answers it, even with a refusal. */
static int xs_dns_send(struct xs_probe *p)
{
	unsigned char q[17] = { 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1 };

	if (getrandom(&p->dns_id, sizeof(p->dns_id), GRND_NONBLOCK) != sizeof(p->dns_id))
		p->dns_id = (__u16)(p->next_at * 2654435761U);
	q[0] = (unsigned char)(p->dns_id >> 8);
	q[1] = (unsigned char)p->dns_id;
	return xs_probe_send(p, q, sizeof(q));
}

/* An answer (QR set) to our id, and not SERVFAIL (rcode 2): the server serves. */
static int xs_dns_answer(struct xs_probe *p)
{
	const unsigned char *r = (const unsigned char *)p->buf;

	if (p->have < 12 || ((r[0] << 8) | r[1]) != p->dns_id || !(r[2] & 0x80))
		return xs_probe_fail(p, "not_an_answer_to_the_query");
	if ((r[3] & 0x0f) == 2)
		return xs_probe_fail(p, "SERVFAIL");
	return 1;
}

static const struct {
	int socktype;
	int (*request)(struct xs_probe *p);	/* once connected; NULL: connected is good */
	int (*answer)(struct xs_probe *p);	/* 1 good, 0 more to read, -1 failed */
} xs_probe_kinds[] = {
	[XS_CHECK_TCP] = { SOCK_STREAM, NULL, NULL },
	[XS_CHECK_HTTP] = { SOCK_STREAM, xs_http_send, xs_http_answer },
	[XS_CHECK_UDP] = { SOCK_DGRAM, xs_udp_send, xs_udp_answer },
	[XS_CHECK_DNS] = { SOCK_DGRAM, xs_dns_send, xs_dns_answer },
};

int xs_probe_start(struct xs_probe *p, int epfd)
{
	const typeof(xs_probe_kinds[0]) *k = &xs_probe_kinds[p->ck.kind];
	struct epoll_event ev = { .data.ptr = p };
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *s4 = (void *)&ss;
	struct sockaddr_in6 *s6 = (void *)&ss;
	socklen_t len;
	int r;

	p->sent = false;
	p->have = 0;
	p->fd = socket(p->family == 4 ? AF_INET : AF_INET6,
		       k->socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->fd < 0)
		return xs_probe_fail(p, strerror(errno));
	if (p->family == 4) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(p->port);
		memcpy(&s4->sin_addr.s_addr, p->h.addr + 12, 4); /* IPv4-mapped */
		len = sizeof(*s4);
	} else {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(p->port);
		memcpy(&s6->sin6_addr, p->h.addr, 16);
		len = sizeof(*s6);
	}
	r = connect(p->fd, (struct sockaddr *)&ss, len);
	if (r && errno != EINPROGRESS)
		return xs_probe_fail(p, strerror(errno));
	/* Datagrams: connected at once, so the request goes now and the answer is awaited. */
	if (k->socktype == SOCK_DGRAM && k->request(p))
		return -1;
	ev.events = p->sent ? EPOLLIN : EPOLLOUT;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, p->fd, &ev))
		return xs_probe_fail(p, strerror(errno));
	return 0;
}

int xs_probe_event(struct xs_probe *p, uint32_t events)
{
	const typeof(xs_probe_kinds[0]) *k = &xs_probe_kinds[p->ck.kind];
	int err = 0;
	socklen_t len = sizeof(err);
	ssize_t n;

	if (!p->sent) {
		/* Connected, or refused: SO_ERROR says which. */
		if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &len) || err)
			return xs_probe_fail(p, strerror(err ? err : errno));
		if (!k->request)
			return 1;
		if (k->request(p))
			return -1;
		return 0; /* the caller waits for EPOLLIN now */
	}
	n = recv(p->fd, p->buf + p->have, sizeof(p->buf) - 1 - p->have, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n < 0)
		return xs_probe_fail(p, strerror(errno));
	if (n == 0 && k->socktype == SOCK_STREAM && !p->have)
		return xs_probe_fail(p, "closed_without_an_answer");
	p->have += (size_t)n;
	p->buf[p->have] = 0;
	(void)events;
	if (n == 0 && p->have) {
		int r = k->answer(p);

		return r ? r : xs_probe_fail(p, "answer_cut_short");
	}
	return k->answer(p);
}

void xs_probe_stop(struct xs_probe *p, int epfd)
{
	if (p->fd < 0)
		return;
	epoll_ctl(epfd, EPOLL_CTL_DEL, p->fd, NULL);
	close(p->fd);
	p->fd = -1;
}
