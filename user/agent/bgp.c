// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The VIPs in bird2: route files, a reconfigure, and a TUN device for liveness (bgp.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include "bgp.h"
#include "log.h"
#include "sock.h"

#define XS_BIRD_TIMEOUT_S 5

void xs_route_format(const struct xs_route *v, char *buf, size_t len)
{
	static const __be32 mapped[3] = { 0, 0, 0 };

	if (!memcmp(v->addr, mapped, 8) && v->addr[2] == htonl(0xffff))
		inet_ntop(AF_INET, &v->addr[3], buf, (socklen_t)len);
	else
		inet_ntop(AF_INET6, v->addr, buf, (socklen_t)len);
}

static bool xs_route_is4(const struct xs_route *v)
{
	return !v->addr[0] && !v->addr[1] && v->addr[2] == htonl(0xffff);
}

static int xs_tun_flags(struct xs_bgp *b, bool up)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), err = 0;

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", b->dev);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr)) {
		err = -errno;
	} else {
		if (up)
			ifr.ifr_flags |= IFF_UP;
		else
			ifr.ifr_flags &= ~IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr))
			err = -errno;
	}
	close(fd);
	if (err)
		snprintf(b->error, sizeof(b->error), "cannot set %s %s: %s", b->dev,
			 up ? "up" : "down", strerror(-err));
	else
		b->up = up;
	return err;
}

int xs_bgp_open(struct xs_bgp *b, const char *bird_socket, const char *dev, const char *dir)
{
	struct ifreq ifr = { 0 };
	int i;

	memset(b, 0, sizeof(*b));
	b->tun_fd = -1;
	if (strlen(dev) >= IF_NAMESIZE) {
		pr_warn("--vip-dev: '%s' is longer than %d characters\n", dev, IF_NAMESIZE - 1);
		return -EINVAL;
	}
	snprintf(b->dev, sizeof(b->dev), "%s", dev);
	snprintf(b->socket, sizeof(b->socket), "%s", bird_socket);
	for (i = 0; i < 2; i++)
		snprintf(b->file[i], sizeof(b->file[i]), "%s/bird-vips%d.conf", dir, i ? 6 : 4);
	b->tun_fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (b->tun_fd < 0) {
		pr_warn("cannot open /dev/net/tun for the VIP device %s: %s\n", dev, strerror(errno));
		return -errno;
	}
	/* Not persistent: the device lives exactly as long as this process holds it. */
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	if (ioctl(b->tun_fd, TUNSETIFF, &ifr)) {
		int err = -errno;

		pr_warn("cannot create the VIP device %s: %s%s\n", dev, strerror(errno),
			errno == EBUSY ? " (another agent holds it: one agent per --vip-dev)" : "");
		close(b->tun_fd);
		b->tun_fd = -1;
		return err;
	}
	return 0;
}

/* Read bird's answer up to its last line ("DDDD text"): the code, or -errno. */
static int xs_bird_reply(struct xs_bgp *b, int fd, char *last, size_t len)
{
	char buf[4096], *line, *nl;
	size_t have = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n <= 0) {
			snprintf(b->error, sizeof(b->error), "bird at %.150s: %s", b->socket,
				 n ? strerror(errno) : "closed the connection");
			return n ? -errno : -EIO;
		}
		have += (size_t)n;
		buf[have] = 0;
		for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
			*nl = 0;
			if (strlen(line) >= 5 && line[4] == ' ' && line[0] >= '0' && line[0] <= '9') {
				snprintf(last, len, "%s", line + 5);
				return (int)strtol(line, NULL, 10);
			}
		}
		have = strlen(line);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			have = 0; /* a line longer than the buffer is not one we wait for */
	}
}

/* Ask bird to read its configuration again. 0, or -errno with b->error set. */
static int xs_bird_configure(struct xs_bgp *b)
{
	char last[256];
	int fd, code, err = 0;

	fd = xs_unix_connect(b->socket, XS_BIRD_TIMEOUT_S);
	if (fd < 0) {
		snprintf(b->error, sizeof(b->error), "cannot reach bird at %.150s: %s", b->socket,
			 strerror(-fd));
		return fd;
	}
	code = xs_bird_reply(b, fd, last, sizeof(last)); /* the greeting */
	if (code >= 0 && write(fd, "configure\n", 10) != 10)
		code = -errno;
	if (code >= 0)
		code = xs_bird_reply(b, fd, last, sizeof(last));
	if (code < 0) {
		err = code;
	} else if (code >= 8000) {
		/* 8xxx and 9xxx are bird's errors: a configuration it refused, say. */
		snprintf(b->error, sizeof(b->error), "bird refused to reconfigure: %.200s", last);
		err = -EINVAL;
	}
	close(fd);
	return err;
}

/* Replace @path's content with @text at once: bird never reads half a file. */
static int xs_write_file(struct xs_bgp *b, const char *path, const char *text)
{
	char tmp[PATH_MAX + 8];
	size_t len = strlen(text);
	int fd, err = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len || fsync(fd) || close(fd) ||
	    rename(tmp, path))
		err = -errno;
	if (err) {
		snprintf(b->error, sizeof(b->error), "cannot write %.150s: %s", path, strerror(-err));
		if (fd >= 0)
			unlink(tmp);
	}
	return err;
}

static char *xs_routes_text(const struct xs_bgp *b, const struct xs_route *vips, int n, bool v4)
{
	char *text = NULL, addr[INET6_ADDRSTRLEN];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int i;

	if (!f)
		return NULL;
	fprintf(f, "# Written by xdpsteer agent: the VIPs this host serves. Do not edit.\n");
	for (i = 0; i < n; i++) {
		if (xs_route_is4(&vips[i]) != v4)
			continue;
		xs_route_format(&vips[i], addr, sizeof(addr));
		fprintf(f, "route %s/%d via \"%s\";\n", addr, v4 ? 32 : 128, b->dev);
	}
	fclose(f);
	return text;
}

int xs_bgp_set(struct xs_bgp *b, const struct xs_route *vips, int n, bool announce)
{
	int i, err;

	if (!announce)
		return b->up ? xs_tun_flags(b, false) : 0;
	for (i = 0; i < 2; i++) {
		char *text = xs_routes_text(b, vips, n, i == 0);

		if (!text)
			return -ENOMEM;
		if (b->text[i] && !strcmp(b->text[i], text)) {
			free(text);
			continue;
		}
		err = xs_write_file(b, b->file[i], text);
		if (err) {
			free(text);
			return err;
		}
		free(b->text[i]);
		b->text[i] = text;
		b->configured = false;
	}
	if (!b->configured) {
		err = xs_bird_configure(b);
		if (err)
			return err;
		b->configured = true;
	}
	b->error[0] = 0;
	return b->up ? 0 : xs_tun_flags(b, true);
}

void xs_bgp_close(struct xs_bgp *b)
{
	int i;

	if (b->tun_fd >= 0) {
		if (b->up)
			xs_tun_flags(b, false);
		close(b->tun_fd);
	}
	b->tun_fd = -1;
	for (i = 0; i < 2; i++) {
		free(b->text[i]);
		b->text[i] = NULL;
	}
}
