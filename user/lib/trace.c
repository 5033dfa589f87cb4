// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* `xdpsteer trace`: its filter and its switch (trace.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include "endpoint.h"
#include "log.h"
#include "names.h"
#include "parse.h"
#include "pins.h"
#include "service.h"
#include "target.h"
#include "trace.h"
#include "xdpsteer.skel.h"

/* "ADDR" or "ADDR/LEN", IPv4 as IPv4-mapped: the prefix and its mask, as the key holds them. */
static int xs_trace_parse_prefix(const char *s, struct xs_trace_filter *f)
{
	char buf[INET6_ADDRSTRLEN + 5], *slash;
	__be32 a[4] = { 0 }, m[4] = { 0 };
	__u32 plen, max = 128, skip = 0;
	int i;

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	if (slash)
		*slash = 0;
	if (inet_pton(AF_INET, buf, &a[3]) == 1) {
		a[2] = htonl(0xffff);
		max = 32;
		skip = 96;
	} else if (inet_pton(AF_INET6, buf, a) != 1) {
		pr_warn("trace: client '%s' is not an address or a prefix (ADDR or ADDR/LEN, "
			"e.g. 198.51.100.0/24)\n", s);
		return -EINVAL;
	}
	plen = max;
	if (slash && xs_parse_u32(slash + 1, "trace: client prefix length", 0, max, &plen))
		return -EINVAL;
	plen += skip;
	for (i = 0; i < 4; i++) {
		__u32 bits = plen > 32u * i ? plen - 32u * i : 0;

		m[i] = htonl(bits >= 32 ? ~0U : bits ? ~0U << (32 - bits) : 0);
		a[i] &= m[i];
	}
	memcpy(f->client, a, sizeof(f->client));
	memcpy(f->client_mask, m, sizeof(f->client_mask));
	return 0;
}

/* The target id of backend @s, in the filter's service if it names one. */
static int xs_trace_parse_backend(const struct xs_handle *h, const char *s,
				  struct xs_trace_filter *f, __u32 service)
{
	struct xs_target want, *all = calloc(XS_MAX_TARGETS, sizeof(*all));
	__u32 id, found = 0;
	int err;

	if (!all)
		return -ENOMEM;
	err = xs_parse_backend(s, &want);
	err = err ?: xs_targets_read(h, all);
	for (id = XS_BACKEND_BASE; !err && id < XS_MAX_TARGETS; id++) {
		if (!all[id].active || all[id].kind != XS_TARGET_BACKEND ||
		    memcmp(all[id].addr, want.addr, sizeof(want.addr)) ||
		    (service && all[id].service != service))
			continue;
		f->backend = id;
		found++;
	}
	free(all);
	if (err)
		return err;
	if (found == 1)
		return 0;
	if (!found)
		pr_warn("trace: %s has no backend %s%s (see `xdpsteer service list %s`)\n",
			h->ifname, s, service ? " in that service" : "", h->ifname);
	else
		pr_warn("trace: backend %s is in %u services of %s; name one first with "
			"`service VIP:PORT/PROTO`\n", s, found, h->ifname);
	return -EINVAL;
}

/* "flow_hit,flow_new": counter names, as `stats` prints them. */
static int xs_trace_parse_reasons(const char *s, struct xs_trace_filter *f)
{
	char buf[512], *tok, *save = NULL;
	unsigned int c;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (xs_name_parse(xs_counter_names, tok, "trace: reason", &c))
			return -EINVAL;
		f->reasons |= 1ULL << c;
	}
	if (!f->reasons) {
		pr_warn("trace: reason '%s' names no counter\n", s);
		return -EINVAL;
	}
	return 0;
}

int xs_trace_filter_parse(const struct xs_handle *h, const char *const *words, int n,
			  struct xs_trace_filter *f)
{
	const char *backend = NULL;
	struct xs_service_key sk;
	struct xs_service svc;
	int i, err = 0;

