// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * A model in the configuration format (config.h). Every setting is
 * printed, defaults included, and every object with its place, so the text
 * is the whole state: `apply` of it changes nothing here, and makes another
 * host's pools the same, bit for bit. A backend its health check took out
 * is marked by a comment: health is not the file's to say. The seed only when asked for: it is a
 * secret. Objects keep the model's order.
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
	char fields[64];

	if (secrets)
		fprintf(f, "seed %016llx%016llx\n", (unsigned long long)s->seed[0],
			(unsigned long long)s->seed[1]);
	else
		fprintf(f, "# seed: a secret, not shown (show --secrets prints it)\n");
	fprintf(f, "algo %s\n", xs_name_of(xs_algo_names, s->algo));
	fprintf(f, "hand-size %u\n", s->hand_size);
	xs_format_fields(s->flow_fields, fields, sizeof(fields));
	fprintf(f, "hash-fields %s\n", fields);
	xs_format_fields(s->hand_fields, fields, sizeof(fields));
	fprintf(f, "hand-fields %s\n", fields);
	if (s->slot_count)
		fprintf(f, "slot-count %u\n", s->slot_count);
}

/* " id N slots a,b,c", for what the model knows of an object's place. */
static void xs_print_place(const struct xs_place *p, FILE *f)
{
	__u32 i;

	if (p->id != XS_NO_TARGET)
		fprintf(f, " id %u", p->id);
	for (i = 0; i < p->n_slots; i++)
		fprintf(f, "%s%u", i ? "," : " slots ", p->slots[i]);
}

static void xs_print_target(const struct xs_target_spec *s, FILE *f)
{
	if (s->t.kind == XS_TARGET_CPU)
		fprintf(f, "target cpu %u qsize %u", s->t.cpu, s->t.qsize);
	else
		fprintf(f, "target dev %s", s->ifname[0] ? s->ifname : "(gone)");
	xs_print_place(&s->place, f);
	fprintf(f, "%s\n", s->drain ? " drain" : "");
}

static void xs_print_service(const struct xs_service_spec *s, FILE *f)
{
	char name[80], src4[INET_ADDRSTRLEN], src6[INET6_ADDRSTRLEN];

	xs_format_service(&s->key, name, sizeof(name));
	inet_ntop(AF_INET, &s->svc.src4, src4, sizeof(src4));
	inet_ntop(AF_INET6, s->svc.src6, src6, sizeof(src6));
	fprintf(f, "service %s algo %s hand-size %u encap %s tunnel-src %s/%u tunnel-src6 %s/%u",
		name, xs_name_of(xs_algo_names, s->algo), s->hand_size,
		xs_name_of(xs_encap_names, s->svc.encap), src4, 32 - s->svc.src4_bits, src6,
		128 - s->svc.src6_bits);
	if (s->slot_count)
		fprintf(f, " slot-count %u", s->slot_count);
	if (s->svc.quic)
		fprintf(f, " quic on");
	if (s->svc.second_chance)
		fprintf(f, " second-chance on second-chance-window %us", s->svc.chance_window_s);
	if (s->flow_fields) {
		char fields[64];

		xs_format_fields(s->flow_fields, fields, sizeof(fields));
		fprintf(f, " hash-fields %s", fields);
	}
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
	fprintf(f, "backend %s %s weight %u", name, addr, s->t.weight);
	xs_print_place(&s->place, f);
	/*
	 * Down is the agent's finding, not a key: a comment, which apply reads
	 * past (it keeps the health the running state has, plan_keep.c).
	 */
	fprintf(f, "%s%s\n", s->drain ? " drain" : "", s->down ? "  # down (health check)" : "");
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
