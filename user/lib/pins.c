// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Pin directories: creating, securing and removing them; the XDP slot of an interface. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <xdp/libxdp.h>
#include "log.h"
#include "state.h"

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
 * xdpsteer coexists only with programs libxdp manages. A program attached
 * some other way (ip link, another loader) cannot be shared, so say so.
 */
int xs_check_iface_free(const char *ifname, int ifindex)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	struct xdp_program *main_prog;
	int err = 0;

	if (libxdp_get_error(mp))
		return 0; /* nothing attached */
	main_prog = xdp_multiprog__main_prog(mp);
	if (xdp_multiprog__is_legacy(mp) && main_prog) {
		pr_warn("%s already has XDP program '%s' (id %u) that was not attached through a "
			"libxdp dispatcher, so xdpsteer cannot run beside it; remove it first "
			"(ip link set dev %s xdp off, or xdp-loader unload %s --all)\n",
			ifname, xdp_program__name(main_prog), xdp_program__id(main_prog), ifname,
			ifname);
		err = -EBUSY;
	}
	xdp_multiprog__close(mp);
	return err;
}
