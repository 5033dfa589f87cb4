// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * What `xdpsteer apply` costs, by the number of targets N and by the size of
 * the change: the wall time of parsing the file (xs_config_load) and of
 * committing it (xs_model_commit), the library's own code from libxdpsteer.a, and the
 * map writes it makes, counted by map_count.c through --wrap.
 *
 * The targets are the backends of one service (distinct IPv4 addresses,
 * weight 1): queue targets stop at 384 (128 CPUs, 256 devices), backends go
 * to XS_MAX_BACKENDS. The object is loaded from its skeleton and not
 * attached (tests/prog/prog_env.h): apply only needs the maps, and a
 * map-in-map update waits for synchronize_rcu() attached or not. It runs in
 * a private network namespace, because apply asks the kernel for a managed
 * neighbour entry per new backend: there, with no route to the backends,
 * that is one netlink route lookup per backend and the host's neighbour
 * table (shared by all namespaces) is left alone. The plan that apply prints
 * goes to /dev/null, its warnings ("no route to backend") are counted.
 *
 * A round walks a script of changes (struct step) and undoes each; small N
 * runs several rounds and reports each step's median round. Nothing here
 * expects a cost: it reports whatever the library does.
 * Usage: bench_apply LABEL N... (N ascending: the smallest N's "add one" is
 * the baseline of the ratios).
 */
#define _GNU_SOURCE /* unshare */
#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <sys/stat.h>
#include "prog_env.h"
#include "config.h"
#include "config.h"
#include "map_count.h"

#define VIP "192.0.2.10:80/tcp"
#define MAX_ROUNDS 5

/* The state a file declares: backend i is absent (weight 0) or present. */
struct topo {
	__u32 n;
	__u16 *weight;
	bool *drain;
};

enum op { OP_ADD, OP_REMOVE, OP_DRAIN, OP_UNDRAIN, OP_WEIGHT1, OP_WEIGHT2 };

/*
 * One round: from the service alone to N backends and back, through every
 * change and its undoing. @per_mille of the targets change (0: exactly one).
 */
struct step {
	const char *name;
	enum op op;
	unsigned int per_mille;
};

static const struct step script[] = {
	{ "add all", OP_ADD, 1000 },
	{ "remove one", OP_REMOVE, 0 },
	{ "add one", OP_ADD, 0 },
	{ "drain one", OP_DRAIN, 0 },
	{ "undrain one", OP_UNDRAIN, 0 },
	{ "reweight one 1->2", OP_WEIGHT2, 0 },
	{ "reweight one 2->1", OP_WEIGHT1, 0 },
	{ "remove 10%", OP_REMOVE, 100 },
	{ "add 10%", OP_ADD, 100 },
	{ "reweight 10% 1->2", OP_WEIGHT2, 100 },
	{ "reweight 10% 2->1", OP_WEIGHT1, 100 },
	{ "remove all", OP_REMOVE, 1000 },
};

#define STEPS XS_ARRAY_SIZE(script)
#define BASE_STEP 2 /* "add one": the baseline of the ratios at the smallest N */

/* One apply as measured: times in ms, the map calls, the warnings printed. */
struct sample {
	double parse_ms, apply_ms;
	struct map_count mc;
	int warnings;
};

static struct prog_env env;
static char conf_path[64], err_path[64];
static double base_ms; /* "add one" at the smallest N */

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static bool chosen(__u32 i, __u32 n, unsigned int per_mille)
{
	if (!per_mille)
		return i == n / 2;
	if (per_mille >= 1000)
		return true;
	return i % (1000 / per_mille) == 0;
}

static int topo_write(const struct topo *t)
{
	FILE *f = fopen(conf_path, "w");
	__u32 i;

	if (!f) {
		fprintf(stderr, "bench_apply: cannot write %s: %s\n", conf_path, strerror(errno));
		return -1;
	}
	fprintf(f, "service %s\n", VIP);
	for (i = 0; i < t->n; i++) {
		if (!t->weight[i])
			continue;
		fprintf(f, "backend %s 10.%u.%u.%u", VIP, 1 + (i >> 16), (i >> 8) & 0xff, i & 0xff);
		if (t->weight[i] != 1)
			fprintf(f, " weight %u", t->weight[i]);
		fputs(t->drain[i] ? " drain\n" : "\n", f);
	}
	return fclose(f) ? -1 : 0;
}

static int count_lines(const char *path, char *first, size_t len)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int n = 0;

	first[0] = 0;
	while (f && fgets(line, sizeof(line), f))
		if (!n++)
			snprintf(first, len, "%s", line);
	if (f)
		fclose(f);
	return n;
}

/*
 * Parse and apply @t as `xdpsteer apply` does. The plan goes to /dev/null and
 * warnings to a file (counted), so a terminal does not set the pace.
 */
