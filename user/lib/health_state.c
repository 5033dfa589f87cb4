// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The health file (health_state.h). One line per backend, keys and values
 * separated by spaces, so that it reads without a JSON library:
 *   agent PID written SECONDS
 *   backend SERVICE ADDR state up since S ok N fail N probes N failures N error TEXT
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include "endpoint.h"
#include "health_state.h"
#include "names.h"
#include "parse.h"
#include "service.h"

const struct xs_name xs_health_names[] = {
	{ XS_HEALTH_UNKNOWN, "unknown" },
	{ XS_HEALTH_UP, "up" },
	{ XS_HEALTH_DOWN, "down" },
	{ 0, NULL },
};

static void xs_health_path(char *buf, size_t len, const char *dir, const char *ifname)
{
	snprintf(buf, len, "%s/health-%s", dir ? dir : XS_HEALTH_DIR, ifname);
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

/* One "backend" line into @b; -EINVAL for a line this version does not read. */
static int xs_health_parse(char *line, struct xs_health_backend *b)
{
	char svc[96], addr[64], state[16], error[XS_HEALTH_ERR_LEN];
	unsigned long long since, probes, failures;
	struct xs_target t;
	unsigned int v;

	memset(b, 0, sizeof(*b));
	if (sscanf(line, "backend %95s %63s state %15s since %llu ok %u fail %u probes %llu "
		   "failures %llu error %47s", svc, addr, state, &since, &b->ok_run, &b->fail_run,
		   &probes, &failures, error) != 9)
		return -EINVAL;
	if (xs_parse_service(svc, &b->service) || xs_parse_backend(addr, &t) ||
	    xs_name_parse(xs_health_names, state, "state", &v))
		return -EINVAL;
	memcpy(b->addr, t.addr, sizeof(b->addr));
	b->state = (__u8)v;
	b->since = since;
	b->probes = probes;
	b->failures = failures;
	snprintf(b->error, sizeof(b->error), "%s", strcmp(error, "-") ? error : "");
	return 0;
}

int xs_health_read(const char *dir, const char *ifname, struct xs_health_state *st)
{
	char path[PATH_MAX], line[512];
	unsigned long long written;
	__u32 cap = 0;
	FILE *f;

	memset(st, 0, sizeof(*st));
	xs_health_path(path, sizeof(path), dir, ifname);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "agent %d written %llu", &st->pid, &written) == 2) {
			st->written = written;
			continue;
		}
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
