// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * How the agent changes state (docs/fleet.md): the newest revision of the
 * configuration committed to every interface, each in its own transaction,
 * with the health overlay; in state mode, what the probes find committed
 * onto the running state; and the VIPs announced while every interface
 * runs what was applied. The loop (agent.c) calls in; nothing here calls
 * the loop.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "config.h"
#include "handle.h"
#include "state.h"

/* ---- what the library says, kept for the status ------------------------------ */

/*
 * The library reports every error as lines on stderr (FILE:LINE: ... for a
 * configuration). While it works for the agent, stderr is a buffer: the
 * lines still reach the log afterwards, and the first one is kept.
 */
struct xs_capture {
	FILE *saved, *mem;
	char *buf;
	size_t len;
};

static void xs_capture_begin(struct xs_capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->saved = stderr;
	fflush(stderr);
	c->mem = open_memstream(&c->buf, &c->len);
	if (c->mem)
		stderr = c->mem;
}

static void xs_capture_end(struct xs_capture *c, char *first, size_t len)
{
	const char *p;

	first[0] = 0;
	if (!c->mem)
		return;
	stderr = c->saved;
	fclose(c->mem);
	if (c->buf && *c->buf) {
		fputs(c->buf, stderr);
		p = strncmp(c->buf, "xdpsteer: ", 10) ? c->buf : c->buf + 10;
		snprintf(first, len, "%.*s", (int)strcspn(p, "\n"), p);
	}
	free(c->buf);
}

/* ---- applying ---------------------------------------------------------------- */

/*
 * The id of the program pinned for @ifname, if the interface is here and that
 * program runs on it; else 0. Pins whose program was removed by hand are not
 * an attachment: the agent withdraws the VIPs rather than announce them.
 */
__u32 xs_agent_prog_id(const char *ifname)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info), running;
	char dir[PATH_MAX], path[PATH_MAX];
	unsigned int ifindex = if_nametoindex(ifname);
	int fd;

	if (!ifindex || !xs_is_attached(ifname) || xs_pin_dir(dir, sizeof(dir), ifname) ||
	    xs_pin_path(path, sizeof(path), dir, XS_PIN_PROG_XDP))
		return 0;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || !xs_xdp_runs((int)ifindex, info.id, &running))
		info.id = 0;
	close(fd);
	return info.id;
}

/* The configuration as it is now, into @m. */
static int xs_agent_model(struct xs_agent *a, struct xs_model *m)
{
	struct xs_config_src src[XS_N_KEYS];
	int k, n = 0, err;

	if (!a->etcd)
		return xs_config_load(a->o->files, a->o->n_files, a->nr_cpus, m);
	for (k = 0; k < XS_N_KEYS; k++) {
		if (!a->text[k])
			continue;
		/* The parser reads up to a NUL: a value with one is not a configuration. */
		if (strlen(a->text[k]) != a->text_len[k]) {
			fprintf(stderr, "%s:1: binary data (a NUL byte at offset %zu): this is not a "
				"text configuration\n", a->source[k], strlen(a->text[k]));
			return -EINVAL;
		}
		src[n++] = (struct xs_config_src){ .name = a->source[k], .text = a->text[k] };
	}
	if (!n) {
		fprintf(stderr, "%s:1: no such key (nor %s): nothing to apply\n",
			a->source[XS_KEY_FLEET], a->source[XS_KEY_HOST]);
		return -ENOENT;
	}
	err = xs_config_parse(src, n, a->nr_cpus, m);
	/* Every host of the fleet builds the same pools from it, whatever its history. */
	if (!err)
		xs_model_canonical(m);
	return err;
}

static void xs_agent_set_vips(struct xs_agent *a, const struct xs_model *m)
{
	struct xs_route *v = calloc(m->n_svc ? m->n_svc : 1, sizeof(*v));
	__u32 i;
	int j, n = 0;

	if (!v)
		return;
	for (i = 0; i < m->n_svc; i++) {
		for (j = 0; j < n; j++)
			if (!memcmp(v[j].addr, m->svc[i].s.key.vip, sizeof(v[j].addr)))
				break;
		if (j == n)
			memcpy(v[n++].addr, m->svc[i].s.key.vip, sizeof(v->addr));
	}
	free(a->vips);
	a->vips = v;
	a->n_vips = n;
}

/*
 * Announce the VIPs while this host can serve them: every interface
 * attached and running a configuration this agent applied, and not drained.
 */