	memset(f, 0, sizeof(*f));
	if (n % 2) {
		pr_warn("trace: filter word '%s' has no value (FILTER is pairs: service "
			"VIP:PORT/PROTO, client ADDR[/LEN], backend ADDR, reason NAME[,NAME])\n",
			words[n - 1]);
		return -EINVAL;
	}
	for (i = 0; !err && i < n; i += 2) {
		const char *k = words[i], *v = words[i + 1];
		__u32 bit = !strcmp(k, "service") ? XS_TF_SERVICE : !strcmp(k, "client") ?
			    XS_TF_CLIENT : !strcmp(k, "backend") ? XS_TF_BACKEND :
			    !strcmp(k, "reason") ? XS_TF_REASON : 0;

		if (!bit) {
			pr_warn("trace: '%s' is not a filter (service, client, backend or "
				"reason)\n", k);
			return -EINVAL;
		}
		if (f->fields & bit) {
			pr_warn("trace: filter '%s' given twice\n", k);
			return -EINVAL;
		}
		f->fields |= bit;
		if (bit == XS_TF_SERVICE) {
			err = xs_parse_service(v, &sk);
			memcpy(f->vip, sk.vip, sizeof(f->vip));
			f->port = sk.port;
			f->proto = sk.proto;
		} else if (bit == XS_TF_CLIENT) {
			err = xs_trace_parse_prefix(v, f);
		} else if (bit == XS_TF_BACKEND) {
			backend = v; /* after the service, which may say whose */
		} else {
			err = xs_trace_parse_reasons(v, f);
		}
	}
	if (!err && backend) {
		__u32 id = 0;

		/* The service must exist for its backend to: its id narrows the search. */
		if ((f->fields & XS_TF_SERVICE) && !xs_service_get(h, &sk, &svc))
			id = svc.id;
		err = xs_trace_parse_backend(h, backend, f, id);
	}
	return err;
}

/* The running program's .bss, mapped: it holds xs_trace_on. */
static int xs_trace_map_bss(const struct xs_handle *h, struct xs_trace *t)
{
	struct bpf_prog_info info = { 0 };
	__u32 ids[64], len = sizeof(info), i;
	int prog = xs_obj_get(h, XS_PIN_PROG_XDP), err = -ENOENT;

	if (prog < 0)
		return prog;
	info.nr_map_ids = XS_ARRAY_SIZE(ids);
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(prog, &info, &len)) {
		err = -errno;
		pr_warn("%s: cannot read the program's info: %s\n", h->ifname, strerror(-err));
		goto out;
	}
	for (i = 0; i < info.nr_map_ids && i < XS_ARRAY_SIZE(ids); i++) {
		struct bpf_map_info mi = { 0 };
		__u32 mlen = sizeof(mi);
		int fd = bpf_map_get_fd_by_id(ids[i]);
		size_t n;

		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &mi, &mlen) || !strstr(mi.name, ".bss") ||
		    mi.value_size < sizeof(struct xdpsteer__bss)) {
			close(fd);
			continue;
		}
		n = (mi.value_size + getpagesize() - 1) & ~(size_t)(getpagesize() - 1);
		t->bss = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (t->bss == MAP_FAILED) {
			err = -errno;
			t->bss = NULL;
			close(fd);
			pr_warn("%s: cannot map the program's .bss: %s\n", h->ifname,
				strerror(-err));
			goto out;
		}
		t->bss_fd = fd;
		t->bss_len = n;
		t->on = (volatile __u32 *)((char *)t->bss +
					   offsetof(struct xdpsteer__bss, xs_trace_on));
		err = 0;
		goto out;
	}
	pr_warn("%s: the running program has no .bss with xs_trace_on: another version of "
		"xdpsteer attached it (run `xdpsteer upgrade %s`)\n", h->ifname, h->ifname);
out:
	close(prog);
	return err;
}

