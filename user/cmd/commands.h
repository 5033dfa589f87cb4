/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Entry points of the CLI commands; the table that names them is in main.c. */
#ifndef XS_COMMANDS_H
#define XS_COMMANDS_H

#include "cli.h"
#include "handle.h"
#include "model.h"

/* Open a->pos[0], load its running state, apply @edit, commit (edit.c). */
int xs_cmd_edit(const struct xs_args *a, xs_edit_fn edit);

int xs_cmd_attach(const struct xs_args *a);
int xs_cmd_detach(const struct xs_args *a);
int xs_cmd_upgrade(const struct xs_args *a);
int xs_cmd_status(const struct xs_args *a);
int xs_edit_target_add(struct xs_model *m, const struct xs_handle *h, const struct xs_args *a);
int xs_edit_target_del(struct xs_model *m, const struct xs_handle *h, const struct xs_args *a);
int xs_cmd_target_list(const struct xs_args *a);
int xs_cmd_stats(const struct xs_args *a);
/* stats --watch: rates every @interval_ms until SIGINT or SIGTERM (stats_watch.c). */
int xs_stats_watch(const char *ifname, __u64 interval_ms);
int xs_cmd_lookup(const struct xs_args *a);
int xs_cmd_trace(const struct xs_args *a);
int xs_edit_seed(struct xs_model *m, const struct xs_handle *h, const struct xs_args *a);
int xs_edit_service_add(struct xs_model *m, const struct xs_handle *h, const struct xs_args *a);
int xs_edit_service_del(struct xs_model *m, const struct xs_handle *h, const struct xs_args *a);
int xs_cmd_service_list(const struct xs_args *a);
int xs_edit_backend_add(struct xs_model *m, const struct xs_handle *h, const struct xs_args *a);
int xs_edit_backend_del(struct xs_model *m, const struct xs_handle *h, const struct xs_args *a);
int xs_edit_target_drain(struct xs_model *m, const struct xs_handle *h, const struct xs_args *a);
int xs_edit_target_undrain(struct xs_model *m, const struct xs_handle *h, const struct xs_args *a);
int xs_edit_backend_drain(struct xs_model *m, const struct xs_handle *h, const struct xs_args *a);
int xs_edit_backend_undrain(struct xs_model *m, const struct xs_handle *h, const struct xs_args *a);
int xs_edit_backend_weight(struct xs_model *m, const struct xs_handle *h, const struct xs_args *a);
int xs_cmd_decap_attach(const struct xs_args *a);
int xs_cmd_decap_detach(const struct xs_args *a);
int xs_cmd_decap_stats(const struct xs_args *a);
int xs_cmd_apply(const struct xs_args *a);
int xs_cmd_show(const struct xs_args *a);
int xs_cmd_agent(const struct xs_args *a);
int xs_cmd_sim_resize(const struct xs_args *a);
int xs_cmd_sim_isolation(const struct xs_args *a);
int xs_cmd_version(const struct xs_args *a);
int xs_cmd_help(const struct xs_args *a);
int xs_cmd_completion(const struct xs_args *a);

#endif /* XS_COMMANDS_H */
