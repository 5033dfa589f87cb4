// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* backend add / del / drain / undrain / weight: the backends of a service. */
#include <errno.h>
#include "commands.h"
#include "service.h"

int xs_edit_backend_add(struct xs_model *m, const struct xs_handle *h,
			       const struct xs_args *a)
{
	struct xs_backend_spec s;

	return xs_backend_spec_init(&s, a->pos[1], a->pos[2]) ?:
	       xs_args_keys(a, xs_backend_key, &s) ?: xs_model_backend_add(m, &s, 0);
}

/* The service and the address a->pos[1..2] name. */
static int xs_backend_ref(const struct xs_args *a, struct xs_service_key *key,
			  struct xs_target *t)
{
	return xs_parse_service(a->pos[1], key) ?: xs_parse_backend(a->pos[2], t);
}

int xs_edit_backend_del(struct xs_model *m, const struct xs_handle *h,
			       const struct xs_args *a)
{
	struct xs_service_key key;
	struct xs_target t;

	return xs_backend_ref(a, &key, &t) ?: xs_model_backend_del(m, &key, t.addr);
}

int xs_edit_backend_drain(struct xs_model *m, const struct xs_handle *h,
				 const struct xs_args *a)
{
	struct xs_service_key key;
	struct xs_target t;

	return xs_backend_ref(a, &key, &t) ?: xs_model_backend_drain(m, &key, t.addr, true);
}

int xs_edit_backend_undrain(struct xs_model *m, const struct xs_handle *h,
				   const struct xs_args *a)
{
	struct xs_service_key key;
	struct xs_target t;

	return xs_backend_ref(a, &key, &t) ?: xs_model_backend_drain(m, &key, t.addr, false);
}

int xs_edit_backend_weight(struct xs_model *m, const struct xs_handle *h,
				  const struct xs_args *a)
{
	struct xs_backend_spec s;

	/* The weight parses as the 'weight' key does; then it is set on the existing backend. */
	if (xs_backend_spec_init(&s, a->pos[1], a->pos[2]) ||
	    xs_backend_spec_set(&s, "weight", a->pos[3]))
		return -EINVAL;
	return xs_model_backend_weight(m, &s.service, s.t.addr, s.t.weight);
}
