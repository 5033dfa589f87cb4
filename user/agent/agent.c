// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The agent's loop (agent.h, docs/fleet.md; etcd mode in agent_etcd.c). One
 * thread, one poll: signals, the control socket, the configuration files or
 * etcd's watch stream. Each
 * new revision of the configuration is parsed once and committed to every
 * interface, each in its own transaction; a revision that does not parse or
 * commit leaves the last good state running and is reported in the status.
 * The data plane never depends on the agent: stopping it, or losing etcd,
 * changes no map.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>
#include <curl/curl.h>
#include "clock.h"
#include "log.h"
#include "metrics_http.h"
#include "state.h"

/* The parent directory of @dir, if it is missing: one level, mode 0755. */
static int xs_mkdir_parent(const char *dir)
{
	char parent[PATH_MAX], *slash;

	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (!slash || slash == parent)
		return 0;
	*slash = 0;
	if (mkdir(parent, 0755) && errno != EEXIST) {
		int err = -errno;

		pr_warn("cannot create %s: %s\n", parent, strerror(-err));
		return err;
	}
	return 0;
}

#define XS_AGENT_CHECK_MS 1000	/* how often attachments are looked at */


/* Probes answered or timed out; a backend that went down or came back is committed. */
static void xs_agent_health(struct xs_agent *a, long long now)
{
	bool any = false;
	int i;

	xs_checker_step(&a->chk, now);
	for (i = 0; i < a->n_ifc; i++)
		any |= a->chk.changed[i];
	if (any && a->state_mode) {
		for (i = 0; i < a->n_ifc; i++)
			if (a->chk.changed[i])
				xs_agent_state_apply(a, i, true);
	} else if (any && a->have_config) {
		xs_agent_apply(a);
	}
	if (any) {
		/* How long a change took to be live: part of the time to take a backend out. */
		printf("health: committed in %lld ms\n", xs_mono_ms() - now);
		xs_agent_announce(a);
	}
	xs_checker_save(&a->chk);
}

/* Every second: an interface detached, or attached anew, is noticed here. */
static void xs_agent_check(struct xs_agent *a)
{
	bool again = false;
	int i;

	for (i = 0; a->state_mode && i < a->n_ifc; i++)
		xs_agent_state_apply(a, i, false);
	for (i = 0; !a->state_mode && i < a->n_ifc; i++) {
		struct xs_agent_iface *f = &a->ifc[i];
		__u32 id = xs_agent_prog_id(f->name);

		if (id == f->prog_id)
			continue;
		if (!id) {
			printf("agent: %s: xdpsteer is no longer attached\n", f->name);
			snprintf(f->error, sizeof(f->error), "%s: not attached", f->name);
			f->prog_id = 0;
			f->applied = 0;
			a->status_dirty = true;
		} else {
			printf("agent: %s: attached (program %u): applying revision %lld\n", f->name,
			       id, a->revision);
			again = true;
		}
	}
	if (again && a->have_config)
		xs_agent_apply(a);
	else
		xs_agent_announce(a);
}

