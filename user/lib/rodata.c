// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * A running program's load-time configuration (rodata.h): its .rodata map
 * found through the program's map ids, read through the BTF the kernel holds
 * for it, variable by name.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "rodata.h"

/* The rodata map of program @prog_fd: an fd, and its info in @info; or -errno. */
int xs_prog_rodata(int prog_fd, struct bpf_map_info *info)
{
	struct bpf_prog_info pinfo = { 0 };
	__u32 len = sizeof(pinfo), ids[64] = { 0 }, n, i;
	int fd;

	if (bpf_obj_get_info_by_fd(prog_fd, &pinfo, &len))
		return -errno;
	n = pinfo.nr_map_ids < 64 ? pinfo.nr_map_ids : 64;
	memset(&pinfo, 0, sizeof(pinfo));
	pinfo.nr_map_ids = n;
	pinfo.map_ids = (__u64)(unsigned long)ids;
	len = sizeof(pinfo);
	if (bpf_obj_get_info_by_fd(prog_fd, &pinfo, &len))
		return -errno;
	for (i = 0; i < n; i++) {
		size_t l;

		fd = bpf_map_get_fd_by_id(ids[i]);
		if (fd < 0)
			continue;
		memset(info, 0, sizeof(*info));
		len = sizeof(*info);
		l = bpf_obj_get_info_by_fd(fd, info, &len) ? 0 : strlen(info->name);
		if (l >= 7 && !strcmp(info->name + l - 7, ".rodata"))
			return fd;
		close(fd);
	}
	return -ENOENT;
}

/* The DATASEC ".rodata" variable @name of @btf: its offset and size; false if absent. */
bool xs_datasec_var(const struct btf *btf, __u32 sec, const char *name, __u32 *off,
			   __u32 *size, __u32 *type)
{
	const struct btf_type *t = btf__type_by_id(btf, sec);
	const struct btf_var_secinfo *v;
	__u16 i;

	if (!t || !btf_is_datasec(t))
		return false;
	for (i = 0, v = btf_var_secinfos(t); i < btf_vlen(t); i++, v++) {
		const struct btf_type *var = btf__type_by_id(btf, v->type);

		if (var && !strcmp(btf__name_by_offset(btf, var->name_off), name)) {
			*off = v->offset;
			*size = v->size;
			*type = var->type;
			return true;
		}
	}
	return false;
}

/*
 * BTF object @id as the kernel holds it; NULL if it cannot be read. As
 * btf__load_from_kernel_by_id(), into a zeroed buffer of our own: memcheck
 * does not know that BPF_OBJ_GET_INFO_BY_FD writes the blob, and a buffer
 * it sees as written keeps the reads of a running program's BTF out of its
 * reports (tests/check/valgrind.sh).
 */
struct btf *xs_kernel_btf(__u32 id)
{
	struct bpf_btf_info info = { 0 };
	__u32 len = sizeof(info), size;
	struct btf *btf = NULL;
	void *buf = NULL;
	int fd = bpf_btf_get_fd_by_id(id);

	if (fd < 0)
		return NULL;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.btf_size) {
		size = info.btf_size;
		buf = calloc(1, size);
		memset(&info, 0, sizeof(info));
		info.btf = (__u64)(unsigned long)buf;
		info.btf_size = size;
		len = sizeof(info);
		if (buf && !bpf_obj_get_info_by_fd(fd, &info, &len) && info.btf_size == size) {
			btf = btf__new(buf, size);
			if (libbpf_get_error(btf))
				btf = NULL;
		}
	}
	free(buf);
	close(fd);
	return btf;
}

int xs_rodata_read(int prog_fd, const char *name, void *val, __u32 size)
{
	struct bpf_map_info info = { 0 };
	unsigned char *data = NULL;
	struct btf *btf = NULL;
	__u32 zero = 0, off, vsize, type;
	int fd, err;

	fd = xs_prog_rodata(prog_fd, &info);
	if (fd < 0)
		return fd;
	data = calloc(1, info.value_size);
	btf = info.btf_id ? xs_kernel_btf(info.btf_id) : NULL;
	if (!data || !btf || bpf_map_lookup_elem(fd, &zero, data))
		err = -EIO;
	else if (!xs_datasec_var(btf, info.btf_value_type_id, name, &off, &vsize, &type))
		err = -ENOENT;
	else if (vsize != size || off + size > info.value_size)
		err = -EPROTO;
	else
		err = 0;
	if (!err)
		memcpy(val, data + off, size);
	free(data);
	btf__free(btf);
	close(fd);
	return err;
}

int xs_flow_table_entries(const struct xs_handle *h, __u32 *entries)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	__u8 on = 1;
	int fd;

	if (bpf_obj_get_info_by_fd(h->flows_fd, &info, &len))
		return -errno;
	*entries = info.max_entries;
	/* --flow-table-size 0 still sizes the map at 1: the program says it is off. */
	fd = xs_obj_get(h, XS_PIN_PROG_XDP);
	if (fd >= 0) {
		if (!xs_rodata_read(fd, "cfg_flow_table", &on, sizeof(on)) && !on)
			*entries = 0;
		close(fd);
	}
	return 0;
}