static int apply_topo(const struct topo *t, struct sample *s)
{
	int out = dup(1), err = dup(2), null = open("/dev/null", O_WRONLY);
	int log = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600), rc;
	struct xs_model c;
	struct xs_commit_opts o = { .origin = conf_path };
	char first[512];
	double t0;

	if (topo_write(t) || out < 0 || err < 0 || null < 0 || log < 0) {
		fprintf(stderr, "bench_apply: cannot set up the apply of %u targets\n", t->n);
		return -1;
	}
	fflush(stdout);
	dup2(null, 1);
	dup2(log, 2);
	t0 = now_ms();
	rc = xs_config_load((const char *[]){ conf_path }, 1, env.h.nr_cpus, &c);
	s->parse_ms = now_ms() - t0;
	if (!rc) {
		map_count_reset(env.h.pools_fd);
		t0 = now_ms();
		rc = xs_model_commit(&env.h, &c, &o);
		s->apply_ms = now_ms() - t0;
		map_count_get(&s->mc);
		xs_model_free(&c);
	}
	fflush(stdout);
	fflush(stderr);
	dup2(out, 1);
	dup2(err, 2);
	close(out);
	close(err);
	close(null);
	close(log);
	s->warnings = count_lines(err_path, first, sizeof(first));
	if (rc)
		fprintf(stderr, "bench_apply: apply of %u targets failed (%s): %s", t->n,
			strerror(-rc), first[0] ? first : "no message\n");
	return rc;
}

static int cmp_sample(const void *a, const void *b)
{
	double x = ((const struct sample *)a)->parse_ms + ((const struct sample *)a)->apply_ms;
	double y = ((const struct sample *)b)->parse_ms + ((const struct sample *)b)->apply_ms;

	return x < y ? -1 : x > y;
}

/* Which map each handle fd is, for the per-map line. */
static const char *fd_name(const struct map_count *mc, int fd)
{
	const struct xs_handle *h = &env.h;

	if (fd == h->pools_fd)
		return "xs_pools";
	if (fd == h->targets_fd)
		return "xs_targets";
	if (fd == h->stats_fd)
		return "xs_target_stats";
	if (fd == h->services_fd)
		return "xs_services";
	if (fd == h->service_by_id_fd)
		return "xs_service_by_id";
	if (fd == h->pool_hdrs_fd)
		return "xs_pool_hdrs";
	if (fd == h->service_stats_fd)
		return "xs_service_stats";
	if (fd == h->vips_fd)
		return "xs_vips";
	if (fd == h->self_fd)
		return "xs_self";
	if (fd == h->tx_ports_fd)
		return "xs_tx_ports";
	if (fd == h->cpumap_fd)
		return "xs_cpumap";
	if (fd == h->devmap_fd)
		return "xs_devmap";
	return mc->name[fd][0] ? mc->name[fd] : "other";
}

static void print_row(const char *label, __u32 n, const char *what, __u32 changed,
		      struct sample *s, int rounds)
{
	const struct map_count *mc;
	double total, kernel;
	int fd;

	qsort(s, rounds, sizeof(*s), cmp_sample);
	s += rounds / 2;
	mc = &s->mc;
	total = s->parse_ms + s->apply_ms;
	kernel = (mc->write_ns + mc->read_ns + mc->neigh_ns) / 1e6;
	printf("  %-7s %6u %-18s %6u %9.2f %7.2f %8.2f %7.2f %8.2f %7.2f %6.2f %7llu %7llu %4llu "
	       "%8.4f %7.2f\n",
	       label, n, what, changed, total, s->parse_ms, s->apply_ms - kernel,
	       mc->read_ns / 1e6, mc->write_ns / 1e6, mc->mim_ns / 1e6, mc->neigh_ns / 1e6,
	       (unsigned long long)mc->write_calls, (unsigned long long)mc->write_elems,
	       (unsigned long long)mc->mim_calls, total / changed, total / base_ms);
	printf("  %-7s %6s   writes:", "", "");
	for (fd = 0; fd < MAP_COUNT_FDS; fd++)
		if (mc->fd[fd].calls)
			printf(" %s %llu/%llu", fd_name(mc, fd),
			       (unsigned long long)mc->fd[fd].elems,
			       (unsigned long long)mc->fd[fd].calls);
	printf("; %llu map created, %llu reads, %llu netlink, %d warnings\n",
	       (unsigned long long)mc->creates, (unsigned long long)mc->read_calls,
	       (unsigned long long)mc->neigh_calls, s->warnings);
}

static int rounds_for(__u32 n)
{
	/* Above 1024 a round costs seconds (a netlink lookup per backend added or removed). */
	return n <= 1024 ? MAX_ROUNDS : 3;
}

/* Make the targets @st chooses what it says; returns how many it chose. */
static __u32 step_do(struct topo *t, const struct step *st)
{
	__u32 i, changed = 0;

	for (i = 0; i < t->n; i++) {
		if (!chosen(i, t->n, st->per_mille))
			continue;
		changed++;
		if (st->op == OP_ADD || st->op == OP_WEIGHT1)
			t->weight[i] = 1;
		else if (st->op == OP_REMOVE)
			t->weight[i] = 0;
		else if (st->op == OP_WEIGHT2)
			t->weight[i] = 2;
		else
			t->drain[i] = st->op == OP_DRAIN;
	}
	return changed;
}

