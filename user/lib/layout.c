// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Layout checks for `xdpsteer upgrade` (layout.h). A type's layout is
 * written out as a string, its "shape": member names, bit offsets, sizes and
 * array lengths, down through nested types, with typedef and qualifier names
 * dropped. Two types with the same shape lay out the same bytes the same
 * way; the first place where two shapes differ names what changed.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "build_rec.h"
#include "layout.h"
#include "log.h"
#include "pins.h"
#include "rodata.h"

struct xs_shape {
	char s[4096];
	size_t n;
};

static void xs_shape_add(struct xs_shape *sh, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (sh->n >= sizeof(sh->s) - 1)
		return;
	va_start(ap, fmt);
	k = vsnprintf(sh->s + sh->n, sizeof(sh->s) - sh->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		sh->n = sh->n + (size_t)k < sizeof(sh->s) ? sh->n + (size_t)k : sizeof(sh->s) - 1;
}

/* Recursive down nested types, at most 16 deep: map types nest two or three. */
// NOLINTNEXTLINE(misc-no-recursion)
static void xs_shape_of(const struct btf *btf, __u32 id, struct xs_shape *sh, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;
	__u16 i;

	if (!t || depth > 16) {
		xs_shape_add(sh, "?");
		return;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		xs_shape_of(btf, t->type, sh, depth + 1);
		break;
	case BTF_KIND_INT:
		xs_shape_add(sh, "int%u", btf_int_bits(t));
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		xs_shape_add(sh, "enum%u", t->size * 8);
		break;
	case BTF_KIND_PTR:
		xs_shape_add(sh, "ptr");
		break;
	case BTF_KIND_ARRAY:
		xs_shape_add(sh, "[%u]", btf_array(t)->nelems);
		xs_shape_of(btf, btf_array(t)->type, sh, depth + 1);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		xs_shape_add(sh, "%s %s(%u){", btf_is_struct(t) ? "struct" : "union",
			     btf__name_by_offset(btf, t->name_off), t->size);
		for (i = 0, m = btf_members(t); i < btf_vlen(t); i++, m++) {
			xs_shape_add(sh, "%s%s@%u", i ? ", " : "", btf__name_by_offset(btf, m->name_off),
				     btf_member_bit_offset(t, i));
			if (btf_member_bitfield_size(t, i))
				xs_shape_add(sh, ":%u", btf_member_bitfield_size(t, i));
			xs_shape_add(sh, " ");
			xs_shape_of(btf, m->type, sh, depth + 1);
		}
		xs_shape_add(sh, "}");
		break;
	default:
		xs_shape_add(sh, "kind%u(%u)", btf_kind(t), t->size);
	}
}

/* The member around byte @at of shape @s: from the last '{' or ',' before it to the next. */
static void xs_shape_around(const char *s, size_t at, char *buf, size_t len)
{
	size_t b = at, e = at;

	while (b > 0 && s[b - 1] != '{' && s[b - 1] != ',')
		b--;
	while (s[e] && s[e] != ',' && s[e] != '}')
		e++;
	while (s[b] == ' ')
		b++;
	snprintf(buf, len, "%.*s", (int)(e - b), s + b);
}

/*
 * Do the types @old_id (in @old) and @new_id (in @new) lay out alike? If
 * not, print "IFACE: map NAME: WHAT ..." with the member where they part.
 */
static bool xs_same_type(const char *ifname, const char *map, const char *what,
			 const struct btf *old, __u32 old_id, const struct btf *new, __u32 new_id)
{
	struct xs_shape *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	char ra[160], rb[160];
	size_t i = 0;
	bool same;

	/* A pool made without BTF (best effort, see pool.c) has only its sizes to compare. */
	if (!old || !old_id || !new || !new_id) {
		free(a);
		free(b);
		return true;
	}
	if (!a || !b) {
		free(a);
		free(b);
		return false;
	}
	xs_shape_of(old, old_id, a, 0);
	xs_shape_of(new, new_id, b, 0);
	same = !strcmp(a->s, b->s);
	if (!same) {
		while (a->s[i] && a->s[i] == b->s[i])
			i++;
		xs_shape_around(a->s, i, ra, sizeof(ra));
		xs_shape_around(b->s, i, rb, sizeof(rb));
		pr_warn("%s: map %s: the %s type changed layout: the running one has '%s', this "
			"build '%s'\n", ifname, map, what, ra, rb);
	}
	free(a);
	free(b);
	return same;
}

/* The running object's BTF, loaded once: every pinned map of one attachment shares it. */
struct xs_old_btf {
	__u32 id;
	struct btf *btf;
};

static const struct btf *xs_old_btf(struct xs_old_btf *c, __u32 id)
{
	if (c->id != id) {
		btf__free(c->btf);
		c->btf = id ? btf__load_from_kernel_by_id(id) : NULL;
		c->id = id;
	}
	return c->btf;
}

/*
 * One map of the new object against the pinned map @fd: the differences,
 * printed; their count. @sized: compare max_entries (a pool's size is its
 * own, not the object's).
 */
static int xs_map_compare(const char *ifname, const char *name, const struct bpf_map *map,
			  const struct btf *nbtf, int fd, bool sized, struct xs_old_btf *cache)
{
	const struct btf *obtf;
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	int diffs = 0;
	size_t i;

	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		pr_warn("%s: cannot read the pinned map %s: %s\n", ifname, name, strerror(errno));
		return 1;
	}
	if (!sized)
		info.max_entries = bpf_map__max_entries(map);
	const struct {
		const char *what;
		__u64 running, build;
	} f[] = {
		{ "map type", info.type, bpf_map__type(map) },
		{ "key size", info.key_size, bpf_map__key_size(map) },
		{ "value size", info.value_size, bpf_map__value_size(map) },
		{ "max_entries", info.max_entries, bpf_map__max_entries(map) },
		{ "map flags", info.map_flags, bpf_map__map_flags(map) },
	};

	for (i = 0; i < XS_ARRAY_SIZE(f); i++)
		if (f[i].running != f[i].build) {
			pr_warn("%s: map %s: %s differs: the running attachment has %llu, this build "
				"%llu\n", ifname, name, f[i].what, (unsigned long long)f[i].running,
				(unsigned long long)f[i].build);
			diffs++;
		}
	obtf = xs_old_btf(cache, info.btf_id);
	if (!xs_same_type(ifname, name, "key", obtf, info.btf_key_type_id, nbtf,
			  bpf_map__btf_key_type_id(map)))
		diffs++;
	if (!xs_same_type(ifname, name, "value", obtf, info.btf_value_type_id, nbtf,
			  bpf_map__btf_value_type_id(map)))
		diffs++;
	return diffs;
}

