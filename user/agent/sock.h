/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Unix stream sockets the agent talks over: its own control socket, bird's. */
#ifndef XS_AGENT_SOCK_H
#define XS_AGENT_SOCK_H

#include <sys/un.h>

/* @path as an address: 0, or -ENAMETOOLONG. */
int xs_unix_addr(const char *path, struct sockaddr_un *sa);
/* Connected to @path, reads and writes bounded by @timeout_s: an fd, or -errno. */
int xs_unix_connect(const char *path, int timeout_s);

#endif /* XS_AGENT_SOCK_H */
