// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <string.h>
#include "pool.h"

struct xs_user_env {
	const struct xs_pool *pool;
	const __u64 *load;
};

#define XS_ENV const struct xs_user_env *

static inline __u32 xs_env_bucket(const struct xs_user_env *env, __u32 bucket)
{
	return bucket < env->pool->hdr.n_buckets ? env->pool->bucket[bucket] : XS_NO_TARGET;
}

static inline __u64 xs_env_load(const struct xs_user_env *env, __u32 target)
{
	return env->load && target < XS_MAX_TARGETS ? env->load[target] : 0;
}

#include "decide.h"
#include "stats.h"

int xs_decide(const struct xs_pool *pool, const __u64 *load, const struct xs_flow_key *key,
	      struct xs_decision *d)
{
	struct xs_user_env env = { .pool = pool, .load = load };

	memset(d, 0, sizeof(*d));
	return xs_select(&pool->hdr, key, &env, d);
}

int xs_loads_read(const struct xs_handle *h, const struct xs_pool *pool, __u64 *load)
{
	struct xs_target_stats sum;
	__u32 i;
	int err;

	memset(load, 0, XS_MAX_TARGETS * sizeof(*load));
	for (i = 0; i < pool->hdr.n_buckets; i++) {
		__u32 t = pool->bucket[i];

		if (t >= XS_MAX_TARGETS || load[t])
			continue;
		err = xs_stats_read(h, t, &sum, NULL);
		if (err)
			return err;
		load[t] = xs_stats_load(t, &sum);
	}
	return 0;
}
