// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The --wrap side of map_count.h: each __wrap_X counts and times one call and
 * hands it to the real libbpf function __real_X. The clock is read around the
 * call only (two clock_gettime, about 40 ns, against a syscall of a
 * microsecond or more), so the times are what the kernel and libbpf took.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "map_count.h"

static struct map_count mc;
static bool counting;
static int mc_mim_fd = -1;

void map_count_reset(int mim_fd)
{
	memset(&mc, 0, sizeof(mc));
	mc_mim_fd = mim_fd;
	counting = true;
}

void map_count_get(struct map_count *out)
{
	*out = mc;
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* One write syscall on @fd that changed @elems elements, taking @ns. */
static void count_write(int fd, __u64 elems, double ns)
{
	if (!counting)
		return;
	mc.write_calls++;
	mc.write_elems += elems;
	mc.write_ns += ns;
	if (fd == mc_mim_fd) {
		mc.mim_calls++;
		mc.mim_ns += ns;
	}
	if (fd >= 0 && fd < MAP_COUNT_FDS) {
		mc.fd[fd].calls++;
		mc.fd[fd].elems += elems;
	}
}

static void count_read(double ns)
{
	if (!counting)
		return;
	mc.read_calls++;
	mc.read_ns += ns;
}

/* Writes: the real call between two clock reads, then counted. */
#define TIMED(var, call)                                                                   \
	({                                                                                 \
		double __t0 = now_ns();                                                    \
		var = (call);                                                              \
		now_ns() - __t0;                                                           \
	})

int __real_bpf_map_update_elem(int fd, const void *key, const void *value, __u64 flags);
int __wrap_bpf_map_update_elem(int fd, const void *key, const void *value, __u64 flags)
{
	int rc = 0; /* set by TIMED(); initialised for cppcheck */
	double ns = TIMED(rc, __real_bpf_map_update_elem(fd, key, value, flags));

	count_write(fd, 1, ns);
	return rc;
}

int __real_bpf_map_delete_elem(int fd, const void *key);
int __wrap_bpf_map_delete_elem(int fd, const void *key)
{
	int rc = 0; /* set by TIMED(); initialised for cppcheck */
	double ns = TIMED(rc, __real_bpf_map_delete_elem(fd, key));

	count_write(fd, 1, ns);
	return rc;
}

int __real_bpf_map_update_batch(int fd, const void *keys, const void *values, __u32 *count,
				const struct bpf_map_batch_opts *opts);
int __wrap_bpf_map_update_batch(int fd, const void *keys, const void *values, __u32 *count,
				const struct bpf_map_batch_opts *opts)
{
	__u32 asked = *count;
	int rc = 0; /* set by TIMED(); initialised for cppcheck */
	double ns = TIMED(rc, __real_bpf_map_update_batch(fd, keys, values, count, opts));

	/* On success *count is what was written; on failure, as far as it got. */
	count_write(fd, rc ? *count : asked, ns);
	return rc;
}

int __real_bpf_map_delete_batch(int fd, const void *keys, __u32 *count,
				const struct bpf_map_batch_opts *opts);
int __wrap_bpf_map_delete_batch(int fd, const void *keys, __u32 *count,
				const struct bpf_map_batch_opts *opts)
{
	__u32 asked = *count;
	int rc = 0; /* set by TIMED(); initialised for cppcheck */
	double ns = TIMED(rc, __real_bpf_map_delete_batch(fd, keys, count, opts));

	count_write(fd, rc ? *count : asked, ns);
	return rc;
}

int __real_bpf_map_freeze(int fd);
int __wrap_bpf_map_freeze(int fd)
{
	int rc = 0; /* set by TIMED(); initialised for cppcheck */
	double ns = TIMED(rc, __real_bpf_map_freeze(fd));

	count_write(fd, 0, ns);
	return rc;
}

int __real_bpf_map_create(enum bpf_map_type type, const char *name, __u32 key_size,
			  __u32 value_size, __u32 max_entries, const struct bpf_map_create_opts *opts);
int __wrap_bpf_map_create(enum bpf_map_type type, const char *name, __u32 key_size,
			  __u32 value_size, __u32 max_entries, const struct bpf_map_create_opts *opts)
{
	int fd = -1; /* set by TIMED() */
	double ns = TIMED(fd, __real_bpf_map_create(type, name, key_size, value_size,
						     max_entries, opts));

	if (counting) {
		mc.creates++;
		mc.write_ns += ns;
		/* Later writes to this fd are named after the map, not the fd. */
		if (fd >= 0 && fd < MAP_COUNT_FDS)
			snprintf(mc.name[fd], sizeof(mc.name[fd]), "%s", name ? name : "?");
	}
	return fd;
}

int __real_bpf_obj_pin(int fd, const char *path);
int __wrap_bpf_obj_pin(int fd, const char *path)
{
	int rc = 0; /* set by TIMED(); initialised for cppcheck */
	double ns = TIMED(rc, __real_bpf_obj_pin(fd, path));

	if (counting) {
		mc.pins++;
		mc.write_ns += ns;
	}
	return rc;
}

/* Reads: counted and timed only, to split the apply's time. */
int __real_bpf_map_lookup_elem(int fd, const void *key, void *value);
int __wrap_bpf_map_lookup_elem(int fd, const void *key, void *value)
{
	int rc = 0; /* set by TIMED(); initialised for cppcheck */

	count_read(TIMED(rc, __real_bpf_map_lookup_elem(fd, key, value)));
	return rc;
}

int __real_bpf_map_lookup_batch(int fd, void *in_batch, void *out_batch, void *keys,
				void *values, __u32 *count, const struct bpf_map_batch_opts *opts);
int __wrap_bpf_map_lookup_batch(int fd, void *in_batch, void *out_batch, void *keys,
				void *values, __u32 *count, const struct bpf_map_batch_opts *opts)
{
	int rc = 0; /* set by TIMED(); initialised for cppcheck */

	count_read(TIMED(rc, __real_bpf_map_lookup_batch(fd, in_batch, out_batch, keys, values,
							  count, opts)));
	return rc;
}

int __real_bpf_map_get_next_key(int fd, const void *key, void *next_key);
int __wrap_bpf_map_get_next_key(int fd, const void *key, void *next_key)
{
	int rc = 0; /* set by TIMED(); initialised for cppcheck */

	count_read(TIMED(rc, __real_bpf_map_get_next_key(fd, key, next_key)));
	return rc;
}

int __real_bpf_map_get_fd_by_id(__u32 id);
int __wrap_bpf_map_get_fd_by_id(__u32 id)
{
	int rc = 0; /* set by TIMED(); initialised for cppcheck */

	count_read(TIMED(rc, __real_bpf_map_get_fd_by_id(id)));
	return rc;
}

int __real_bpf_obj_get_info_by_fd(int fd, void *info, __u32 *len);
int __wrap_bpf_obj_get_info_by_fd(int fd, void *info, __u32 *len)
{
	int rc = 0; /* set by TIMED(); initialised for cppcheck */

	count_read(TIMED(rc, __real_bpf_obj_get_info_by_fd(fd, info, len)));
	return rc;
}

int __real_bpf_btf_get_fd_by_id(__u32 id);
int __wrap_bpf_btf_get_fd_by_id(__u32 id)
{
	int rc = 0; /* set by TIMED(); initialised for cppcheck */

	count_read(TIMED(rc, __real_bpf_btf_get_fd_by_id(id)));
	return rc;
}

struct btf *__real_btf__load_from_kernel_by_id(__u32 id);
struct btf *__wrap_btf__load_from_kernel_by_id(__u32 id)
{
	struct btf *b = NULL; /* set by TIMED() */

	count_read(TIMED(b, __real_btf__load_from_kernel_by_id(id)));
	return b;
}

/*
 * Not a map call: the library's own netlink work for each backend added or
 * removed (route, neighbour, managed entry). Wrapped because it is called
 * from apply.o into neigh.o, so its time can be shown apart from the plan.
 */
int __real_xs_neigh_manage(const __be32 addr[4], int family, bool add);
int __wrap_xs_neigh_manage(const __be32 addr[4], int family, bool add)
{
	int rc = 0; /* set by TIMED(); initialised for cppcheck */
	double ns = TIMED(rc, __real_xs_neigh_manage(addr, family, add));

	if (counting) {
		mc.neigh_calls++;
		mc.neigh_ns += ns;
	}
	return rc;
}