/* Drain (withdraw the VIPs, remember it in the drain mark) or undrain. */
static int xs_agent_drain(struct xs_agent *a, bool drain)
{
	int fd, err = 0;

	if (drain) {
		fd = open(a->drain_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			err = -errno;
		else
			close(fd);
	} else if (unlink(a->drain_path) && errno != ENOENT) {
		err = -errno;
	}
	if (err)
		pr_warn("cannot %s %s: %s\n", drain ? "create" : "remove", a->drain_path,
			strerror(-err));
	if (a->drained != drain)
		printf("agent: %s\n", drain ? "drained: withdrawing the VIPs; the data plane "
					      "keeps serving what still arrives" :
					      "undrained");
	a->drained = drain;
	a->status_dirty = true;
	xs_agent_announce(a);
	return err;
}

/* ---- set-up and the loop ------------------------------------------------------ */

static int xs_agent_signals(sigset_t *mask)
{
	sigemptyset(mask);
	sigaddset(mask, SIGTERM);
	sigaddset(mask, SIGINT);
	sigaddset(mask, SIGHUP);
	signal(SIGPIPE, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, mask, NULL))
		return -errno;
	return signalfd(-1, mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

static int xs_agent_setup(struct xs_agent *a, const struct xs_agent_opts *o)
{
	int i, err;

	a->o = o;
	a->ctl_fd = -1;
	a->files.fd = -1;
	a->bgp.tun_fd = -1;
	a->started = time(NULL);
	a->backoff_ms = XS_BACKOFF_MIN_MS;
	a->jitter = (unsigned int)getpid() * 2654435761U | 1;
	err = xs_check_env();
	if (err)
		return err;
	/* First: a port in use stops the agent before it changes anything. */
	if (o->metrics) {
		err = xs_metrics_http_start(a, o->metrics, &a->metrics);
		if (err)
			return err;
	}
	a->nr_cpus = libbpf_num_possible_cpus();
	if (a->nr_cpus <= 0)
		return -EINVAL;
	for (i = 0; i < o->n_ifaces; i++) {
		if (strlen(o->ifaces[i]) >= IF_NAMESIZE) {
			pr_warn("interface name '%s' is too long\n", o->ifaces[i]);
			return -EINVAL;
		}
		snprintf(a->ifc[i].name, sizeof(a->ifc[i].name), "%s", o->ifaces[i]);
	}
	a->n_ifc = o->n_ifaces;
	/* The default outside the initial namespace, /run/xdpsteer/netns:COOKIE, needs its parent. */
	if (xs_mkdir_parent(o->run_dir))
		return -EIO;
	if (mkdir(o->run_dir, 0755) && errno != EEXIST) {
		pr_warn("cannot create %s: %s\n", o->run_dir, strerror(errno));
		return -errno;
	}
	snprintf(a->ctl_path, sizeof(a->ctl_path), "%s/agent.sock", o->run_dir);
	snprintf(a->drain_path, sizeof(a->drain_path), "%s/drained", o->run_dir);
	a->drained = !access(a->drain_path, F_OK);
	err = xs_checker_init(&a->chk, o->run_dir);
	if (err)
		return err;
	err = xs_ctl_listen(a);
	if (err)
		return err;
	if (o->bird) {
		err = xs_bgp_open(&a->bgp, o->bird, o->vip_dev, o->run_dir);
		if (err)
			return err;
		a->bgp_on = true;
	}
	if (o->etcd.endpoints) {
		err = xs_agent_keys(a);
		if (err)
			return err;
		if (curl_global_init(CURL_GLOBAL_DEFAULT))
			return -ENOMEM;
		a->etcd = xs_etcd_new(&o->etcd);
		return a->etcd ? 0 : -EINVAL;
	}
	a->state_mode = !o->n_files;
	return a->state_mode ? 0 : xs_files_watch(&a->files, o->files, o->n_files);
}

static void xs_agent_teardown(struct xs_agent *a)
{
	int k;

	/* Withdraw first: routers stop sending while the data plane still serves. */
	if (a->bgp_on) {
		xs_bgp_close(&a->bgp);
		if (a->announced)
			printf("agent: withdrew %d VIP%s\n", a->n_vips, a->n_vips == 1 ? "" : "s");
	}
	if (a->etcd) {
		/* The status key goes with its lease: no key, no agent. */
		if (a->etcd_up && a->lease)
			xs_etcd_lease_revoke(a->etcd, a->lease);
		xs_etcd_free(a->etcd);
		curl_global_cleanup();
	}
	for (k = 0; k < XS_N_KEYS; k++)
		free(a->text[k]);
	if (a->files.fd >= 0)
		xs_files_close(&a->files);
	xs_ctl_close(a);
	xs_metrics_http_stop(a->metrics);
	xs_checker_free(&a->chk);
	free(a->vips);
}

/* What the loop waits for: the next deadline, at most a check interval away. */
static int xs_agent_timeout(const struct xs_agent *a, long long now, long long next_check)
{
	long long t = next_check;

	if (a->etcd && !a->connected && a->retry_at < t)
		t = a->retry_at;
	if (a->etcd && a->connected && a->keepalive_at < t)
		t = a->keepalive_at;
	if (a->pending_at && a->pending_at < t)
		t = a->pending_at;
	/* A revision to commit, or a status to write while etcd is there: at once. */
	if (a->apply_due || (a->etcd && a->connected && a->status_dirty))
		t = now;
	if (xs_checker_next(&a->chk) < t)
		t = xs_checker_next(&a->chk);
	return t <= now ? 0 : (int)(t - now);
}

int xs_agent_run(const struct xs_agent_opts *o)
{
	struct xs_agent a = { 0 };
	struct pollfd pfd[5];
	long long now, next_check;
	bool force = false;
	sigset_t mask;
	int sfd = -1, n, files_at, err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Outside journald (which stamps its own), every line says when. */
	xs_log_timestamps();
	err = xs_agent_setup(&a, o);
	if (!err) {
		sfd = xs_agent_signals(&mask);
		if (sfd < 0)
			err = -errno;
	}
	if (err)
		goto out;
	printf("agent: %s for %s%s, control socket %s%s\n",
	       a.etcd ? "following etcd" : a.state_mode ? "checking the running state" :
	       "following files", a.ifc[0].name,
	       a.n_ifc > 1 ? " and more" : "", a.ctl_path, a.drained ? " (drained)" : "");
	if (a.state_mode) {
		a.revision = 1;
		xs_agent_check(&a);
	} else if (!a.etcd) {
		a.revision = 1;
		a.have_config = true;
		xs_agent_apply(&a);
	}
	next_check = xs_mono_ms() + XS_AGENT_CHECK_MS;
	for (;;) {
		now = xs_mono_ms();
		if (a.etcd)
			xs_agent_etcd_step(&a, now, &force);
		/* A revision etcd gave, in xs_agent_etcd_step() or in the last wait. */
		if (a.apply_due) {
			a.apply_due = false;
			xs_agent_apply(&a);
		}
		if (a.pending_at && now >= a.pending_at) {
			a.pending_at = 0;
			a.revision++;
			xs_agent_apply(&a);
		}
		if (now >= next_check) {
			xs_agent_check(&a);
			next_check = now + XS_AGENT_CHECK_MS;
		}
		xs_agent_health(&a, xs_mono_ms());
		pfd[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = a.ctl_fd, .events = POLLIN };
		pfd[2] = (struct pollfd){ .fd = a.chk.epfd, .events = POLLIN };
		n = 3;
		files_at = -1;
		if (!a.etcd && !a.state_mode) {
			files_at = n;
			pfd[n++] = (struct pollfd){ .fd = a.files.fd, .events = POLLIN };
		}
		if (a.metrics)
			pfd[n++] = (struct pollfd){ .fd = xs_metrics_http_fd(a.metrics),
						    .events = POLLIN };
		fflush(stdout);
		if (a.etcd)
			err = xs_etcd_wait(a.etcd, pfd, (unsigned int)n,
					   xs_agent_timeout(&a, now, next_check));
		else
			err = poll(pfd, (nfds_t)n, xs_agent_timeout(&a, now, next_check)) < 0 &&
					      errno != EINTR ? -errno : 0;
		if (err) {
			pr_warn("agent: waiting failed: %s\n", strerror(-err));
			break;
		}
		if (pfd[0].revents) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) != sizeof(si))
				continue;
			if (si.ssi_signo != SIGHUP) {
				printf("agent: stopping on signal %u\n", si.ssi_signo);
				break;
			}
			/* SIGHUP: read the configuration again, and commit it even if unchanged. */
			printf("agent: SIGHUP: reading the configuration again\n");
			if (a.etcd) {
				xs_etcd_watch_stop(a.etcd);
				a.connected = false;
				a.synced = false;
				a.retry_at = 0;
				force = true;
			} else {
				a.pending_at = xs_mono_ms();
			}
		}
		if (pfd[1].revents)
			xs_ctl_serve(&a, xs_agent_drain);
		if (a.metrics)
			xs_metrics_http_run(a.metrics);
		if (files_at >= 0 && pfd[files_at].revents && xs_files_changed(&a.files))
			a.pending_at = xs_mono_ms() + XS_WATCH_DEBOUNCE_MS;
	}
out:
	xs_agent_teardown(&a);
	if (sfd >= 0) {
		close(sfd);
		sigprocmask(SIG_UNBLOCK, &mask, NULL);
	}
	if (!err)
		printf("agent: stopped; the data plane keeps revision %lld\n", xs_agent_applied(&a));
	return err;
}
