// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* apply [--dry-run] [--watch] and show: the declarative configuration of an interface. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <arpa/inet.h>
#include "config.h"
#include "commands.h"
#include "endpoint.h"
#include "check.h"
#include "json.h"
#include "log.h"
#include "names.h"
#include "parse.h"
#include "service.h"
#include "watch.h"

/* The model as a document: what `show` prints, with the file's keys as JSON keys. */
static xs_json *xs_model_json(const struct xs_model *m, const char *ifname, bool secrets)
{
	xs_json *doc = xj_obj(), *set = xj_obj(), *tgts = xj_arr(), *svcs = xj_arr();
	const size_t place_t = offsetof(struct xs_target_spec, place),
		     place_b = offsetof(struct xs_backend_spec, place);
	char buf[80], check[256];
	__u32 i;

	xj_str(doc, "ifname", ifname);
	xs_keys_json(xs_settings_keys, &m->set, set, 0, sizeof(m->set), secrets);
	xj_add(doc, "settings", set);
	for (i = 0; i < m->n_tgt; i++) {
		const struct xs_target_spec *t = &m->tgt[i].s;
		xs_json *o = xj_obj();

		if (t->t.kind == XS_TARGET_CPU) {
			xj_u64(o, "cpu", t->t.cpu);
		} else {
			xj_str(o, "dev", t->ifname[0] ? t->ifname : NULL); /* null: gone */
			xj_u64(o, "ifindex", t->t.ifindex);
		}
		/* Its keys, then where it sits: id (when named) and slots. */
		xs_keys_json(xs_target_keys, t, o, 0, place_t, false);
		xs_keys_json(xs_target_keys, t, o, place_t, sizeof(*t), false);
		xj_push(tgts, o);
	}
	xj_add(doc, "targets", tgts);
	for (i = 0; i < m->n_svc; i++) {
		const struct xs_service_spec *s = &m->svc[i].s;
		xs_json *o = xj_obj();

		xs_format_service(&s->key, buf, sizeof(buf));
		xj_str(o, "service", buf);
		xs_keys_json(xs_service_keys, s, o, 0, sizeof(*s), false);
		xs_check_format(&s->check, check, sizeof(check));
		xj_str(o, "check", check[0] ? check + 1 : "none");
		xj_add(o, "backends", xj_arr());
		xj_push(svcs, o);
	}
	/* Each service's backends, in model order: m->svc[k] is svcs[k]. */
	for (i = 0; i < m->n_be; i++) {
		const struct xs_backend_spec *b = &m->be[i].s;
		xs_json *o = xj_obj(), *svc = json_object_array_get_idx(svcs, m->be[i].service);

		xs_format_addr(b->t.addr, buf, sizeof(buf));
		xj_str(o, "backend", buf);
		xs_keys_json(xs_backend_keys, b, o, 0, place_b, false);
		/* Down is the agent's finding, not a key. */
		xj_bool(o, "down", b->down);
		xs_keys_json(xs_backend_keys, b, o, place_b, sizeof(*b), false);
		xj_push(json_object_object_get(svc, "backends"), o);
	}
	xj_add(doc, "services", svcs);
	return doc;
}

int xs_cmd_show(const struct xs_args *a)
{
	struct xs_handle h;
	struct xs_model m;
	int err;

	err = xs_open(a->pos[0], &h);
	if (err)
		return err;
	err = xs_model_load(&h, &m, true);
	if (!err) {
		if (xs_flag(a, XS_OPT_JSON)) {
			err = xs_json_print(a, xs_model_json(&m, h.ifname,
							   xs_flag(a, XS_OPT_SECRETS)));
		} else {
			printf("# xdpsteer show %s\n", h.ifname);
			xs_config_print(&m, xs_flag(a, XS_OPT_SECRETS), stdout);
		}
		xs_model_free(&m);
	}
	xs_close(&h);
	return err;
}

/* Load, validate and commit the files once, as one configuration; a bad one changes nothing. */
static int xs_apply_files(const struct xs_handle *h, const char *const *files, int n,
			  bool dry_run)
{
	struct xs_commit_opts o = { .origin = files[0], .dry_run = dry_run };
	struct xs_model m;
	int err;

	err = xs_config_load(files, n, h->nr_cpus, &m);
	if (err)
		return err;
	err = xs_model_commit(h, &m, &o);
	xs_model_free(&m);
	fflush(stdout);
	return err;
}

