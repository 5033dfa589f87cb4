// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * verified_insns OBJ [LABEL]: load a BPF object with libbpf (nothing is
 * attached or pinned; everything is freed on exit) and print, per program,
 * the instructions in the object, the kernel's translated count and
 * bpf_prog_info.verified_insns, the number of instructions the verifier
 * walked. bpftool 7.1's JSON has no verified_insns, hence this helper.
 * Exits non-zero if the object does not load.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

/* libbpf's own messages only on failure: a load error is the point of the check. */
static int print_warn(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

int main(int argc, char **argv)
{
	const char *label = argc > 2 ? argv[2] : "";
	struct bpf_program *prog;
	struct bpf_object *obj;
	int err;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s OBJ [LABEL]\n", argv[0]);
		return 2;
	}
	libbpf_set_print(print_warn);
	obj = bpf_object__open_file(argv[1], NULL);
	err = libbpf_get_error(obj);
	if (err) {
		fprintf(stderr, "verified_insns: cannot open %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "verified_insns: cannot load %s: %s\n", argv[1], strerror(-err));
		bpf_object__close(obj);
		return 1;
	}
	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len)) {
			fprintf(stderr, "verified_insns: %s: no prog info: %s\n",
				bpf_program__name(prog), strerror(errno));
			bpf_object__close(obj);
			return 1;
		}
		printf("%-8s %-24s insns %6zu  xlated %6u  verified_insns %8u\n", label,
		       bpf_program__name(prog), bpf_program__insn_cnt(prog),
		       info.xlated_prog_len / 8, info.verified_insns);
	}
	bpf_object__close(obj);
	return 0;
}
