// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "log.h"
#include "map_sizes.h"
#include "xs_select.h"
#include "xdpsteer.skel.h"

int xs_size_maps(struct xdpsteer *skel, int nr_cpus, __u32 flow_entries)
{
	int err;

	if (nr_cpus <= 0) {
		pr_warn("cannot count the possible CPUs: %s\n", strerror(-nr_cpus));
		return nr_cpus ? nr_cpus : -EINVAL;
	}
	/*
	 * One block of rows per CPU: the program indexes cpu * rows + row. The
	 * flow cache's rows are the rodata's, set at attach or carried over.
	 */
	err = bpf_map__set_max_entries(skel->maps.xs_flow_cache,
				       (__u32)nr_cpus * skel->rodata->cfg_cache_slots);
	err = err ?: bpf_map__set_max_entries(skel->maps.xs_nexthops,
					      (__u32)nr_cpus * XS_MAX_TARGETS);
	err = err ?: bpf_map__set_max_entries(skel->maps.xs_counters, (__u32)nr_cpus);
	err = err ?: bpf_map__set_max_entries(skel->maps.xs_flows, flow_entries ? flow_entries : 1);
	err = err ?: bpf_map__set_max_entries(skel->maps.xs_cpumap,
					      nr_cpus < XS_MAX_CPUS ? nr_cpus : XS_MAX_CPUS);
	if (err)
		pr_warn("cannot size the xdpsteer maps: %s\n", strerror(-err));
	return err;
}