/* Is @name a pool's pin, "pool" and a number (XS_PIN_POOL_FMT)? */
static bool xs_is_pool_pin(const char *name)
{
	char *end;

	if (strncmp(name, "pool", 4) || !isdigit((unsigned char)name[4]))
		return false;
	errno = 0;
	strtoul(name + 4, &end, 10);
	return !errno && !*end;
}

/* The pools (inner maps of xs_pools, pinned as poolN) against the new object's inner map. */
static int xs_pools_compare(const char *ifname, const char *dir, struct bpf_object *obj,
			    struct xs_old_btf *cache)
{
	struct bpf_map *outer = bpf_object__find_map_by_name(obj, "xs_pools");
	struct bpf_map *inner = outer ? bpf_map__inner_map(outer) : NULL;
	char path[PATH_MAX];
	struct dirent *de;
	int diffs = 0, fd;
	DIR *d;

	if (!inner)
		return 0;
	d = opendir(dir);
	while (d && (de = readdir(d)) && !diffs) {
		if (!xs_is_pool_pin(de->d_name) ||
		    xs_pin_path(path, sizeof(path), dir, de->d_name) || xs_check_not_link(path))
			continue;
		fd = bpf_obj_get(path);
		if (fd < 0)
			continue;
		/* One live pool is enough: they are all made by the same code. */
		diffs += xs_map_compare(ifname, de->d_name, inner, bpf_object__btf(obj), fd, false,
					cache);
		close(fd);
		break;
	}
	if (d)
		closedir(d);
	return diffs;
}

/* Is pin @name a map xdpsteer's object defines (not a program, link or pool)? */
static bool xs_pin_is_obj_map(const char *name)
{
	return strncmp(name, "prog_", 5) && strncmp(name, "link_", 5) && name[0] != '.' &&
	       !xs_is_pool_pin(name);
}

/*
 * Maps that hold no state across programs: an upgrade from a build without
 * them creates them empty (libbpf pins a map whose pin path has none), and
 * the new program starts as it would on a fresh attach. Any other map the
 * running attachment lacks would start empty where the program expects the
 * control plane's state, so it refuses the upgrade.
 */
static const char *const xs_born_empty[] = {
	"xs_trace_filter",	/* armed by `xdpsteer trace`, off until then */
	"xs_trace_ring",
	"xs_trace_scratch",
};

static bool xs_map_born_empty(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(xs_born_empty) / sizeof(xs_born_empty[0]); i++)
		if (!strcmp(name, xs_born_empty[i]))
			return true;
	return false;
}

