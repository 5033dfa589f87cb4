// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * stats --watch: rates per second, from two snapshots an interval apart
 * (snapshot.h). On a terminal the table is redrawn in place (ANSI home and
 * clear); into a pipe or file each interval prints plain lines, each with a
 * timestamp, so `| grep` and logs work. The first rates come after one
 * interval: a rate needs two readings. SIGINT or SIGTERM stops it, exit 0.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "commands.h"
#include "log.h"
#include "names.h"
#include "snapshot.h"

static volatile sig_atomic_t xs_watch_stop;

static void xs_watch_on_signal(int sig)
{
	xs_watch_stop = sig;
}

/* A target id's stats in the reading before, or NULL: the table is indexed by id. */
typedef const struct xs_target_stats *xs_prev_ptr;

/* One row's rates: packets and bits per second. */
struct xs_rate {
	double pps, bps;
};

/* A counter that went back (a target re-added, its stats reset) counts from zero. */
static double xs_per_s(__u64 now, __u64 before, double dt)
{
	return (double)(now >= before ? now - before : now) / dt;
}

static struct xs_rate xs_rate_of(const struct xs_target_stats *now,
				 const struct xs_target_stats *before, double dt)
{
	static const struct xs_target_stats none;

	if (!before)
		before = &none;
	return (struct xs_rate){ xs_per_s(now->packets, before->packets, dt),
				 xs_per_s(now->bytes, before->bytes, dt) * 8 };
}

/* "12.3M": a terminal's reader wants magnitudes; a pipe gets the plain number. */
static const char *xs_si(double v, char *buf, size_t len)
{
	static const char *const unit[] = { "", "k", "M", "G", "T" };
	unsigned int u = 0;

	while (v >= 1000 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, u ? "%.2f%s" : "%.0f%s", v, unit[u]);
	return buf;
}

struct xs_watch_out {
	bool tty;
	char stamp[48];		/* the plain lines' prefix: time and interface */
};

/* One row of targets, services or backends. */
static void xs_watch_row(const struct xs_watch_out *o, const char *kind, const char *name,
			 struct xs_rate r, long long pinned)
{
	char b1[32], b2[32];

	if (!o->tty) {
		printf("%s %s %s: %.1f pkt/s %.0f bit/s", o->stamp, kind, name, r.pps, r.bps);
		if (pinned >= 0)
			printf(" %lld pinned", pinned);
		putchar('\n');
		return;
	}
	printf("%-34s %12s %12s", name, xs_si(r.pps, b1, sizeof(b1)), xs_si(r.bps, b2, sizeof(b2)));
	if (pinned >= 0)
		printf(" %9lld", pinned);
	putchar('\n');
}

