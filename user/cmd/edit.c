// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Every command that changes state is one edit of the model (model.h):
 * open the attachment, load its running state, make the edit, commit. The
 * edit holds the rules; the commit plans and writes in one transaction.
 */
#include "commands.h"
#include "log.h"

int xs_cmd_edit(const struct xs_args *a, xs_edit_fn edit)
{
	struct xs_commit_opts o = { 0 };
	struct xs_handle h;
	struct xs_model m;
	int err;

	err = xs_open(a->pos[0], &h);
	if (err)
		return err;
	err = xs_model_load(&h, &m);
	if (!err) {
		err = edit(&m, &h, a) ?: xs_model_commit(&h, &m, &o);
		xs_model_free(&m);
	}
	xs_close(&h);
	return err;
}