int xs_layout_check(struct bpf_object *obj, const char *dir, const char *ifname)
{
	struct xs_old_btf cache = { 0 };
	char path[PATH_MAX];
	struct bpf_map *map;
	struct dirent *de;
	int diffs = 0, fd;
	DIR *d;

	bpf_object__for_each_map(map, obj) {
		const char *name = bpf_map__name(map);

		if (bpf_map__is_internal(map))
			continue;
		if (xs_pin_path(path, sizeof(path), dir, name) || xs_check_not_link(path) ||
		    (fd = bpf_obj_get(path)) < 0) {
			if (xs_map_born_empty(name)) {
				pr_info("%s: map %s is new in this build: the upgrade creates it\n",
					ifname, name);
				continue;
			}
			pr_warn("%s: map %s: this build has it, the running attachment has not\n",
				ifname, name);
			diffs++;
			continue;
		}
		diffs += xs_map_compare(ifname, name, map, bpf_object__btf(obj), fd, true, &cache);
		if (!strcmp(name, "xs_build")) {
			struct xs_build b;

			if (!xs_build_read(fd, &b) && b.layout != XS_LAYOUT_VERSION) {
				pr_warn("%s: layout version %u is running, this build has %u\n",
					ifname, b.layout, XS_LAYOUT_VERSION);
				diffs++;
			}
		}
		close(fd);
	}
	d = opendir(dir);
	while (d && (de = readdir(d)))
		if (xs_pin_is_obj_map(de->d_name) && !bpf_object__find_map_by_name(obj, de->d_name)) {
			pr_warn("%s: map %s: the running attachment has it, this build has not\n",
				ifname, de->d_name);
			diffs++;
		}
	if (d)
		closedir(d);
	diffs += xs_pools_compare(ifname, dir, obj, &cache);
	btf__free(cache.btf);
	return diffs ? -EPROTO : 0;
}

int xs_rodata_carry(int old_prog_fd, struct bpf_object *obj, const char *ifname)
{
	const struct btf *nbtf = bpf_object__btf(obj);
	struct bpf_map_info info = { 0 };
	struct bpf_map *rodata = NULL, *m;
	const struct btf_var_secinfo *v;
	const struct btf_type *sec;
	struct btf *obtf = NULL;
	unsigned char *old = NULL, *new = NULL;
	const void *init;
	size_t new_size = 0;
	__u32 zero = 0;
	int fd, nsec, diffs = 0, carried = 0;
	__u16 i;

	bpf_object__for_each_map(m, obj)
		if (bpf_map__is_internal(m) && strstr(bpf_map__name(m), ".rodata"))
			rodata = m;
	init = rodata ? bpf_map__initial_value(rodata, &new_size) : NULL;
	new = init ? malloc(new_size) : NULL;
	if (new)
		memcpy(new, init, new_size);
	nsec = nbtf ? btf__find_by_name_kind(nbtf, ".rodata", BTF_KIND_DATASEC) : -ENOENT;
	fd = xs_prog_rodata(old_prog_fd, &info);
	if (!new || nsec <= 0 || fd < 0) {
		pr_warn("%s: cannot read the running program's configuration (rodata): %s\n",
			ifname, strerror(fd < 0 ? -fd : ENOENT));
		if (fd >= 0)
			close(fd);
		free(new);
		return fd < 0 ? fd : -ENOENT;
	}
	old = calloc(1, info.value_size);
	obtf = info.btf_id ? xs_kernel_btf(info.btf_id) : NULL;
	if (!old || !obtf || bpf_map_lookup_elem(fd, &zero, old)) {
		pr_warn("%s: cannot read the running program's configuration (rodata %s)\n",
			ifname, info.name);
		diffs = -1;
		goto out;
	}
	sec = btf__type_by_id(nbtf, nsec);
	for (i = 0, v = btf_var_secinfos(sec); i < btf_vlen(sec); i++, v++) {
		const struct btf_type *var = btf__type_by_id(nbtf, v->type);
		const char *name = btf__name_by_offset(nbtf, var->name_off);
		__u32 off, size, type;

		if (!xs_datasec_var(obtf, info.btf_value_type_id, name, &off, &size, &type)) {
			pr_info("%s: %s is new in this build: it keeps its default\n", ifname, name);
			continue;
		}
		if (size != v->size || off + size > info.value_size ||
		    v->offset + v->size > new_size) {
			pr_warn("%s: configuration %s: %u bytes running, %u in this build\n", ifname,
				name, size, v->size);
			diffs++;
			continue;
		}
		if (!xs_same_type(ifname, name, "configuration", obtf, type, nbtf, var->type)) {
			diffs++;
			continue;
		}
		memcpy(new + v->offset, old + off, size);
		carried++;
	}
	if (!diffs && bpf_map__set_initial_value(rodata, new, new_size)) {
		pr_warn("%s: cannot set this build's configuration (rodata)\n", ifname);
		diffs = -1;
	}
	pr_debug("%s: %d configuration values carried over\n", ifname, carried);
out:
	free(new);
	free(old);
	btf__free(obtf);
	close(fd);
	return diffs ? -EPROTO : 0;
}