static void xs_watch_print(const struct xs_watch_out *o, const struct xs_dp_snapshot *now,
			   const struct xs_dp_snapshot *before, double dt,
			   xs_prev_ptr *prev_by_id)
{
	struct xs_rate r, total = { 0, 0 };
	__u32 i, j;
	char label[128];

	memset(prev_by_id, 0, XS_MAX_TARGETS * sizeof(xs_prev_ptr));
	for (i = 0; i < before->n_targets; i++)
		prev_by_id[before->targets[i].id] = &before->targets[i].st;
	for (i = 0; i < before->n_backends; i++)
		prev_by_id[before->backends[i].id] = &before->backends[i].st;
	if (o->tty)
		printf("%-34s %12s %12s %9s\n", "target", "pkt/s", "bit/s", "pinned");
	for (i = 0; i < now->n_targets; i++) {
		r = xs_rate_of(&now->targets[i].st, prev_by_id[now->targets[i].id], dt);
		total.pps += r.pps;
		total.bps += r.bps;
		xs_watch_row(o, "target", now->targets[i].name, r,
			     (long long)now->targets[i].pinned);
	}
	if (o->tty && now->n_services)
		printf("\n%-34s %12s %12s %9s\n", "service / backend", "pkt/s", "bit/s", "pinned");
	for (i = 0; i < now->n_services; i++) {
		const struct xs_dp_service *s = &now->services[i], *p = NULL;
		struct xs_target_stats ns = { .packets = s->st.packets, .bytes = s->st.bytes };
		struct xs_target_stats ps = { .packets = 0 };

		for (j = 0; j < before->n_services && !p; j++)
			p = before->services[j].id == s->id ? &before->services[j] : NULL;
		if (p)
			ps = (struct xs_target_stats){ .packets = p->st.packets, .bytes = p->st.bytes };
		xs_watch_row(o, "service", s->name, xs_rate_of(&ns, &ps, dt), -1);
		for (j = 0; j < now->n_backends; j++) {
			const struct xs_dp_backend *b = &now->backends[j];

			if (b->service != s)
				continue;
			r = xs_rate_of(&b->st, prev_by_id[b->id], dt);
			total.pps += r.pps;
			total.bps += r.bps;
			snprintf(label, sizeof(label), o->tty ? "  %s" : "%s %s",
				 o->tty ? b->addr : s->name, b->addr);
			xs_watch_row(o, "backend", label, r, (long long)b->pinned);
		}
	}
	if (o->tty)
		printf("\n%-34s %12s %12s %9llu\n", "steered, all targets",
		       xs_si(total.pps, label, 32), xs_si(total.bps, label + 32, 32),
		       (unsigned long long)now->pinned);
	else
		printf("%s total: %.1f pkt/s %.0f bit/s %llu pinned\n", o->stamp, total.pps,
		       total.bps, (unsigned long long)now->pinned);
	if (o->tty)
		printf("\n%-22s %-7s %12s\n", "counter", "verdict", "per s");
	for (i = 0; i < XS_C_MAX; i++) {
		double v = xs_per_s(now->counters[i], before->counters[i], dt);

		if (v == 0)
			continue;
		if (o->tty)
			printf("%-22s %-7s %12s\n", xs_counter_names[i].name, xs_counter_kinds[i],
			       xs_si(v, label, sizeof(label)));
		else
			printf("%s counter %s: %.1f /s\n", o->stamp, xs_counter_names[i].name, v);
	}
}

/* Sleep until @deadline_ns (CLOCK_MONOTONIC); false when a signal asks to stop. */
static bool xs_watch_sleep(long long deadline_ns)
{
	struct timespec ts = { deadline_ns / 1000000000LL, deadline_ns % 1000000000LL };

	while (!xs_watch_stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
	return !xs_watch_stop;
}

int xs_stats_watch(const char *ifname, __u64 interval_ms)
{
	struct sigaction sa = { .sa_handler = xs_watch_on_signal }; /* no SA_RESTART */
	xs_prev_ptr *prev_by_id = calloc(XS_MAX_TARGETS, sizeof(xs_prev_ptr));
	struct xs_dp_snapshot snap[2];
	struct xs_watch_out o = { .tty = isatty(STDOUT_FILENO) };
	long long next;
	int cur = 0, err;

	if (!prev_by_id)
		return -ENOMEM;
	err = xs_dp_snapshot_read(ifname, &snap[0]);
	if (err) {
		free(prev_by_id);
		return err;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	next = snap[0].taken_ns;
	for (;;) {
		const struct xs_dp_snapshot *now = &snap[!cur], *before = &snap[cur];
		char when[24];
		struct tm tm;
		time_t t;

		next += (long long)interval_ms * 1000000LL;
		if (!xs_watch_sleep(next))
			break;
		err = xs_dp_snapshot_read(ifname, &snap[!cur]);
		if (err)
			break;
		t = time(NULL);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", localtime_r(&t, &tm));
		snprintf(o.stamp, sizeof(o.stamp), "%s %s", when, now->ifname);
		if (o.tty)
			printf("\033[H\033[J%s: rates per second over %.1f s, %s (^C stops)\n\n",
			       now->ifname, (now->taken_ns - before->taken_ns) / 1e9, when);
		xs_watch_print(&o, now, before,
			       (double)(now->taken_ns - before->taken_ns) / 1e9, prev_by_id);
		fflush(stdout);
		xs_dp_snapshot_free(&snap[cur]);
		cur = !cur;
	}
	xs_dp_snapshot_free(&snap[cur]);
	free(prev_by_id);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	return err;
}