/*
 * Each round starts from a new, empty service: removals leave holes in the
 * pool (reweight 10% back leaves it 10% longer), so a second round on the
 * same pool would not measure what the first did.
 */
static int fresh_service(struct topo *t)
{
	struct sample none;
	struct xs_model c;
	struct xs_commit_opts o = { .origin = conf_path };
	FILE *f = fopen(conf_path, "w");
	int rc;

	if (!f || fputs("algo jump\n", f) < 0 || fclose(f)) {
		fprintf(stderr, "bench_apply: cannot write %s\n", conf_path);
		return -1;
	}
	/* A file with a setting only empties the interface: the service goes. */
	rc = xs_config_load((const char *[]){ conf_path }, 1, env.h.nr_cpus, &c);
	if (!rc) {
		int out = dup(1), null = open("/dev/null", O_WRONLY);

		fflush(stdout);
		dup2(null, 1);
		rc = xs_model_commit(&env.h, &c, &o);
		fflush(stdout);
		dup2(out, 1);
		close(out);
		close(null);
		xs_model_free(&c);
	}
	memset(t->weight, 0, t->n * sizeof(*t->weight));
	memset(t->drain, 0, t->n * sizeof(*t->drain));
	return rc ?: apply_topo(t, &none);
}

static int bench_n(const char *label, __u32 n)
{
	struct topo t = { .n = n };
	int rounds = rounds_for(n), r, err = -1;
	__u32 changed[STEPS];
	struct sample *s;
	unsigned int k;

	t.weight = calloc(n, sizeof(*t.weight));
	t.drain = calloc(n, sizeof(*t.drain));
	s = calloc(STEPS * MAX_ROUNDS, sizeof(*s));
	if (!t.weight || !t.drain || !s)
		goto out;
	for (r = 0; r < rounds; r++) {
		if (fresh_service(&t))
			goto out;
		for (k = 0; k < STEPS; k++) {
			changed[k] = step_do(&t, &script[k]);
			if (apply_topo(&t, &s[k * MAX_ROUNDS + r]))
				goto out;
		}
	}
	if (!base_ms) {
		struct sample *b = &s[BASE_STEP * MAX_ROUNDS];

		qsort(b, rounds, sizeof(*b), cmp_sample);
		base_ms = b[rounds / 2].parse_ms + b[rounds / 2].apply_ms;
		printf("  baseline (x base): %s at N=%u, %.2f ms, median of %d\n",
		       script[BASE_STEP].name, n, base_ms, rounds);
	}
	for (k = 0; k < STEPS; k++)
		print_row(label, n, script[k].name, changed[k], &s[k * MAX_ROUNDS], rounds);
	err = 0;
out:
	free(t.weight);
	free(t.drain);
	free(s);
	return err;
}

int main(int argc, char **argv)
{
	double t0 = now_ms();
	int a, fd;

	if (argc < 3) {
		fprintf(stderr, "usage: bench_apply LABEL N... (N ascending)\n");
		return 2;
	}
	if (unshare(CLONE_NEWNET)) {
		perror("bench_apply: unshare(CLONE_NEWNET)");
		return 1;
	}
	snprintf(conf_path, sizeof(conf_path), "/tmp/bench_apply.XXXXXX");
	fd = mkstemp(conf_path);
	snprintf(err_path, sizeof(err_path), "/tmp/bench_apply_err.XXXXXX");
	if (fd < 0 || close(fd) || (fd = mkstemp(err_path)) < 0 || close(fd)) {
		perror("bench_apply: temporary files in /tmp");
		return 1;
	}
	if (prog_env_open(&env, 1024, XDP_PASS) ||
	    prog_env_targets(&env, XS_ALGO_JUMP, 0, 0, (const __u64[2]){ 1, 2 })) {
		fprintf(stderr, "bench_apply: cannot load the xdpsteer object\n");
		return 1;
	}
	printf("build %s: XS_MAX_BACKENDS %u, XS_MAX_BUCKETS %u, config files up to %u bytes\n",
	       argv[1], (unsigned int)XS_MAX_BACKENDS, (unsigned int)XS_MAX_BUCKETS,
	       (unsigned int)XS_CFG_MAX_SIZE);
	printf("  %-7s %6s %-18s %6s %9s %7s %8s %7s %8s %7s %6s %7s %7s %4s %8s %7s\n", "build",
	       "N", "change", "tgts", "total ms", "parse", "plan", "reads", "writes", "(mim)",
	       "neigh", "wcalls", "welems", "mim", "ms/tgt", "x base");
	for (a = 2; a < argc; a++) {
		__u32 n = (__u32)strtoul(argv[a], NULL, 10);

		if (!n || n > XS_MAX_BACKENDS) {
			fprintf(stderr, "bench_apply: N=%s: want 1..%u in this build\n", argv[a],
				(unsigned int)XS_MAX_BACKENDS);
			return 1;
		}
		if (bench_n(argv[1], n))
			return 1;
	}
	printf("  (%.1f s)\n", (now_ms() - t0) / 1e3);
	prog_env_close(&env);
	unlink(conf_path);
	unlink(err_path);
	return 0;
}
