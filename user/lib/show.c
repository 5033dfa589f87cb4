// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * show: the running state of one attachment in the configuration format.
 * Every setting is printed, defaults included, so the output is the whole
 * state and `apply` of it changes nothing. Targets go in id order and
 * services in id order: a state that does not change prints the same text.
 */
#include <errno.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include "apply.h"
#include "parse.h"

static void xs_show_pool_hdr(const struct xs_pool_hdr *hdr, FILE *f)
{
	char fields[64];

	fprintf(f, "seed %016llx%016llx\n", (unsigned long long)hdr->seed[0],
		(unsigned long long)hdr->seed[1]);
	fprintf(f, "algo %s\n", hdr->algo == XS_ALGO_SHUFFLE ? "shuffle" : "jump");
	fprintf(f, "hand-size %u\n", hdr->hand_size);
	xs_format_fields(hdr->flow_fields, fields, sizeof(fields));
	fprintf(f, "hash-fields %s\n", fields);
	xs_format_fields(hdr->hand_fields, fields, sizeof(fields));
	fprintf(f, "hand-fields %s\n", fields);
}

static void xs_show_service(const struct xs_service_entry *e, const struct xs_pool *pool, FILE *f)
{
	char name[80], src4[INET_ADDRSTRLEN], src6[INET6_ADDRSTRLEN];
	const struct xs_service *s = &e->svc;

	xs_format_service(&e->key, name, sizeof(name));
	inet_ntop(AF_INET, &s->src4, src4, sizeof(src4));
	inet_ntop(AF_INET6, s->src6, src6, sizeof(src6));
	fprintf(f, "service %s algo %s hand-size %u encap %s tunnel-src %s/%u tunnel-src6 %s/%u\n",
		name, pool->hdr.algo == XS_ALGO_SHUFFLE ? "shuffle" : "jump", pool->hdr.hand_size,
		s->encap == XS_ENCAP_L2 ? "l2" : "ipip", src4, 32 - s->src4_bits, src6,
		128 - s->src6_bits);
}

int xs_show(const struct xs_handle *h, FILE *f)
{
	struct xs_service_entry *sv = NULL;
	struct xs_pool pool = { 0 };
	struct xs_target *all;
	char name[80], addr[INET6_ADDRSTRLEN];
	__u32 id, i, n = 0;
	int err;

	all = calloc(XS_MAX_TARGETS, sizeof(*all));
	if (!all)
		return -ENOMEM;
	err = xs_targets_read(h, all) ?: xs_pool_read(h, XS_POOL_QUEUES, &pool) ?:
	      xs_services_list(h, &sv, &n);
	if (err)
		goto out;
	fprintf(f, "# xdpsteer show %s\n", h->ifname);
	xs_show_pool_hdr(&pool.hdr, f);
	xs_pool_free(&pool);
	for (id = 0; id < XS_BACKEND_BASE; id++) {
		const struct xs_target *t = &all[id];

		if (!(t->flags & XS_TARGET_F_ACTIVE))
			continue;
		xs_target_name(h, t, id, name, sizeof(name));
		fprintf(f, "target %s", name);
		if (t->kind == XS_TARGET_CPU)
			fprintf(f, " qsize %u", t->qsize);
		fprintf(f, "%s\n", t->flags & XS_TARGET_F_DRAIN ? " drain" : "");
	}
	for (i = 0; i < n; i++) {
		err = xs_pool_read(h, sv[i].svc.id, &pool);
		if (err)
			goto out;
		xs_show_service(&sv[i], &pool, f);
		xs_pool_free(&pool);
		xs_format_service(&sv[i].key, name, sizeof(name));
		for (id = XS_BACKEND_BASE; id < XS_MAX_TARGETS; id++) {
			const struct xs_target *t = &all[id];

			if (t->kind != XS_TARGET_BACKEND || t->service != sv[i].svc.id)
				continue;
			xs_format_addr(t->addr, addr, sizeof(addr));
			fprintf(f, "backend %s %s weight %u%s\n", name, addr, t->weight,
				t->flags & XS_TARGET_F_DRAIN ? " drain" : "");
		}
	}
out:
	xs_pool_free(&pool);
	free(sv);
	free(all);
	return err;
}
