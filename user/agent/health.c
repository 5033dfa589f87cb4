// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The health checker (health.h): probes scheduled on one epoll descriptor,
 * rise/fall counting, the one-line log of every change, the overlay on the
 * model, and the health file.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include "clock.h"
#include "check.h"
#include "endpoint.h"
#include "health.h"
#include "log.h"
#include "names.h"
#include "probe.h"
#include "service.h"
#include "state.h"

#define XS_MAX_EVENTS 64
/*
 * Probes due within this much are started together: 500 probes spread over a
 * second would otherwise wake the loop 500 times for their starts alone.
 */
#define XS_PROBE_SLACK_MS 20

int xs_checker_init(struct xs_checker *c, const char *run_dir)
{
	memset(c, 0, sizeof(*c));
	c->run_dir = run_dir;
	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	return c->epfd < 0 ? -errno : 0;
}

void xs_checker_free(struct xs_checker *c)
{
	__u32 i;

	for (i = 0; i < c->n; i++) {
		xs_probe_stop(c->p[i], c->epfd);
		free(c->p[i]->place);
		free(c->p[i]);
	}
	free(c->p);
	free(c->saved);
	free(c->saved_idx);
	free(c->counted);
	if (c->epfd >= 0)
		close(c->epfd);
}

static struct xs_probe *xs_checker_find(const struct xs_checker *c, int ifc,
					const struct xs_service_key *key, const __u8 *addr)
{
	__u32 i;

	for (i = 0; i < c->n; i++)
		if (c->p[i]->ifc == ifc && !memcmp(&c->p[i]->h.service, key, sizeof(*key)) &&
		    !memcmp(c->p[i]->h.addr, addr, sizeof(c->p[i]->h.addr)))
			return c->p[i];
	return NULL;
}

/* "IFACE: service S backend A: ...": one line, what journald keeps as one entry. */
static void xs_probe_log(const struct xs_checker *c, const struct xs_probe *p, const char *fmt,
			 ...) __attribute__((format(printf, 3, 4)));
static void xs_probe_log(const struct xs_checker *c, const struct xs_probe *p, const char *fmt, ...)
{
	char svc[80], addr[64], msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	xs_format_service(&p->h.service, svc, sizeof(svc));
	xs_format_addr(p->h.addr, addr, sizeof(addr));
	printf("health: %s: service %s backend %s: %s\n", c->ifname[p->ifc], svc, addr, msg);
}

void xs_checker_sync(struct xs_checker *c, int ifc, const char *ifname, const struct xs_model *m)
{
	long long now = xs_mono_ms();
	__u32 i, k;

	snprintf(c->ifname[ifc], sizeof(c->ifname[ifc]), "%s", ifname);
	for (i = 0; i < c->n; i++)
		if (c->p[i]->ifc == ifc)
			c->p[i]->seen = false;
	for (i = 0; i < m->n_be; i++) {
		const struct xs_model_backend *b = &m->be[i];
		const struct xs_service_spec *s = &m->svc[b->service].s;
		struct xs_probe *p;

		if (s->check.kind == XS_CHECK_NONE)
			continue;
		p = xs_checker_find(c, ifc, &s->key, b->s.t.addr);
		if (!p) {
			if (c->n == c->cap) {
				/* An array of pointers to probes: each probe stays where it is. */
				size_t one = sizeof(struct xs_probe *); // NOLINT(bugprone-sizeof-expression)
				void *q = realloc(c->p, (c->cap = c->cap ? 2 * c->cap : 64) * one);
				if (!q)
					return;
				c->p = q;
			}
			p = calloc(1, sizeof(*p));
			if (!p)
				return;
			c->p[c->n++] = p;
			p->ifc = ifc;
			p->fd = -1;
			p->h.service = s->key;
			memcpy(p->h.addr, b->s.t.addr, sizeof(p->h.addr));
			p->family = b->s.t.family;
			p->h.since = (__u64)time(NULL);
			/* A restarted agent keeps what the last one found: down stays down. */
			p->h.state = b->s.down ? XS_HEALTH_DOWN : XS_HEALTH_UNKNOWN;
			p->in_model_down = b->s.down;
			/* Spread over the interval: 500 probes are not one burst. */
			p->next_at = now + (long long)((i * 7919U) % s->check.interval_ms);
			c->next_at = 0; /* the next step looks at it */
			c->dirty[ifc] = true;
		}
		if (!xs_check_same(&p->ck, &s->check)) {
			p->ck = s->check;
			p->port = xs_check_port(&s->check, &s->key);
		}
		p->seen = true;
	}
	for (i = k = 0; i < c->n; i++) {
		if (c->p[i]->ifc == ifc && !c->p[i]->seen) {
			xs_probe_stop(c->p[i], c->epfd);
			free(c->p[i]->place);
			free(c->p[i]);
			c->dirty[ifc] = true;
			continue;
		}
		c->p[k++] = c->p[i];
	}
	c->n = k;
}

/* How many backends of @p's service are up (or not yet known), of how many. */
static void xs_service_count(const struct xs_checker *c, const struct xs_probe *p, __u32 *up,
			     __u32 *all)
{
	__u32 i;

	*up = *all = 0;
	for (i = 0; i < c->n; i++) {
		const struct xs_probe *q = c->p[i];

		if (q->ifc != p->ifc || memcmp(&q->h.service, &p->h.service, sizeof(q->h.service)))
			continue;
		(*all)++;
		*up += q->h.state != XS_HEALTH_DOWN;
	}
}

