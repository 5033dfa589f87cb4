// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Configuration files under inotify (watch.h). */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include "log.h"
#include "watch.h"

int xs_files_watch(struct xs_files *w, const char *const *files, int n)
{
	char dirbuf[PATH_MAX], basebuf[PATH_MAX];
	int i;

	memset(w, 0, sizeof(*w));
	if (n > XS_WATCH_MAX_FILES)
		return -E2BIG;
	w->fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (w->fd < 0) {
		pr_warn("cannot watch files: inotify: %s\n", strerror(errno));
		return -errno;
	}
	for (i = 0; i < n; i++) {
		snprintf(dirbuf, sizeof(dirbuf), "%s", files[i]);
		snprintf(basebuf, sizeof(basebuf), "%s", files[i]);
		w->base[i] = strdup(basename(basebuf));
		if (!w->base[i]) {
			xs_files_close(w);
			return -ENOMEM;
		}
		w->n = i + 1;
		w->wd[i] = inotify_add_watch(w->fd, dirname(dirbuf),
					     IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE |
						     IN_MOVED_FROM | IN_ATTRIB);
		if (w->wd[i] < 0) {
			int err = -errno;

			pr_warn("cannot watch directory %s: %s\n", dirbuf, strerror(errno));
			xs_files_close(w);
			return err;
		}
	}
	return 0;
}

bool xs_files_changed(struct xs_files *w)
{
	char ev[sizeof(struct inotify_event) + NAME_MAX + 1]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	bool changed = false;
	ssize_t len;
	int i;

	while ((len = read(w->fd, ev, sizeof(ev))) > 0) {
		char *p;

		for (p = ev; p < ev + len;) {
			struct inotify_event *e = (struct inotify_event *)p;

			for (i = 0; e->len && i < w->n; i++)
				changed |= e->wd == w->wd[i] && !strcmp(e->name, w->base[i]);
			p += sizeof(*e) + e->len;
		}
	}
	return changed;
}

void xs_files_close(struct xs_files *w)
{
	int i;

	for (i = 0; i < w->n; i++)
		free(w->base[i]);
	if (w->fd >= 0)
		close(w->fd);
	memset(w, 0, sizeof(*w));
	w->fd = -1;
}
