/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Watching configuration files with inotify, as `apply --watch` does: each
 * file's directory is watched, not the file, so an editor that saves by
 * renaming a new file over the old one is followed, as is a file deleted and
 * created again.
 */
#ifndef XS_AGENT_WATCH_H
#define XS_AGENT_WATCH_H

#include <stdbool.h>

#define XS_WATCH_MAX_FILES 8
#define XS_WATCH_DEBOUNCE_MS 100	/* a burst of writes is applied once, this long after the last */

struct xs_files {
	int fd;				/* inotify, non-blocking; poll it for POLLIN */
	int n;
	int wd[XS_WATCH_MAX_FILES];	/* each file's directory watch */
	char *base[XS_WATCH_MAX_FILES];
};

/* 0, or -errno (printed). */
int xs_files_watch(struct xs_files *w, const char *const *files, int n);
/* Read what inotify has: true if an event named one of the files. */
bool xs_files_changed(struct xs_files *w);
void xs_files_close(struct xs_files *w);

#endif /* XS_AGENT_WATCH_H */
