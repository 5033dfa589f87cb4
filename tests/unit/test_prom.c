// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The Prometheus text exposition writer (user/lib/prom.c): label values
 * escaped as the format requires (\ " and newline), HELP text escaped (\ and
 * newline, a quote literal), one HELP and TYPE per family with the samples of
 * every source after them, counters written as exact integers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prom.h"
#include "test.h"

/* What @write printed into a memory stream (caller frees). */
static char *capture(void (*write)(FILE *f))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	write(f);
	fclose(f);
	return buf;
}

static void write_escaped(FILE *f)
{
	struct xs_prom_label l[] = { { "iface", "a\"b\\c\nd" }, { "service", "10.0.0.1:80/tcp" } };

	xs_prom_sample_u64(f, "xdpsteer_x_total", l, 2, 18446744073709551615ULL);
}

TEST(label_values_escaped)
{
	char *s = capture(write_escaped);

	ASSERT_TRUE(!strcmp(s, "xdpsteer_x_total{iface=\"a\\\"b\\\\c\\nd\",service=\"10.0.0.1:80/tcp\"} "
			       "18446744073709551615\n"),
		    "escaped sample, got: %s", s);
	free(s);
}

struct src {
	const char *name;
	__u64 v;
};

static void emit_src(FILE *f, const struct xs_prom_family *fam, const void *p)
{
	const struct src *s = p;
	struct xs_prom_label l[] = { { "iface", s->name } };

	xs_prom_sample_u64(f, fam->name, l, 1, s->v + fam->field);
}

static const struct xs_prom_family fams[] = {
	{ "xdpsteer_a_total", "counter", "A \"quoted\" back\\slash\nand a line", emit_src, 0 },
	{ "xdpsteer_b", "gauge", "B", emit_src, 100 },
};

static void write_two(FILE *f)
{
	static const struct src one = { "eth0", 1 }, two = { "eth1", 2 };
	const void *srcs[] = { &one, &two };

	xs_prom_write(f, fams, 2, srcs, 2);
}

TEST(one_group_per_family)
{
	char *s = capture(write_two);
	static const char want[] =
		"# HELP xdpsteer_a_total A \"quoted\" back\\\\slash\\nand a line\n"
		"# TYPE xdpsteer_a_total counter\n"
		"xdpsteer_a_total{iface=\"eth0\"} 1\n"
		"xdpsteer_a_total{iface=\"eth1\"} 2\n"
		"# HELP xdpsteer_b B\n"
		"# TYPE xdpsteer_b gauge\n"
		"xdpsteer_b{iface=\"eth0\"} 101\n"
		"xdpsteer_b{iface=\"eth1\"} 102\n";

	ASSERT_TRUE(!strcmp(s, want), "two families of two sources, got:\n%s", s);
	free(s);
}

static void write_gauges(FILE *f)
{
	xs_prom_sample(f, "g", NULL, 0, 1795493681.0);
	xs_prom_sample(f, "g", NULL, 0, 0.5);
}

TEST(gauges_exact)
{
	char *s = capture(write_gauges);

	ASSERT_TRUE(!strcmp(s, "g 1795493681\ng 0.5\n"), "a timestamp and a fraction, got: %s", s);
	free(s);
}

TEST_MAIN("test_prom", NULL, NULL)