/* One probe's result: count it, and change state when rise or fall is reached. */
static void xs_probe_done(struct xs_checker *c, struct xs_probe *p, bool good)
{
	__u8 was = p->h.state, now = was;
	__u32 up, all, up_before;

	xs_probe_stop(p, c->epfd);
	p->h.probes++;
	if (good) {
		p->h.ok_run++;
		p->h.fail_run = 0;
		p->h.error[0] = 0;
		if (was != XS_HEALTH_UP && p->h.ok_run >= p->ck.rise)
			now = XS_HEALTH_UP;
	} else {
		p->h.failures++;
		p->h.fail_run++;
		p->h.ok_run = 0;
		if (was != XS_HEALTH_DOWN && p->h.fail_run >= p->ck.fall)
			now = XS_HEALTH_DOWN;
	}
	c->dirty[p->ifc] = true;
	if (now == was)
		return;
	c->urgent[p->ifc] = true;
	xs_service_count(c, p, &up_before, &all);
	p->h.state = now;
	p->h.since = (__u64)time(NULL);
	xs_service_count(c, p, &up, &all);
	if (now == XS_HEALTH_DOWN)
		xs_probe_log(c, p, "down after %u failed checks (%s); %s", p->h.fail_run,
			     p->h.error, p->ck.on_down == XS_DOWN_DRAIN ?
			     "new flows avoid it, its flows stay" :
			     "new flows avoid it, its flows are decided again");
	else
		xs_probe_log(c, p, "%s after %u good checks", was == XS_HEALTH_DOWN ?
			     "up again" : "up", p->h.ok_run);
	/* Unknown to up changes nothing in the pool: only down, and back, are commits. */
	if (now == XS_HEALTH_DOWN || was == XS_HEALTH_DOWN) {
		c->changed[p->ifc] = true;
		p->returning = was == XS_HEALTH_DOWN;
	}
	if ((up < p->ck.min_healthy) != (up_before < p->ck.min_healthy))
		xs_probe_log(c, p, "service %s min-healthy %u: %u of %u backends up",
			     up < p->ck.min_healthy ? "below" : "back at", p->ck.min_healthy, up,
			     all);
}

void xs_checker_step(struct xs_checker *c, long long now)
{
	struct epoll_event ev[XS_MAX_EVENTS];
	int n, i, r;
	__u32 k;

	/* Answers first, then what timed out, then what is due. */
	while ((n = epoll_wait(c->epfd, ev, XS_MAX_EVENTS, 0)) > 0) {
		for (i = 0; i < n; i++) {
			struct xs_probe *p = ev[i].data.ptr;

			r = xs_probe_event(p, ev[i].events);
			if (r)
				xs_probe_done(c, p, r > 0);
			else if (p->sent && !(ev[i].events & EPOLLIN)) {
				struct epoll_event in = { .events = EPOLLIN, .data.ptr = p };

				epoll_ctl(c->epfd, EPOLL_CTL_MOD, p->fd, &in);
			}
		}
		if (n < XS_MAX_EVENTS)
			break;
	}
	if (now < c->next_at)
		return;
	c->next_at = now + 1000;
	for (k = 0; k < c->n; k++) {
		struct xs_probe *p = c->p[k];

		if (p->fd >= 0 && now >= p->deadline) {
			snprintf(p->h.error, sizeof(p->h.error), "timeout_%ums", p->ck.timeout_ms);
			xs_probe_done(c, p, false);
		}
		if (p->fd < 0 && now + XS_PROBE_SLACK_MS >= p->next_at) {
			p->next_at += p->ck.interval_ms;
			if (p->next_at <= now) /* the loop was late: no burst of catch-up probes */
				p->next_at = now + p->ck.interval_ms;
			p->deadline = now + p->ck.timeout_ms;
			if (xs_probe_start(p, c->epfd))
				xs_probe_done(c, p, false);
		}
		/* An answer ends a probe early: then its next start is further than its deadline. */
		if (p->fd >= 0 && p->deadline < c->next_at)
			c->next_at = p->deadline;
		if (p->next_at < c->next_at)
			c->next_at = p->next_at;
	}
}

long long xs_checker_next(const struct xs_checker *c)
{
	return c->next_at;
}

bool xs_checker_vip_down(const struct xs_checker *c, const __u8 *addr)
{
	__u32 k, up, all;

	for (k = 0; k < c->n; k++) {
		if (memcmp(c->p[k]->h.service.vip, addr, sizeof(c->p[k]->h.service.vip)))
			continue;
		xs_service_count(c, c->p[k], &up, &all);
		if (up < c->p[k]->ck.min_healthy)
			return true;
	}
	return false;
}

/*
 * A change of state is written at once; counts at most once a second:
 * rewriting the file after each of 500 probes a second would cost more
 * than the probes.
 */
#define XS_HEALTH_SAVE_MS 1000

void xs_checker_save(struct xs_checker *c)
{
	long long now = xs_mono_ms();
	struct xs_health_state st;
	__u32 k;
	int ifc, err;

	for (ifc = 0; ifc < 8; ifc++) {
		if (!c->dirty[ifc] || (!c->urgent[ifc] && now - c->saved_at[ifc] < XS_HEALTH_SAVE_MS))
			continue;
		c->urgent[ifc] = false;
		c->saved_at[ifc] = now;
		st = (struct xs_health_state){ .written = (__u64)time(NULL), .pid = getpid() };
		st.be = calloc(c->n ? c->n : 1, sizeof(*st.be));
		if (!st.be)
			return;
		for (k = 0; k < c->n; k++)
			if (c->p[k]->ifc == ifc)
				st.be[st.n++] = c->p[k]->h;
		err = xs_health_write(c->run_dir, c->ifname[ifc], &st);
		if (err)
			pr_warn("health: %s: cannot write the health file in %s: %s\n",
				c->ifname[ifc], c->run_dir, strerror(-err));
		c->dirty[ifc] = false;
		free(st.be);
	}
}
