// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Pin directories, /sys/fs/bpf/xdpsteer/IFACE/: naming, creating, securing
 * and removing them, and the XDP slot of an interface.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <net/if.h>
#include <bpf/bpf.h>
#include <xdp/libxdp.h>
#include "log.h"
#include "pins.h"
#include "xs_common.h"

int xs_pin_dir(char *buf, size_t len, const char *ifname)
{
	int n = snprintf(buf, len, "%s/%s", XS_PIN_ROOT, ifname);

	if (n < 0 || (size_t)n >= len || strchr(ifname, '/') || !strcmp(ifname, ".") ||
	    !strcmp(ifname, "..")) {
		pr_warn("interface name '%s' cannot name a pin directory\n", ifname);
		return -EINVAL;
	}
	return 0;
}

int xs_pin_path(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Pins are trusted only if they are what we made: never follow a planted symlink. */
int xs_check_not_link(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return -errno;
	if (S_ISLNK(st.st_mode)) {
		pr_warn("refusing %s: it is a symlink, and xdpsteer never follows links in its pin "
			"directory (remove it)\n", path);
		return -ELOOP;
	}
	return 0;
}

bool xs_is_attached(const char *ifname)
{
	char dir[PATH_MAX], path[PATH_MAX];

	if (xs_pin_dir(dir, sizeof(dir), ifname) ||
	    xs_pin_path(path, sizeof(path), dir, XS_PIN_PROG_XDP))
		return false;
	/* AT_EACCESS: access() would drop the capabilities of a caller whose uid is not 0. */
	return faccessat(AT_FDCWD, path, F_OK, AT_EACCESS) == 0;
}

/* Remove everything in the pin directory, then the directory itself. */
int xs_unpin_all(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);
	int err = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (xs_pin_path(path, sizeof(path), dir, de->d_name) || unlink(path)) {
			err = -errno;
			pr_warn("cannot remove pin %s/%s: %s\n", dir, de->d_name, strerror(errno));
		}
	}
	closedir(d);
	if (rmdir(dir) && errno != ENOENT) {
		err = -errno;
		pr_warn("cannot remove %s: %s\n", dir, strerror(errno));
	}
	return err;
}

int xs_pin_obj(int fd, const char *dir, const char *name)
{
	char path[PATH_MAX];

	if (xs_pin_path(path, sizeof(path), dir, name) || bpf_obj_pin(fd, path) ||
	    chmod(path, 0600)) {
		int err = -errno;

		pr_warn("cannot pin %s/%s: %s\n", dir, name, strerror(errno));
		return err ? err : -EINVAL;
	}
	return 0;
}

int xs_chmod_pins(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && !xs_pin_path(path, sizeof(path), dir, de->d_name))
			chmod(path, 0600);
	closedir(d);
	return 0;
}

/*
 * xdpsteer's own programs, by name: what each is, and how to remove it.
 * Another program is never ours to remove: the message says how to find
 * out what it is, not how to take it away.
 */
static const struct {
	const char *prog;
	const char *what;
	const char *remove;
} xs_own_progs[] = {
	{ "xdpsteer_xdp", "xdpsteer's load balancer", "xdpsteer detach" },
	{ "xdpsteer_decap", "xdpsteer's decap program", "xdpsteer decap detach" },
};

/*
 * xdpsteer coexists only with programs in a libxdp dispatcher. A program
 * attached alone cannot be shared: one put there some other way (ip link,
 * another loader), or one of ours when libxdp fell back to a single program
 * because the kernel refused its dispatcher (-vv shows why).
 */
int xs_check_iface_free(const char *ifname, int ifindex)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	struct xdp_program *main_prog;
	const char *name;
	size_t i;
	int err = 0;

	if (libxdp_get_error(mp))
		return 0; /* nothing attached */
	main_prog = xdp_multiprog__main_prog(mp);
	if (!xdp_multiprog__is_legacy(mp) || !main_prog)
		goto out;
	err = -EBUSY;
	name = xdp_program__name(main_prog);
	for (i = 0; i < XS_ARRAY_SIZE(xs_own_progs); i++) {
		if (strcmp(name, xs_own_progs[i].prog))
			continue;
		pr_warn("%s runs %s (XDP program '%s', id %u) alone, without libxdp's "
			"dispatcher, so no other XDP program can run beside it: put this one on "
			"another interface, or run `%s %s` first if that one should go\n",
			ifname, xs_own_progs[i].what, name, xdp_program__id(main_prog),
			xs_own_progs[i].remove, ifname);
		goto out;
	}
	pr_warn("%s already has XDP program '%s' (id %u), attached without libxdp's dispatcher, "
		"so xdpsteer cannot run beside it; find out what it is and who needs it "
		"(bpftool prog show id %u) before removing it\n", ifname, name,
		xdp_program__id(main_prog), xdp_program__id(main_prog));
out:
	xdp_multiprog__close(mp);
	return err;
}
