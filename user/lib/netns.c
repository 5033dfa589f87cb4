// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Which network namespace this is (netns.h), and the directory of its state.
 *
 * The initial namespace keeps the paths older versions used; any other gets
 * ROOT/netns:COOKIE. The cookie (SO_NETNS_COOKIE) is never reused within a
 * boot, unlike the nsfs inode number: pins outlive their namespace, and a new
 * namespace must not inherit a dead one's. ':' cannot be in an interface
 * name, so the directory can never be an interface's.
 */
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "log.h"
#include "netns.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif
/* include/linux/proc_ns.h: init_net's fixed nsfs inode on recent kernels; dynamic ones start above. */
#define XS_PROC_NET_INIT_INO 0xEFFFFFF9U

/* Linux 6.18 and later: init_net has the fixed inode, every other namespace another. */
static bool xs_kernel_fixes_init_ino(void)
{
	struct utsname u;
	unsigned int major = 0, minor = 0;

	return !uname(&u) && sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
	       (major > 6 || (major == 6 && minor >= 18));
}

/*
 * Every process of one namespace must get the same answer, or a command and
 * the agent (sandboxed by systemd, which cannot read PID 1's namespace) would
 * look in different directories. From Linux 6.18 the inode alone answers. On
 * older kernels, compare with PID 1's namespace; if that cannot be read, call
 * it another namespace: the state then moves to a directory of its own, which
 * can collide with nothing.
 */
int xs_netns_is_init(void)
{
	static int is_init = -1;
	struct stat self, init;

	if (is_init >= 0)
		return is_init;
	if (stat("/proc/self/ns/net", &self)) {
		pr_debug("cannot stat /proc/self/ns/net: %s\n", strerror(errno));
		is_init = 0;
	} else if (self.st_ino == XS_PROC_NET_INIT_INO) {
		is_init = 1;
	} else if (xs_kernel_fixes_init_ino()) {
		is_init = 0;
	} else {
		is_init = !stat("/proc/1/ns/net", &init) && init.st_ino != XS_PROC_NET_INIT_INO &&
			  init.st_dev == self.st_dev && init.st_ino == self.st_ino;
	}
	return is_init;
}

int xs_netns_cookie(__u64 *cookie)
{
	static __u64 cached;
	socklen_t len = sizeof(*cookie);
	int fd, err = 0;

	if (cached) {
		*cookie = cached;
		return 0;
	}
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, cookie, &len)) {
		err = -errno;
		pr_warn("cannot read this network namespace's cookie (SO_NETNS_COOKIE, Linux "
			"5.14 or later): %s\n", strerror(errno));
	} else {
		cached = *cookie;
	}
	if (fd >= 0)
		close(fd);
	return err;
}

int xs_netns_dir(char *buf, size_t len, const char *root)
{
	__u64 cookie;
	int n, err;

	if (xs_netns_is_init()) {
		n = snprintf(buf, len, "%s", root);
	} else {
		err = xs_netns_cookie(&cookie);
		if (err)
			return err;
		n = snprintf(buf, len, XS_NETNS_DIR_FMT, root, (unsigned long long)cookie);
	}
	if (n < 0 || (size_t)n >= len) {
		pr_warn("the state directory under %s does not fit in %zu bytes\n", root, len);
		return -ENAMETOOLONG;
	}
	return 0;
}

int xs_netns_mkdir(const char *root, unsigned int mode)
{
	char dir[PATH_MAX];
	int err = xs_netns_dir(dir, sizeof(dir), root);

	if (err)
		return err;
	if ((mkdir(root, mode) && errno != EEXIST) ||
	    (strcmp(dir, root) && mkdir(dir, mode) && errno != EEXIST)) {
		err = -errno;
		pr_warn("cannot create %s: %s\n", dir, strerror(errno));
	}
	return err;
}

void xs_netns_rmdir(const char *root)
{
	char dir[PATH_MAX];

	/* Not empty (other interfaces' state) is fine: only the last one leaves. */
	if (!xs_netns_dir(dir, sizeof(dir), root) && strcmp(dir, root))
		rmdir(dir);
}
