// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* apply [--dry-run] [--watch] and show: the declarative configuration of an interface. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include "config.h"
#include "commands.h"
#include "log.h"
#include "watch.h"

int xs_cmd_show(const struct xs_args *a)
{
	struct xs_handle h;
	struct xs_model m;
	int err;

	err = xs_open(a->pos[0], &h);
	if (err)
		return err;
	err = xs_model_load(&h, &m);
	if (!err) {
		printf("# xdpsteer show %s\n", h.ifname);
		xs_config_print(&m, stdout);
		xs_model_free(&m);
	}
	xs_close(&h);
	return err;
}

/* Load, validate and commit the file once; a bad file changes nothing. */
static int xs_apply_once(const struct xs_handle *h, const char *file, bool dry_run)
{
	struct xs_commit_opts o = { .origin = file, .dry_run = dry_run };
	struct xs_model m;
	int err;

	err = xs_config_load(&file, 1, h->nr_cpus, &m);
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
			if (xs_apply_once(h, file, false))
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

int xs_cmd_apply(const struct xs_args *a)
{
	const char *file = xs_arg(a, "file");
	bool dry_run = xs_flag(a, "dry-run"), watch = xs_flag(a, "watch");
	struct xs_handle h;
	int err;

	/* -f FILE: the CLI table knows long options only, so take it positionally. */
	if (a->npos == 3 && !strcmp(a->pos[1], "-f") && !file)
		file = a->pos[2];
	else if (a->npos != 1)
		file = NULL;
	if (!file) {
		pr_warn("apply: name the configuration with -f FILE (or --file FILE)\n");
		return -EINVAL;
	}
	if (dry_run && watch) {
		pr_warn("apply: --dry-run and --watch do not go together\n");
		return -EINVAL;
	}
	err = xs_open(a->pos[0], &h);
	if (err)
		return err;
	err = xs_apply_once(&h, file, dry_run);
	if (!err && watch)
		err = xs_watch(&h, file);
	xs_close(&h);
	return err;
}
