/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The build record of an attachment (xs_build, struct xs_build): the version
 * of xdpsteer whose program runs, written by attach and by upgrade, shown by
 * status.
 */
#ifndef XS_BUILD_REC_H
#define XS_BUILD_REC_H

#include "xdpsteer.h"

/* This binary's version: `git describe` at build time, or the VERSION file. */
const char *xs_version(void);
/* The record in the map @fd; 0 or -errno (not printed). */
int xs_build_read(int fd, struct xs_build *b);
/* A record saying this build attached (@prev NULL) or upgraded @prev; 0 or -errno (printed). */
int xs_build_write(int fd, const char *ifname, const struct xs_build *prev);

#endif /* XS_BUILD_REC_H */
