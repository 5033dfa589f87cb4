// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Pin directories, /sys/fs/bpf/xdpsteer/IFACE/ in the initial network
 * namespace and /sys/fs/bpf/xdpsteer/netns:COOKIE/IFACE/ in any other
 * (netns.c): naming, creating, securing and removing them, whether their
 * program is the one on the interface, and the XDP slot of an interface.
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
#include "netns.h"
#include "pins.h"
#include "xs_common.h"

int xs_pins_root(char *buf, size_t len)
{
	return xs_netns_dir(buf, len, XS_PIN_ROOT);
}

int xs_pin_dir(char *buf, size_t len, const char *ifname)
{
	char root[PATH_MAX];
	int n, err;

	/* No interface is named so; ':' would also reach another namespace's directory. */
	if (!*ifname || strchr(ifname, '/') || strchr(ifname, ':') || !strcmp(ifname, ".") ||
	    !strcmp(ifname, "..")) {
		pr_warn("interface name '%s' cannot name a pin directory (no interface name "
			"contains '/' or ':')\n", ifname);
		return -EINVAL;
	}
	err = xs_pins_root(root, sizeof(root));
	if (err)
		return err;
	n = snprintf(buf, len, "%s/%s", root, ifname);
	if (n < 0 || (size_t)n >= len) {
		pr_warn("interface name '%s' cannot name a pin directory: too long\n", ifname);
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

bool xs_xdp_runs(int ifindex, __u32 id, __u32 *running)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	struct xdp_program *p;
	bool found = false;

	*running = 0;
	if (libxdp_get_error(mp))
		return false; /* nothing attached */
	p = xdp_multiprog__main_prog(mp);
	if (p)
		*running = xdp_program__id(p);
	if (xdp_multiprog__is_legacy(mp)) {
		found = p && xdp_program__id(p) == id;
	} else {
		for (p = xdp_multiprog__next_prog(NULL, mp); p && !found;
		     p = xdp_multiprog__next_prog(p, mp))
			found = xdp_program__id(p) == id;
	}
	p = xdp_multiprog__hw_prog(mp);
	if (p && xdp_program__id(p) == id)
		found = true;
	xdp_multiprog__close(mp);
	return found;
}

/*
 * Pins are found by name, but the state belongs to the program it was made
 * for: a directory whose program does not run on this ifindex here (the
 * interface was deleted and made again, renamed, or its XDP program removed
 * by hand) must not be read as this interface's, nor changed through it.
 */
int xs_pin_owner_check(const char *dir, const char *prog, const char *ifname, int ifindex)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info), running;
	char path[PATH_MAX], what[64];
	int fd, err;

	err = xs_pin_path(path, sizeof(path), dir, prog);
	if (err)
		return err;
	fd = bpf_obj_get(path);
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len)) {
		err = -errno;
		pr_warn("%s: cannot read the pinned program %s: %s\n", ifname, path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return err;
	}
	close(fd);
	if (xs_xdp_runs(ifindex, info.id, &running))
		return 0;
	if (running)
		snprintf(what, sizeof(what), "XDP program id %u runs there", running);
	else
		snprintf(what, sizeof(what), "no XDP program runs there");
	pr_warn("%s: the state in %s is not this interface's: its program (id %u) is not "
		"attached to %s (ifindex %d) in this network namespace, and %s; nothing changed "
		"(if %s was deleted and made again, or its XDP program removed by hand, the "
		"state is stale: remove it with `rm -r %s`, then attach again)\n",
		ifname, dir, info.id, ifname, ifindex, what, ifname, dir);
	return -ESTALE;
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
