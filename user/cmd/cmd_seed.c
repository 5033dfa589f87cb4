// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * seed: rotate the hash key of an attachment. Pins are keyed by the flow
 * itself, not by its hash, so established flows keep their targets; only
 * new flows are placed with the new key. Every pool (the queue pool and each
 * service's) gets the same key in one commit.
 */
#include "commands.h"

int xs_edit_seed(struct xs_model *m, const struct xs_handle *h, const struct xs_args *a)
{
	struct xs_settings s = m->set;
	int err = xs_settings_set(&s, "seed", a->pos[1]);

	if (!err)
		xs_model_settings(m, &s);
	return err;
}
