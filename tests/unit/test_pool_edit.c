// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * apply edits pools through user/pool_edit.c, which must give exactly what
 * the plain primitives (state.c) give, bucket for bucket: the plan text, the
 * pool published and each target's first bucket depend on it. Both are run
 * here on the same random pools (holes, several buckets per target, old
 * buckets that are or are not holes) through the same random changes, and
 * compared after every change. The index used by the parser and the plan
 * (user/index.c) is checked against a plain array the same way.
 */
#include "index.h"
#include "pool_edit.h"
#include "test.h"

#define ROUNDS 300
#define OPS 400
#define IDS 40

/* The reference: apply.c's grow and shrink as they were, on the primitives. */
static void ref_grow(struct xs_pool *p, const struct xs_target *old, __u32 id, __u32 n)
{
	__u32 b;

	p->bucket = realloc(p->bucket, (p->hdr.n_buckets + n + 1) * sizeof(*p->bucket));
	while (n--) {
		b = xs_pool_pick_bucket(p, old);
		if (b == p->hdr.n_buckets)
			p->hdr.n_buckets++;
		p->bucket[b] = id;
	}
}

static void ref_shrink(struct xs_pool *p, __u32 id, __u32 n)
{
	__u32 b;

	for (b = p->hdr.n_buckets; n && b-- > 0;) {
		if (p->bucket[b] == id) {
			xs_pool_remove(p, b);
			n--;
		}
	}
}

/* Two copies of a random pool: up to 300 buckets, ids 0..IDS-1, about one hole in five. */
static void random_pools(unsigned long long *s, struct xs_pool *a, struct xs_pool *b)
{
	__u32 i, n = (__u32)(test_rand64(s) % 300);

	memset(a, 0, sizeof(*a));
	a->hdr.n_buckets = n;
	a->bucket = calloc(n + 1, sizeof(*a->bucket));
	for (i = 0; i < n; i++)
		a->bucket[i] = test_rand64(s) % 5 ? (__u32)(test_rand64(s) % IDS) : XS_NO_TARGET;
	*b = *a;
	b->bucket = calloc(n + 1, sizeof(*b->bucket));
	memcpy(b->bucket, a->bucket, (n + 1) * sizeof(*b->bucket));
}

static void random_target(unsigned long long *s, const struct xs_pool *p, struct xs_target *t)
{
	memset(t, 0, sizeof(*t));
	t->kind = test_rand64(s) % 4 ? XS_TARGET_BACKEND : XS_TARGET_NONE;
	t->bucket = (__u32)(test_rand64(s) % (p->hdr.n_buckets + 4));
	t->weight = (__u16)(test_rand64(s) % 5);
}

/* One random change to both; returns false if they differ afterwards. */
static bool one_change(unsigned long long *s, struct xs_pool *ref, struct xs_pool_edit *e)
{
	__u32 id = (__u32)(test_rand64(s) % IDS), n = (__u32)(test_rand64(s) % 5);
	struct xs_target t;
	bool drain;
	int x, y;

	random_target(s, ref, &t);
	switch (test_rand64(s) % 5) {
	case 0:
		ref_grow(ref, &t, id, n);
		ASSERT_EQ(xs_edit_grow(e, &t, id, n), 0, "grow");
		break;
	case 1:
		if (test_rand64(s) % 3 == 0)
			n = ~0U;
		ref_shrink(ref, id, n);
		xs_edit_shrink(e, id, n);
		break;
	case 2:
	case 3:
		drain = test_rand64(s) & 1;
		x = xs_pool_drain(ref, &t, id, drain);
		y = xs_edit_drain(e, &t, id, drain);
		if (!ASSERT_EQ(y, x, drain ? "buckets drained" : "buckets refilled"))
			return false;
		break;
	default:
		x = xs_pool_find(ref, id);
		if (!ASSERT_EQ(xs_edit_first(e, id), x < 0 ? XS_NO_TARGET : (__u32)x, "first"))
			return false;
	}
	return ASSERT_EQ(e->p->hdr.n_buckets, ref->hdr.n_buckets, "n_buckets") &&
	       ASSERT_TRUE(!memcmp(e->p->bucket, ref->bucket,
				   ref->hdr.n_buckets * sizeof(*ref->bucket)),
			   "buckets differ (n %u)", ref->hdr.n_buckets);
}

TEST(edit_equals_primitives)
{
	unsigned long long s = 0x9e3779b97f4a7c15ULL;
	struct xs_pool ref, mine;
	struct xs_pool_edit e;
	int r, i;

	if (!ASSERT_EQ(xs_edit_init(&e), 0, "init"))
		return;
	for (r = 0; r < ROUNDS; r++) {
		random_pools(&s, &ref, &mine);
		ASSERT_EQ(xs_edit_begin(&e, &mine), 0, "begin");
		for (i = 0; i < OPS && one_change(&s, &ref, &e); i++)
			;
		xs_edit_end(&e);
		free(ref.bucket);
		free(mine.bucket);
		if (i < OPS)
			break;
	}
	xs_edit_free(&e);
}

TEST(index_equals_array)
{
	unsigned long long s = 42;
	static __u32 truth[4096];
	struct xs_index ix;
	__u32 i, k;

	if (!ASSERT_EQ(xs_index_init(&ix, sizeof(k)), 0, "init"))
		return;
	memset(truth, 0xff, sizeof(truth));
	for (i = 0; i < 20000; i++) {
		k = (__u32)(test_rand64(&s) % 4096);
		if (i & 1) {
			truth[k] = i;
			ASSERT_EQ(xs_index_set(&ix, &k, i), 0, "set");
		} else if (!ASSERT_EQ(xs_index_get(&ix, &k), truth[k], "get")) {
			break;
		}
	}
	ASSERT_TRUE(xs_index_set(&ix, &k, XS_INDEX_NONE) < 0, "XS_INDEX_NONE is not a value");
	xs_index_free(&ix);
}

TEST_MAIN("test_pool_edit", NULL, NULL)
