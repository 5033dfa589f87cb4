// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * trace: every decision the XDP program takes on matching packets, as it
 * takes it: one line (or JSON line) per record of its ring buffer, and the
 * packets with their decisions to a pcapng file. The data path's half is
 * bpf/xs_trace.h; the filter and the switch are user/lib/trace.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include "cli.h"
#include "commands.h"
#include "endpoint.h"
#include "json.h"
#include "log.h"
#include "names.h"
#include "parse.h"
#include "pcapng.h"
#include "service.h"
#include "target.h"
#include "trace.h"

static volatile sig_atomic_t xs_trace_stop;

static void xs_trace_signal(int sig)
{
	xs_trace_stop = 1;
}

/* XDP actions by name, as a record's verdict is printed. */
static const struct xs_name xs_action_names[] = {
	{ XDP_ABORTED, "aborted" }, { XDP_DROP, "drop" }, { XDP_PASS, "pass" },
	{ XDP_TX, "tx" },	     { XDP_REDIRECT, "redirect" }, { 0, NULL },
};

struct xs_trace_out {
	const struct xs_args *a;
	const struct xs_handle *h;
	struct xs_service_entry *svcs;
	__u32 n_svcs;
	FILE *pcap;
	__u64 realtime_off;  /* CLOCK_REALTIME - CLOCK_MONOTONIC: a record's time as a date */
	__u64 count, max;    /* records printed; stop at max (0: never) */
	__u64 lost;
	bool json, pretty;   /* -j: a JSON object a line; -p: each indented */
	int err;
};

static __u64 xs_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* Service @id's VIP:PORT/PROTO; listed again once if it is new since the start. */
static const char *xs_trace_service(struct xs_trace_out *o, __u32 id, char *buf, size_t len)
{
	__u32 i, pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < o->n_svcs; i++)
			if (o->svcs[i].svc.id == id)
				return xs_format_service(&o->svcs[i].key, buf, len) < 0 ? "?" : buf;
		if (pass == 0) {
			free(o->svcs);
			o->svcs = NULL;
			o->n_svcs = 0;
			if (xs_services_list(o->h, &o->svcs, &o->n_svcs))
				break;
		}
	}
	snprintf(buf, len, "service#%u", id);
	return buf;
}

/*
 * The outer addresses the program wrote: the frame after the decision, when
 * encapsulation grew it. Its first IP header is the outer one.
 */
static bool xs_trace_outer(const struct xs_trace_rec *r, char *src, char *dst, size_t len)
{
	const __u8 *p = r->out;
	__u32 off = 12, cap = r->out_cap;
	__u16 proto;
	__be32 a[4] = { 0 }, b[4] = { 0 };

	if (r->out_len <= r->pkt_len || cap < 14)
		return false;
	proto = (__u16)(p[off] << 8 | p[off + 1]);
	if ((proto == 0x8100 || proto == 0x88a8) && cap >= 18) {
		off += 4;
		proto = (__u16)(p[off] << 8 | p[off + 1]);
	}
	off += 2;
	if (proto == 0x0800 && cap >= off + 20) {
		a[2] = b[2] = htonl(0xffff);
		memcpy(&a[3], p + off + 12, 4);
		memcpy(&b[3], p + off + 16, 4);
	} else if (proto == 0x86dd && cap >= off + 40) {
		memcpy(a, p + off + 8, 16);
		memcpy(b, p + off + 24, 16);
	} else {
		return false;
	}
	xs_format_addr(a, src, len);
	xs_format_addr(b, dst, len);
	return true;
}

/* "flow_hit,tx_redirect": the counters that moved, by their `stats` names. */
static void xs_trace_reasons(__u64 mask, char *buf, size_t len)
{
	size_t n = 0;
	int c;

	buf[0] = 0;
	for (c = 0; c < XS_C_MAX && n < len; c++)
		if (mask & (1ULL << c))
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "",
					      xs_counter_names[c].name);
	if (!n)
		snprintf(buf, len, "-");
}

static void xs_trace_endpoint(const __u8 *addr, __be16 port, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	bool v4 = !memcmp(addr, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12);

	xs_format_addr(addr, a, sizeof(a));
	snprintf(buf, len, v4 ? "%s:%u" : "[%s]:%u", a, ntohs(port));
}

