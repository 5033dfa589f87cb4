// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The health file (health_state.h). One line per backend, keys and values
 * separated by spaces, so that it reads without a JSON library:
 *   agent PID written SECONDS
 *   backend SERVICE ADDR state up since S ok N fail N probes N failures N error TEXT
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include "endpoint.h"
#include "health_state.h"
#include "names.h"
#include "netns.h"
#include "parse.h"
#include "service.h"

const struct xs_name xs_health_names[] = {
	{ XS_HEALTH_UNKNOWN, "unknown" },
	{ XS_HEALTH_UP, "up" },
	{ XS_HEALTH_DOWN, "down" },
	{ 0, NULL },
};

/*
 * No @dir: the systemd unit's agent keeps its files in XS_HEALTH_DIR/IFACE/
 * (one run directory per instance), an agent started by hand in XS_HEALTH_DIR.
 */
static void xs_health_path(char *buf, size_t len, const char *dir, const char *ifname)
{
	char def[PATH_MAX];

	/* The default is keyed by network namespace, as the agent's run directory is. */
	if (!dir) {
		/* The unit's --run-dir is XS_HEALTH_DIR/IFACE in any namespace. */
		snprintf(buf, len, "%s/%s/health-%s", XS_HEALTH_DIR, ifname, ifname);
		if (!access(buf, F_OK))
			return;
		if (xs_netns_dir(def, sizeof(def), XS_HEALTH_DIR))
			def[0] = 0;
		dir = def;
	}
	snprintf(buf, len, "%s/health-%s", dir, ifname);
}

int xs_health_write(const char *dir, const char *ifname, const struct xs_health_state *st)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8], svc[80], addr[64];
	FILE *f;
	__u32 i;
	int err = 0;

	xs_health_path(path, sizeof(path), dir, ifname);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fprintf(f, "agent %d written %llu\n", st->pid, (unsigned long long)st->written);
	for (i = 0; i < st->n; i++) {
		const struct xs_health_backend *b = &st->be[i];

		xs_format_service(&b->service, svc, sizeof(svc));
		xs_format_addr(b->addr, addr, sizeof(addr));
		fprintf(f, "backend %s %s state %s since %llu ok %u fail %u probes %llu "
			"failures %llu error %s\n", svc, addr,
			xs_name_of(xs_health_names, b->state), (unsigned long long)b->since,
			b->ok_run, b->fail_run, (unsigned long long)b->probes,
			(unsigned long long)b->failures, b->error[0] ? b->error : "-");
	}
	if (fflush(f) || ferror(f))
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* The next word after @key on the line of @save: strtok_r() words, NULL if not there. */
static char *xs_word_after(char **save, const char *key)
{
	char *k = strtok_r(NULL, " \n", save);

	return k && !strcmp(k, key) ? strtok_r(NULL, " \n", save) : NULL;
}

/* The word after @key as a whole decimal number; -EINVAL if it is not one. */
static int xs_u64_after(char **save, const char *key, unsigned long long *v)
{
	char *w = xs_word_after(save, key), *end;

	if (!w)
		return -EINVAL;
	errno = 0;
	*v = strtoull(w, &end, 10);
	return errno || end == w || *end ? -EINVAL : 0;
}

/* One "backend" line into @b; -EINVAL for a line this version does not read. */
static int xs_health_parse(char *line, struct xs_health_backend *b)
{
	unsigned long long since, ok, fail, probes, failures;
	char *save, *svc, *addr, *state, *error;
	struct xs_target t;
	unsigned int v;

	memset(b, 0, sizeof(*b));
	if (!strtok_r(line, " \n", &save))
		return -EINVAL;
	svc = strtok_r(NULL, " \n", &save);
	addr = strtok_r(NULL, " \n", &save);
	state = xs_word_after(&save, "state");
	if (!svc || !addr || !state || xs_u64_after(&save, "since", &since) ||
	    xs_u64_after(&save, "ok", &ok) || xs_u64_after(&save, "fail", &fail) ||
	    xs_u64_after(&save, "probes", &probes) || xs_u64_after(&save, "failures", &failures) ||
	    ok > UINT32_MAX || fail > UINT32_MAX)
		return -EINVAL;
	error = xs_word_after(&save, "error");
	if (!error || xs_parse_service(svc, &b->service) || xs_parse_backend(addr, &t) ||
	    xs_name_parse(xs_health_names, state, "state", &v))
		return -EINVAL;
	memcpy(b->addr, t.addr, sizeof(b->addr));
	b->state = (__u8)v;
	b->ok_run = (__u32)ok;
	b->fail_run = (__u32)fail;
	b->since = since;
	b->probes = probes;
	b->failures = failures;
	snprintf(b->error, sizeof(b->error), "%s", strcmp(error, "-") ? error : "");
	return 0;
}

/* "agent PID written SECONDS": the header line; -EINVAL if @line is not it. */
static int xs_health_header(char *line, struct xs_health_state *st)
{
	unsigned long long pid, written;
	char *save, *w = strtok_r(line, " \n", &save), *end;

	if (!w || strcmp(w, "agent") || !(w = strtok_r(NULL, " \n", &save)))
		return -EINVAL;
	errno = 0;
	pid = strtoull(w, &end, 10);
	if (errno || end == w || *end || pid > INT32_MAX ||
	    xs_u64_after(&save, "written", &written))
		return -EINVAL;
	st->pid = (int)pid;
	st->written = written;
	return 0;
}

int xs_health_read(const char *dir, const char *ifname, struct xs_health_state *st)
{
	char path[PATH_MAX], line[512];
	__u32 cap = 0;
	FILE *f;

	memset(st, 0, sizeof(*st));
	xs_health_path(path, sizeof(path), dir, ifname);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char copy[sizeof(line)];

		/* Parsing cuts the line into words: the header is tried on a copy. */
		memcpy(copy, line, sizeof(copy));
		if (!xs_health_header(copy, st))
			continue;
		if (st->n == cap) {
			void *p = realloc(st->be, (cap = cap ? 2 * cap : 64) * sizeof(*st->be));

			if (!p) {
				fclose(f);
				xs_health_free(st);
				return -ENOMEM;
			}
			st->be = p;
		}
		if (!xs_health_parse(line, &st->be[st->n]))
			st->n++;
	}
	fclose(f);
	/* The file of an agent that is gone says nothing about now. */
	if (st->pid > 0 && kill(st->pid, 0) && errno == ESRCH) {
		xs_health_free(st);
		return -ENOENT;
	}
	return 0;
}

void xs_health_free(struct xs_health_state *st)
{
	free(st->be);
	st->be = NULL;
	st->n = 0;
}

const struct xs_health_backend *xs_health_find(const struct xs_health_state *st,
					       const struct xs_service_key *key,
					       const __u8 *addr)
{
	__u32 i;

	for (i = 0; i < st->n; i++)
		if (!memcmp(&st->be[i].service, key, sizeof(*key)) &&
		    !memcmp(st->be[i].addr, addr, sizeof(st->be[i].addr)))
			return &st->be[i];
	return NULL;
}
