// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Redirect calls bound to their maps, read from the loaded program.
 *
 * The verifier turns a bpf_redirect_map() call into a direct call of its
 * map's redirect function (cpu_map_redirect, dev_map_redirect, ...) only
 * when that call site sees one map. If clang merges the cpumap and devmap
 * calls into one site, the call stays on the generic helper, which reaches
 * the map's function by an indirect call: 10 to 12 ns more per steered
 * frame (docs/performance.md, "CPU steering: one redirect call per map").
 * Nothing else shows it: every verdict stays right. So this test reads the
 * program as the kernel will run it (its xlated instructions), resolves
 * each helper call against /proc/kallsyms as bpftool does, and asserts that
 * no call is the generic redirect helper and that the cpumap and devmap
 * calls are there, bound.
 */
#include <stdio.h>
#include <string.h>
#include "prog_env.h"
#include "test.h"

static struct prog_env env;

enum sym { SYM_BASE, SYM_GENERIC, SYM_CPU, SYM_DEV, SYM_DEV_HASH, SYM_MAX };

static const char *const sym_names[SYM_MAX] = {
	[SYM_BASE] = "__bpf_call_base",
	[SYM_GENERIC] = "bpf_xdp_redirect_map",
	[SYM_CPU] = "cpu_map_redirect",
	[SYM_DEV] = "dev_map_redirect",
	[SYM_DEV_HASH] = "dev_hash_map_redirect",
};

/* The addresses of sym_names from /proc/kallsyms; 0 when not found or hidden. */
static void kallsyms(unsigned long long *addr)
{
	char line[512], name[256], type;
	unsigned long long a;
	FILE *f = fopen("/proc/kallsyms", "r");
	int s;

	memset(addr, 0, SYM_MAX * sizeof(*addr));
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3)
			continue;
		for (s = 0; s < SYM_MAX; s++)
			if (!addr[s] && !strcmp(name, sym_names[s]))
				addr[s] = a;
	}
	fclose(f);
}

/* How many helper calls of the xdpsteer_xdp program land on each symbol; -1 on error. */
static int count_calls(const unsigned long long *addr, int *calls)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), n, i;
	struct bpf_insn *insns;

	if (bpf_obj_get_info_by_fd(env.prog_fd, &info, &len) || !info.xlated_prog_len)
		return -1;
	n = info.xlated_prog_len / sizeof(*insns);
	insns = calloc(n, sizeof(*insns));
	if (!insns)
		return -1;
	memset(&info, 0, sizeof(info));
	info.xlated_prog_len = n * sizeof(*insns);
	info.xlated_prog_insns = (__u64)(unsigned long)insns;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(env.prog_fd, &info, &len)) {
		free(insns);
		return -1;
	}
	memset(calls, 0, SYM_MAX * sizeof(*calls));
	for (i = 0; i < n; i++) {
		unsigned long long target;
		int s;

		/* src_reg 0: a helper; bpf-to-bpf calls and kfuncs have their own. */
		if (insns[i].code != (BPF_JMP | BPF_CALL) || insns[i].src_reg != 0)
			continue;
		target = addr[SYM_BASE] + (long long)insns[i].imm;
		for (s = SYM_GENERIC; s < SYM_MAX; s++)
			if (target == addr[s])
				calls[s]++;
	}
	free(insns);
	return 0;
}

TEST(redirect_calls_are_bound_to_their_maps)
{
	unsigned long long addr[SYM_MAX];
	int calls[SYM_MAX] = {}, s;

	kallsyms(addr);
	for (s = 0; s < SYM_MAX; s++)
		if (!ASSERT_TRUE(addr[s] != 0, "/proc/kallsyms gives the address of %s "
				 "(kptr_restrict must let root read it)", sym_names[s]))
			return;
	if (!ASSERT_EQ(prog_env_open(&env, 1024, XDP_PASS), 0, "xdpsteer object loaded"))
		return;
	if (!ASSERT_EQ(count_calls(addr, calls), 0, "xlated instructions of xdpsteer_xdp read")) {
		prog_env_close(&env);
		return;
	}
	printf("  helper calls: %d generic bpf_xdp_redirect_map, %d cpu_map_redirect, "
	       "%d dev_map_redirect, %d dev_hash_map_redirect\n", calls[SYM_GENERIC],
	       calls[SYM_CPU], calls[SYM_DEV], calls[SYM_DEV_HASH]);
	ASSERT_EQ(calls[SYM_GENERIC], 0, "redirect calls left on the generic helper");
	ASSERT_TRUE(calls[SYM_CPU] >= 1, "the cpumap redirect is a direct call (%d)",
		    calls[SYM_CPU]);
	ASSERT_TRUE(calls[SYM_DEV] + calls[SYM_DEV_HASH] >= 1,
		    "the devmap redirects are direct calls (%d)", calls[SYM_DEV] + calls[SYM_DEV_HASH]);
	prog_env_close(&env);
}

TEST_MAIN("prog_calls", NULL, NULL)