/* The record as one line of text: what --pcap writes as the packet's comment too. */
static void xs_trace_line(struct xs_trace_out *o, const struct xs_trace_rec *r,
			  const struct xs_target *t, bool have_t, char *buf, size_t len)
{
	char src[64], dst[64], proto[16], why[512], name[96], svc[96], osrc[64], odst[64];
	size_t n;

	xs_trace_endpoint(r->key.src, r->key.sport, src, sizeof(src));
	xs_trace_endpoint(r->key.dst, r->key.dport, dst, sizeof(dst));
	xs_trace_reasons(r->reasons, why, sizeof(why));
	n = (size_t)snprintf(buf, len, "cpu %u %s %s > %s %s", r->cpu,
			     xs_proto_name(r->key.proto, proto, sizeof(proto)), src, dst,
			     xs_name_of(xs_action_names, r->verdict));
	if (r->pool != XS_NO_TARGET && r->pool != XS_POOL_QUEUES && n < len)
		n += (size_t)snprintf(buf + n, len - n, " service %s",
				      xs_trace_service(o, r->pool, svc, sizeof(svc)));
	if (have_t && n < len) {
		xs_target_name(o->h, t, r->target, name, sizeof(name));
		n += (size_t)snprintf(buf + n, len - n, " -> %s", name);
	}
	if (n < len)
		n += (size_t)snprintf(buf + n, len - n, " (%s)", why);
	if (xs_trace_outer(r, osrc, odst, sizeof(osrc)) && n < len)
		n += (size_t)snprintf(buf + n, len - n, " outer %s > %s", osrc, odst);
	if (r->lost && n < len)
		snprintf(buf + n, len - n, " [%u lost before]", r->lost);
}

static void xs_trace_json(struct xs_trace_out *o, const struct xs_trace_rec *r,
			  const struct xs_target *t, bool have_t, __u64 ts)
{
	char src[64], dst[64], proto[16], svc[96], addr[INET6_ADDRSTRLEN], ifn[IF_NAMESIZE];
	xs_json *doc = xj_obj(), *reasons = xj_arr(), *tgt;
	int c;

	xj_u64(doc, "time_ns", ts);
	xj_u64(doc, "cpu", r->cpu);
	xj_str(doc, "proto", xs_proto_name(r->key.proto, proto, sizeof(proto)));
	xs_trace_endpoint(r->key.src, r->key.sport, src, sizeof(src));
	xs_trace_endpoint(r->key.dst, r->key.dport, dst, sizeof(dst));
	xj_str(doc, "src", src);
	xj_str(doc, "dst", dst);
	xj_str(doc, "verdict", xs_name_of(xs_action_names, r->verdict));
	for (c = 0; c < XS_C_MAX; c++)
		if (r->reasons & (1ULL << c))
			xj_push(reasons, json_object_new_string(xs_counter_names[c].name));
	xj_add(doc, "reasons", reasons);
	if (r->pool != XS_NO_TARGET && r->pool != XS_POOL_QUEUES)
		xj_str(doc, "service", xs_trace_service(o, r->pool, svc, sizeof(svc)));
	if (have_t) {
		/* The shape `lookup --json` gives its target. */
		tgt = xj_obj();
		if (t->kind == XS_TARGET_CPU) {
			xj_u64(tgt, "cpu", t->cpu);
		} else if (t->kind == XS_TARGET_BACKEND) {
			xs_format_addr(t->addr, addr, sizeof(addr));
			xj_str(tgt, "backend", addr);
		} else {
			xj_str(tgt, "dev", if_indextoname(t->ifindex, ifn) ? ifn : "");
		}
		xj_add(doc, "target", tgt);
		xj_u64(doc, "target_id", r->target);
	}
	if (xs_trace_outer(r, src, dst, sizeof(src))) {
		xj_str(doc, "outer_src", src);
		xj_str(doc, "outer_dst", dst);
	}
	xj_u64(doc, "len", r->pkt_len);
	xj_u64(doc, "out_len", r->out_len);
	xj_u64(doc, "lost_before", r->lost);
	printf("%s\n", json_object_to_json_string_ext(doc, (o->pretty ? JSON_C_TO_STRING_PRETTY :
							   JSON_C_TO_STRING_PLAIN) |
							  JSON_C_TO_STRING_NOSLASHESCAPE));
	xs_json_drop(doc);
}

static int xs_trace_record(void *ctx, void *data, size_t size)
{
	struct xs_trace_out *o = ctx;
	const struct xs_trace_rec *r = data;
	struct xs_target t;
	char line[1024];
	bool have_t;
	__u64 ts;

	if (size < sizeof(*r) || (o->max && o->count >= o->max))
		return 0;
	ts = r->ts_ns + o->realtime_off;
	have_t = r->target < XS_MAX_TARGETS &&
		 !bpf_map_lookup_elem(o->h->targets_fd, &r->target, &t) && t.kind;
	o->lost += r->lost;
	xs_trace_line(o, r, &t, have_t, line, sizeof(line));
	if (o->json)
		xs_trace_json(o, r, &t, have_t, ts);
	else
		printf("%llu.%09llu %s\n", (unsigned long long)(ts / 1000000000ULL),
		       (unsigned long long)(ts % 1000000000ULL), line);
	fflush(stdout);
	if (o->pcap && xs_pcapng_packet(o->pcap, ts, r->data, r->cap_len, r->pkt_len, line)) {
		pr_warn("trace: cannot write the pcap file: %s\n", strerror(EIO));
		o->err = -EIO;
		xs_trace_stop = 1;
	}
	o->count++;
	if (o->max && o->count >= o->max)
		xs_trace_stop = 1;
	return 0;
}