int xs_trace_open(const struct xs_handle *h, struct xs_trace *t)
{
	int err;

	memset(t, 0, sizeof(*t));
	t->h = h;
	t->bss_fd = -1;
	t->filter_fd = xs_obj_get(h, "xs_trace_filter");
	t->ring_fd = t->filter_fd < 0 ? t->filter_fd : xs_obj_get(h, "xs_trace_ring");
	err = t->ring_fd < 0 ? t->ring_fd : xs_trace_map_bss(h, t);
	if (err)
		xs_trace_close(t);
	return err;
}

/*
 * Every CPU's trace in progress zeroed: a trace starts its sampling, its
 * rate window and its count of lost records afresh, not where the last
 * one left them.
 */
static int xs_trace_scratch_clear(struct xs_trace *t)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info), zero = 0;
	int fd = xs_obj_get(t->h, "xs_trace_scratch"), err = 0;
	void *vals;

	if (fd < 0)
		return fd;
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		err = -errno;
		pr_warn("%s: cannot read xs_trace_scratch's info: %s\n", t->h->ifname,
			strerror(-err));
		close(fd);
		return err;
	}
	/* Per-CPU values are each rounded up to 8 bytes. */
	vals = calloc((size_t)t->h->nr_cpus, (info.value_size + 7) & ~7U);
	if (!vals)
		err = -ENOMEM;
	else if (bpf_map_update_elem(fd, &zero, vals, BPF_ANY))
		err = -errno;
	if (err)
		pr_warn("%s: cannot clear xs_trace_scratch: %s\n", t->h->ifname, strerror(-err));
	free(vals);
	close(fd);
	return err;
}

int xs_trace_arm(struct xs_trace *t, struct xs_trace_filter *f)
{
	struct xs_trace_filter cur;
	__u32 zero = 0;
	int err;

	if (bpf_map_lookup_elem(t->filter_fd, &zero, &cur)) {
		pr_warn("%s: cannot read xs_trace_filter: %s\n", t->h->ifname, strerror(errno));
		return -errno;
	}
	/* One trace at a time; a tracer that died (SIGKILL) left its filter to the next. */
	if (cur.owner && cur.owner != (__u32)getpid() && !kill((pid_t)cur.owner, 0)) {
		pr_warn("%s: a trace is already running (pid %u); stop it first\n", t->h->ifname,
			cur.owner);
		return -EBUSY;
	}
	err = xs_trace_scratch_clear(t);
	if (err)
		return err;
	f->owner = (__u32)getpid();
	if (bpf_map_update_elem(t->filter_fd, &zero, f, BPF_ANY)) {
		pr_warn("%s: cannot write xs_trace_filter: %s\n", t->h->ifname, strerror(errno));
		return -errno;
	}
	/* The filter first: a packet that sees the flag sees the filter it came with. */
	__atomic_store_n(t->on, 1, __ATOMIC_SEQ_CST);
	t->armed = true;
	return 0;
}

int xs_trace_disarm(struct xs_trace *t)
{
	struct xs_trace_filter none = { 0 };
	__u32 zero = 0;

	if (!t->armed)
		return 0;
	__atomic_store_n(t->on, 0, __ATOMIC_SEQ_CST);
	t->armed = false;
	if (bpf_map_update_elem(t->filter_fd, &zero, &none, BPF_ANY)) {
		pr_warn("%s: cannot clear xs_trace_filter: %s\n", t->h->ifname, strerror(errno));
		return -errno;
	}
	return 0;
}

void xs_trace_close(struct xs_trace *t)
{
	xs_trace_disarm(t);
	if (t->bss)
		munmap(t->bss, t->bss_len);
	t->bss = NULL;
	if (t->bss_fd >= 0)
		close(t->bss_fd);
	if (t->filter_fd >= 0)
		close(t->filter_fd);
	if (t->ring_fd >= 0)
		close(t->ring_fd);
	t->bss_fd = t->filter_fd = t->ring_fd = -1;
}
