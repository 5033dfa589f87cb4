// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Every command that changes state is one edit of the model (model.h):
 * open the attachment, load its running state, make the edit, commit. The
 * edit holds the rules; the commit plans and writes in one transaction.
 * --dry-run stops the commit after the plan, for every command alike.
 */
#include <stdlib.h>
#include "commands.h"
#include "json.h"

struct xs_edit_ctx {
	const struct xs_args *a;
	xs_edit_fn edit;
	const struct xs_handle *h;
};

static int xs_edit_commit(void *ctx)
{
	struct xs_edit_ctx *e = ctx;
	struct xs_commit_opts o = { .dry_run = xs_flag(e->a, XS_OPT_DRY_RUN) };
	struct xs_model m;
	int err;

	/*
	 * A command that names a place (--id, --slots) edits the pool as show
	 * prints it, places and all; any other leaves places to the commit,
	 * which then moves the fewest flows (a re-added target takes back its
	 * old slot, say).
	 */
	err = xs_model_load(e->h, &m, xs_arg(e->a, XS_OPT_ID) || xs_arg(e->a, XS_OPT_SLOTS));
	if (!err) {
		err = e->edit(&m, e->h, e->a) ?: xs_model_commit(e->h, &m, &o);
		xs_model_free(&m);
	}
	return err;
}

int xs_cmd_edit(const struct xs_args *a, xs_edit_fn edit)
{
	struct xs_handle h;
	struct xs_edit_ctx e = { .a = a, .edit = edit, .h = &h };
	char *text = NULL;
	int err;

	err = xs_open(a->pos[0], &h);
	if (err)
		return err;
	if (!xs_flag(a, XS_OPT_JSON)) {
		err = xs_edit_commit(&e);
	} else {
		/* --json: the commit's report, as a document, once it is done. */
		err = xs_capture_stdout(xs_edit_commit, &e, &text);
		if (!err)
			err = xs_json_print(a, xs_plan_json(text, h.ifname, NULL,
							    xs_flag(a, XS_OPT_DRY_RUN)));
		free(text);
	}
	xs_close(&h);
	return err;
}
