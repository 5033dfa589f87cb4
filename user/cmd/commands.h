/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Entry points of the CLI commands; the table that names them is in main.c. */
#ifndef XS_COMMANDS_H
#define XS_COMMANDS_H

#include "cli.h"
#include "handle.h"
#include "model.h"

/* An edit of the model a command makes: 0, or -errno with one line printed. */
typedef int (*xs_edit_fn)(struct xs_model *m, const struct xs_handle *h, const struct xs_args *a);
/* Open a->pos[0], load its running state, apply @edit, commit (edit.c). */
int xs_cmd_edit(const struct xs_args *a, xs_edit_fn edit);

int xs_cmd_attach(const struct xs_args *a);
int xs_cmd_detach(const struct xs_args *a);
int xs_cmd_status(const struct xs_args *a);
int xs_cmd_target_add(const struct xs_args *a);
int xs_cmd_target_del(const struct xs_args *a);
int xs_cmd_target_list(const struct xs_args *a);
int xs_cmd_stats(const struct xs_args *a);
int xs_cmd_lookup(const struct xs_args *a);
int xs_cmd_seed(const struct xs_args *a);
int xs_cmd_service_add(const struct xs_args *a);
int xs_cmd_service_del(const struct xs_args *a);
int xs_cmd_service_list(const struct xs_args *a);
int xs_cmd_backend_add(const struct xs_args *a);
int xs_cmd_backend_del(const struct xs_args *a);
int xs_cmd_target_drain(const struct xs_args *a);
int xs_cmd_target_undrain(const struct xs_args *a);
int xs_cmd_backend_drain(const struct xs_args *a);
int xs_cmd_backend_undrain(const struct xs_args *a);
int xs_cmd_backend_weight(const struct xs_args *a);
int xs_cmd_decap_attach(const struct xs_args *a);
int xs_cmd_decap_detach(const struct xs_args *a);
int xs_cmd_decap_stats(const struct xs_args *a);
int xs_cmd_apply(const struct xs_args *a);
int xs_cmd_show(const struct xs_args *a);
int xs_cmd_sim_resize(const struct xs_args *a);
int xs_cmd_sim_isolation(const struct xs_args *a);

#endif /* XS_COMMANDS_H */