void xs_agent_announce(struct xs_agent *a)
{
	bool ready = !a->drained && a->n_vips > 0, was = a->announced;
	char why[128] = "";
	int i;

	for (i = 0; i < a->n_ifc && ready; i++) {
		if (!a->ifc[i].prog_id || !a->ifc[i].applied) {
			ready = false;
			snprintf(why, sizeof(why), "%s %s", a->ifc[i].name,
				 a->ifc[i].prog_id ? "runs no configuration yet" : "is not attached");
		}
	}
	if (a->drained)
		snprintf(why, sizeof(why), "drained");
	if (a->bgp_on) {
		char before[sizeof(a->bgp.error)];

		snprintf(before, sizeof(before), "%s", a->bgp.error);
		struct xs_route *up = calloc(a->n_vips ? a->n_vips : 1, sizeof(*up));
		int n_up = 0;

		/* A VIP with a service below its min-healthy is withdrawn from this host. */
		for (i = 0; up && i < a->n_vips; i++)
			if (!xs_checker_vip_down(&a->chk, (const __u8 *)a->vips[i].addr))
				up[n_up++] = a->vips[i];
		if (up && xs_bgp_set(&a->bgp, up, n_up, ready && n_up) &&
		    strcmp(before, a->bgp.error)) {
			printf("agent: bgp: %s\n", a->bgp.error);
			a->status_dirty = true;
		}
		a->announced = a->bgp.up;
		free(up);
	} else {
		a->announced = false;
	}
	if (a->bgp_on && a->announced != was) {
		printf("agent: %s %d VIP%s%s%s\n", a->announced ? "announcing" : "withdrew",
		       a->n_vips, a->n_vips == 1 ? "" : "s", why[0] ? ": " : "", why);
		a->status_dirty = true;
	}
}

/* Make every interface equal to the newest revision, or say why not. */
void xs_agent_apply(struct xs_agent *a)
{
	struct xs_commit_opts co = { 0 };
	struct xs_capture cap;
	struct xs_handle h;
	struct xs_model m;
	char origin[PATH_MAX + 32];
	int i, err, ok = 0;

	if (a->etcd) {
		snprintf(origin, sizeof(origin), "etcd:%s at revision %lld", a->o->prefix,
			 a->revision);
	} else {
		int n = snprintf(origin, sizeof(origin), "%s", a->o->files[0]);

		for (i = 1; i < a->o->n_files && n > 0 && (size_t)n < sizeof(origin); i++)
			n += snprintf(origin + n, sizeof(origin) - (size_t)n, " + %s",
				      a->o->files[i]);
	}
	co.origin = origin;
	a->status_dirty = true;
	xs_capture_begin(&cap);
	err = xs_agent_model(a, &m);
	xs_capture_end(&cap, a->error, sizeof(a->error));
	if (err) {
		a->config_errors++;
		printf("agent: revision %lld is not applied; the interfaces keep revision %lld\n",
		       a->revision, xs_agent_applied(a));
		xs_agent_announce(a);
		return;
	}
	a->error[0] = 0;
	for (i = 0; i < a->n_ifc; i++) {
		struct xs_agent_iface *f = &a->ifc[i];
		__u32 id = xs_agent_prog_id(f->name);

		/* Another attachment than the one we wrote runs none of our revisions. */
		if (id != f->prog_id)
			f->applied = 0;
		f->prog_id = id;
		xs_capture_begin(&cap);
		err = xs_open(f->name, &h);
		if (!err) {
			xs_checker_sync(&a->chk, i, f->name, &m);
			err = xs_checker_overlay(&a->chk, i, &h, &m);
			err = err ?: xs_model_commit(&h, &m, &co);
			xs_checker_restore(&a->chk, &m);
			xs_checker_committed(&a->chk, i, !err);
			xs_close(&h);
		}
		xs_capture_end(&cap, f->error, sizeof(f->error));
		if (err) {
			f->apply_errors++;
			if (!f->error[0])
				snprintf(f->error, sizeof(f->error), "%s: %s", f->name, strerror(-err));
			if (!a->error[0])
				snprintf(a->error, sizeof(a->error), "%s", f->error);
			printf("agent: revision %lld is not applied to %s; it keeps revision %lld\n",
			       a->revision, f->name, f->applied);
			continue;
		}
		/* What a commit that succeeded warned about is in the log, not an error. */
		f->error[0] = 0;
		f->applied = a->revision;
		f->applied_at = time(NULL);
		ok++;
	}
	fflush(stdout);
	if (ok == a->n_ifc)
		xs_agent_set_vips(a, &m);
	xs_model_free(&m);
	xs_agent_announce(a);
}

/*
 * State mode: the running state is the model. Its services' checks are
 * followed as commands change them (the epoch says when), and what the
 * probes find is committed onto it, as a command would.
 */
void xs_agent_state_apply(struct xs_agent *a, int i, bool commit)
{
	struct xs_commit_opts co = { .origin = "health checks" };
	struct xs_agent_iface *f = &a->ifc[i];
	struct xs_handle h;
	struct xs_model m;
	int err;

	f->prog_id = xs_agent_prog_id(f->name);
	if (!f->prog_id || xs_open(f->name, &h))
		return;
	if (!commit && *h.epoch == f->epoch && f->applied) {
		xs_close(&h);
		return;
	}
	err = xs_model_load(&h, &m, false);
	if (!err) {
		xs_checker_sync(&a->chk, i, f->name, &m);
		if (commit) {
			err = xs_checker_overlay(&a->chk, i, &h, &m);
			err = err ?: xs_model_commit(&h, &m, &co);
			xs_checker_restore(&a->chk, &m);
			xs_checker_committed(&a->chk, i, !err);
		}
		if (!f->applied)
			xs_agent_set_vips(a, &m);
		xs_model_free(&m);
	}
	f->epoch = *h.epoch;
	f->applied = err ? f->applied : 1;
	xs_close(&h);
}
