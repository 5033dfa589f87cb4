/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Exact expectations for one crafted frame under BPF_PROG_TEST_RUN: its
 * verdict, the change of every counter, and where it was steered. Shared by
 * test_parse.c and test_hostile.c; the includer defines
 * `static struct prog_env env` first.
 */
#ifndef XS_TEST_EXPECT_H
#define XS_TEST_EXPECT_H

#include "prog_env.h"
#include "pkt.h"
#include "test.h"

#define XS_COUNTER_NAME(e, name, kind) #name,
static const char *const counter_names[] = { XS_COUNTERS(XS_COUNTER_NAME) };

#define BUMP(...) ((const int[]){ __VA_ARGS__, XS_C_MAX })
#define NONE ((const int[]){ XS_C_MAX })

static inline void counters(struct prog_env *e, __u64 *c)
{
	if (xs_counters_read(&e->h, c))
		memset(c, 0, sizeof(__u64) * XS_C_MAX);
}

static inline void key_v4(struct xs_flow_key *k, const char *s, const char *d, __u8 proto,
			  __u16 sp, __u16 dp)
{
	memset(k, 0, sizeof(*k));
	XS_W32(k->src, 2) = XS_W32(k->dst, 2) = htonl(0xffff);
	inet_pton(AF_INET, s, &XS_W32(k->src, 3));
	inet_pton(AF_INET, d, &XS_W32(k->dst, 3));
	k->proto = proto;
	k->sport = htons(sp);
	k->dport = htons(dp);
}

static inline void key_v6(struct xs_flow_key *k, const char *s, const char *d, __u8 proto,
			  __u16 sp, __u16 dp)
{
	memset(k, 0, sizeof(*k));
	inet_pton(AF_INET6, s, k->src);
	inet_pton(AF_INET6, d, k->dst);
	k->proto = proto;
	k->sport = htons(sp);
	k->dport = htons(dp);
}

/*
 * Run the first @len bytes of @p (all if 0): the verdict must be @verdict,
 * exactly the counters in @bumped must rise (by one per mention), and with
 * @key the frame must be steered, the target the shared decision picks for
 * @key charged one packet and @key pinned to it.
 */
static inline void expect(const struct pkt *p, __u32 len, int verdict, const int *bumped,
			  const struct xs_flow_key *key, const char *what)
{
	__u64 before[XS_C_MAX], after[XS_C_MAX], want[XS_C_MAX] = { 0 };
	struct xs_target_stats s0 = { 0 }, s1 = { 0 };
	struct xs_decision d;
	int ret, i;

	counters(&env, before);
	if (key) {
		xs_decide(&env.pool, NULL, key, &d);
		xs_stats_read(&env.h, d.target, &s0, NULL);
	}
	ret = prog_env_run(&env, p->buf, len ? len : p->len, 1, NULL, NULL, NULL);
	counters(&env, after);
	ASSERT_EQ(ret, verdict, what);
	for (i = 0; bumped[i] != XS_C_MAX; i++)
		want[bumped[i]]++;
	for (i = 0; i < XS_C_MAX; i++) {
		char msg[160];

		snprintf(msg, sizeof(msg), "%s: counter %s", what, counter_names[i]);
		ASSERT_EQ(after[i] - before[i], want[i], msg);
	}
	if (key) {
		xs_stats_read(&env.h, d.target, &s1, NULL);
		ASSERT_EQ(s1.packets - s0.packets, 1, what);
		ASSERT_EQ(prog_env_pinned(&env, key), d.target, what);
	}
}

#endif /* XS_TEST_EXPECT_H */