/* Apply the file again whenever it changes (user/agent/watch.c says how it is watched). */
static int xs_watch(const struct xs_handle *h, const char *file)
{
	struct pollfd pfd[2];
	struct xs_files w;
	sigset_t mask;
	bool pending = false;
	int sfd, err = 0;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		return -errno;
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0) {
		err = -errno;
		pr_warn("%s: cannot watch %s: %s\n", h->ifname, file, strerror(errno));
		goto out;
	}
	err = xs_files_watch(&w, &file, 1);
	if (err)
		goto out;
	printf("watching %s for changes (SIGTERM, SIGINT or SIGHUP to stop)\n", file);
	fflush(stdout);
	pfd[0] = (struct pollfd){ .fd = w.fd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	for (;;) {
		int n = poll(pfd, 2, pending ? XS_WATCH_DEBOUNCE_MS : -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (pfd[1].revents) {
			struct signalfd_siginfo si;

			/* Consume it: unblocking a pending SIGTERM would kill us. */
			if (read(sfd, &si, sizeof(si)) == sizeof(si))
				printf("%s: stopping on signal %u\n", h->ifname, si.ssi_signo);
			break;
		}
		if (!n) {
			/* Quiet for the debounce interval: the edit is complete. */
			pending = false;
			if (access(file, F_OK)) {
				printf("%s is gone; keeping the last applied state\n", file);
				fflush(stdout);
				continue;
			}
			if (xs_apply_files(h, &file, 1, false))
				fprintf(stderr, "%s: keeping the last applied state\n", file);
			continue;
		}
		pending |= xs_files_changed(&w);
	}
	printf("stopped watching %s; the data plane keeps the last applied state\n", file);
	xs_files_close(&w);
out:
	if (sfd >= 0)
		close(sfd);
	sigprocmask(SIG_UNBLOCK, &mask, NULL);
	return err;
}

struct xs_apply_ctx {
	const struct xs_handle *h;
	const char *const *files;
	int n;
	bool dry_run;
};

static int xs_apply_ctx_run(void *ctx)
{
	struct xs_apply_ctx *c = ctx;

	return xs_apply_files(c->h, c->files, c->n, c->dry_run);
}

int xs_cmd_apply(const struct xs_args *a)
{
	const char *file = xs_arg(a, XS_OPT_FILE);
	bool dry_run = xs_flag(a, XS_OPT_DRY_RUN), watch = xs_flag(a, XS_OPT_WATCH);
	bool json = xs_flag(a, XS_OPT_JSON);
	struct xs_handle h;
	char *text = NULL;
	int err;

	if (!file) {
		pr_warn("apply: name the configuration with -f FILE (or --file FILE)\n");
		return -XS_EUSAGE;
	}
	if (dry_run && watch) {
		pr_warn("apply: --dry-run and --watch do not go together\n");
		return -XS_EUSAGE;
	}
	if (json && watch) {
		pr_warn("apply: --json prints one document, and --watch runs on: choose one\n");
		return -XS_EUSAGE;
	}
	if (watch && a->nfiles > 1) {
		pr_warn("apply: --watch follows one file (xdpsteer agent -f A -f B follows several)\n");
		return -XS_EUSAGE;
	}
	err = xs_open(a->pos[0], &h);
	if (err)
		return err;
	if (json) {
		struct xs_apply_ctx c = { .h = &h, .files = a->files, .n = a->nfiles,
					  .dry_run = dry_run };

		/* The plan, as a document, printed once the apply is done (or only planned). */
		err = xs_capture_stdout(xs_apply_ctx_run, &c, &text);
		if (!err)
			err = xs_json_print(a, xs_plan_json(text, h.ifname, file, dry_run));
		free(text);
	} else {
		err = xs_apply_files(&h, a->files, a->nfiles, dry_run);
		if (!err && watch)
			err = xs_watch(&h, file);
	}
	xs_close(&h);
	return err;
}
