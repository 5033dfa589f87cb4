// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * seed: rotate the hash key of an attachment. Pins are keyed by the flow
 * itself, not by its hash, so established flows keep their targets; only
 * new flows are placed with the new key. Every pool (the queue pool and each
 * service's) gets the same key, each swapped in atomically.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/random.h>
#include "cli.h"
#include "commands.h"
#include "log.h"
#include "service.h"
#include "state.h"

int xs_cmd_seed(const struct xs_args *a)
{
	struct xs_service_entry *sv = NULL;
	struct xs_pool pool;
	struct xs_handle h;
	__u64 seed[2];
	__u32 n = 0, i;
	int err;

	if (!strcmp(a->pos[1], "random")) {
		if (getrandom(seed, sizeof(seed), 0) != sizeof(seed)) {
			pr_warn("cannot draw a random seed: %s\n", strerror(errno));
			return -EIO;
		}
	} else if (xs_parse_seed(a->pos[1], seed)) {
		return -EINVAL;
	}
	err = xs_open(a->pos[0], &h);
	if (err)
		return err;
	err = xs_services_list(&h, &sv, &n);
	for (i = 0; !err && i <= n; i++) {
		__u32 id = i ? sv[i - 1].svc.id : XS_POOL_QUEUES;

		err = xs_pool_read(&h, id, &pool);
		if (err)
			break;
		pool.hdr.seed[0] = seed[0];
		pool.hdr.seed[1] = seed[1];
		err = xs_pool_publish(&h, id, &pool);
		xs_pool_free(&pool);
	}
	if (!err)
		printf("%s: seed %016llx%016llx now places new flows in %u pool%s; pinned flows "
		       "keep their targets\n", h.ifname, (unsigned long long)seed[0],
		       (unsigned long long)seed[1], n + 1, n ? "s" : "");
	else
		pr_warn("%s: seed rotation stopped at pool %u of %u: run it again to finish\n",
			h.ifname, i, n + 1);
	free(sv);
	xs_close(&h);
	return err;
}
