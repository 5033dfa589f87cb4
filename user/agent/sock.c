// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Unix stream sockets with timeouts (sock.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include "sock.h"

int xs_unix_addr(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	snprintf(sa->sun_path, sizeof(sa->sun_path), "%s", path);
	return 0;
}

int xs_unix_connect(const char *path, int timeout_s)
{
	struct timeval tv = { .tv_sec = timeout_s };
	struct sockaddr_un sa;
	int fd, err = xs_unix_addr(path, &sa);

	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}
