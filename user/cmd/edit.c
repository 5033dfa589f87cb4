// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Every command that changes state is one edit of the model (model.h):
 * open the attachment, load its running state, make the edit, commit. The
 * edit holds the rules; the commit plans and writes in one transaction.
 */
#include "commands.h"

int xs_cmd_edit(const struct xs_args *a, xs_edit_fn edit)
{
	struct xs_commit_opts o = { 0 };
	struct xs_handle h;
	struct xs_model m;
	int err;

	err = xs_open(a->pos[0], &h);
	if (err)
		return err;
	/*
	 * A command that names a place (--id, --slots) edits the pool as show
	 * prints it, places and all; any other leaves places to the commit,
	 * which then moves the fewest flows (a re-added target takes back its
	 * old slot, say).
	 */
	err = xs_model_load(&h, &m, xs_arg(a, "id") || xs_arg(a, "slots"));
	if (!err) {
		err = edit(&m, &h, a) ?: xs_model_commit(&h, &m, &o);
		xs_model_free(&m);
	}
	xs_close(&h);
	return err;
}
