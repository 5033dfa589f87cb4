// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * A model in the configuration format (config.h). Every setting is
 * printed, defaults included, and every object with its place, so the text
 * is the whole state: `apply` of it changes nothing here, and makes another
 * host's pools the same, bit for bit. A backend its health check took out
 * is marked by a comment: health is not the file's to say. The seed only when asked for: it is a
 * secret. Objects keep the model's order. Each key is printed by its
 * table line (spec.c), as a file gives it.
 */
#include <stdlib.h>
#include <arpa/inet.h>
#include "config.h"
#include "endpoint.h"
#include "names.h"
#include "parse.h"
#include "check.h"
#include "service.h"

static void xs_print_settings(const struct xs_settings *s, bool secrets, FILE *f)
{
	if (secrets)
		fprintf(f, "seed %016llx%016llx\n", (unsigned long long)s->seed[0],
			(unsigned long long)s->seed[1]);
	else
		fprintf(f, "# seed: a secret, not shown (show --secrets prints it)\n");
	xs_keys_print(xs_settings_keys, s, "", "\n", f);
}

static void xs_print_target(const struct xs_target_spec *s, FILE *f)
{
	if (s->t.kind == XS_TARGET_CPU)
		fprintf(f, "target cpu %u", s->t.cpu);
	else
		fprintf(f, "target dev %s", s->ifname[0] ? s->ifname : "(gone)");
	xs_keys_print(xs_target_keys, s, " ", "", f);
	fputc('\n', f);
}

static void xs_print_service(const struct xs_service_spec *s, FILE *f)
{
	char name[80];

	xs_format_service(&s->key, name, sizeof(name));
	fprintf(f, "service %s", name);
	xs_keys_print(xs_service_keys, s, " ", "", f);
	/* The check's keys are one object, printed by its own code (check.c). */
	if (s->check.kind != XS_CHECK_NONE) {
		char check[256];

		xs_check_format(&s->check, check, sizeof(check));
		fputs(check, f);
	}
	fputc('\n', f);
}

static void xs_print_backend(const struct xs_backend_spec *s, FILE *f)
{
	char name[80], addr[INET6_ADDRSTRLEN];

	xs_format_service(&s->service, name, sizeof(name));
	xs_format_addr(s->t.addr, addr, sizeof(addr));
	fprintf(f, "backend %s %s", name, addr);
	xs_keys_print(xs_backend_keys, s, " ", "", f);
	/*
	 * Down is the agent's finding, not a key: a comment, which apply reads
	 * past (it keeps the health the running state has, plan_keep.c).
	 */
	fprintf(f, "%s\n", s->down ? "  # down (health check)" : "");
}

void xs_config_print(const struct xs_model *m, bool secrets, FILE *f)
{
	__u32 i, b, *next = calloc(m->n_be + 1, sizeof(*next)),
		    *first = calloc(m->n_svc + 1, sizeof(*first));

	xs_print_settings(&m->set, secrets, f);
	for (i = 0; i < m->n_tgt; i++)
		xs_print_target(&m->tgt[i].s, f);
	if (!next || !first) {
		fprintf(f, "# out of memory: services not printed\n");
		goto out;
	}
	/* Each service's backends in model order, linked backwards: one pass, not n_svc. */
	for (i = 0; i <= m->n_svc; i++)
		first[i] = XS_NO_TARGET;
	for (b = m->n_be; b-- > 0;) {
		next[b] = first[m->be[b].service];
		first[m->be[b].service] = b;
	}
	for (i = 0; i < m->n_svc; i++) {
		xs_print_service(&m->svc[i].s, f);
		for (b = first[i]; b != XS_NO_TARGET; b = next[b])
			xs_print_backend(&m->be[b].s, f);
	}
out:
	free(next);
	free(first);
}