/* Records left from a trace before: read and dropped, so that this one starts clean. */
static int xs_trace_discard(void *ctx, void *data, size_t size)
{
	return 0;
}

static int xs_trace_options(const struct xs_args *a, struct xs_trace_filter *f, __u64 *max)
{
	const char *s;
	__u32 v;

	f->rate = XS_TRACE_DEFAULT_RATE;
	if ((s = xs_arg(a, XS_OPT_SAMPLE)) && xs_parse_u32(s, "trace: --sample", 1, 1U << 30, &f->sample))
		return -EINVAL;
	if ((s = xs_arg(a, XS_OPT_RATE)) && xs_parse_u32(s, "trace: --rate", 0, 1U << 30, &f->rate))
		return -EINVAL;
	*max = 0;
	if ((s = xs_arg(a, XS_OPT_COUNT))) {
		if (xs_parse_u32(s, "trace: --count", 1, 0xffffffffU, &v))
			return -EINVAL;
		*max = v;
	}
	return 0;
}

int xs_cmd_trace(const struct xs_args *a)
{
	struct xs_trace_out o = { .a = a, .json = xs_flag(a, XS_OPT_JSON) || xs_flag(a, XS_OPT_PRETTY),
				  .pretty = xs_flag(a, XS_OPT_PRETTY) };
	struct ring_buffer *rb = NULL, *old = NULL;
	const char *pcap = xs_arg(a, XS_OPT_PCAP);
	struct sigaction sa = { .sa_handler = xs_trace_signal };
	struct xs_trace_filter f;
	struct xs_trace t = { .filter_fd = -1, .ring_fd = -1, .bss_fd = -1 };
	struct xs_handle h;
	int err, n;

	err = xs_open(a->pos[0], &h);
	if (err)
		return err;
	o.h = &h;
	err = xs_trace_filter_parse(&h, a->pos + 1, a->npos - 1, &f) ?:
	      xs_trace_options(a, &f, &o.max) ?: xs_trace_open(&h, &t);
	if (err)
		goto out;
	if (pcap) {
		o.pcap = fopen(pcap, "wbx");
		if (!o.pcap) {
			err = -errno;
			pr_warn("trace: cannot create %s: %s (it must not exist)\n", pcap,
				strerror(-err));
			goto out;
		}
		err = xs_pcapng_start(o.pcap, h.ifname, XS_TRACE_SNAP);
		if (err) {
			pr_warn("trace: cannot write %s: %s\n", pcap, strerror(-err));
			goto out;
		}
	}
	old = ring_buffer__new(t.ring_fd, xs_trace_discard, NULL, NULL);
	rb = ring_buffer__new(t.ring_fd, xs_trace_record, &o, NULL);
	if (!old || !rb) {
		err = -errno;
		pr_warn("%s: cannot read xs_trace_ring: %s\n", h.ifname, strerror(-err));
		goto out;
	}
	ring_buffer__consume(old);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	o.realtime_off = xs_clock_ns(CLOCK_REALTIME) - xs_clock_ns(CLOCK_MONOTONIC);
	err = xs_trace_arm(&t, &f);
	if (err)
		goto out;
	/* On stderr, so that stdout holds records only, JSON or not. */
	fprintf(stderr, "tracing %s; ^C stops\n", h.ifname);
	while (!xs_trace_stop) {
		n = ring_buffer__poll(rb, 200);
		if (n < 0 && n != -EINTR) {
			err = n;
			pr_warn("%s: reading xs_trace_ring: %s\n", h.ifname, strerror(-n));
			break;
		}
	}
	/* Off first, then what was already in the ring, up to --count. */
	err = xs_trace_disarm(&t) ?: err ?: o.err;
	ring_buffer__consume(rb);
	fprintf(stderr, "%llu records; %llu lost to the rate cap or a full ring\n",
			(unsigned long long)o.count, (unsigned long long)o.lost);
out:
	ring_buffer__free(rb);
	ring_buffer__free(old);
	if (o.pcap && fclose(o.pcap) && !err) {
		err = -errno;
		pr_warn("trace: cannot write %s: %s\n", pcap, strerror(-err));
	}
	free(o.svcs);
	xs_trace_close(&t);
	xs_close(&h);
	return err;
}
