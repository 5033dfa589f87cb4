/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The plan of a commit (model.h): the running state read into copies (the
 * targets array and each pool), edited into what the model wants, checked
 * whole before anything is written. plan.c plans the services and their
 * backends, plan_queues.c the queue pool, plan_log.c prints, commit.c
 * writes the result.
 */
#ifndef XS_PLAN_H
#define XS_PLAN_H

#include <stdio.h>
#include "index.h"
#include "model.h"
#include "check.h"
#include "pool.h"
#include "pool_edit.h"
#include "service.h"

struct xs_plan_pool {
	__u32 id;
	bool had, will;		/* exists before / after */
	struct xs_pool old, new;
	struct xs_service_key key;
	struct xs_service old_svc, new_svc;
	struct xs_check old_check, new_check;	/* xs_checks: written after the pools */
	const char *source;	/* the file of its service, or NULL */
	int line;		/* of its service (or settings) in the file */
};

struct xs_plan {
	const struct xs_handle *h;
	const struct xs_model *m;
	const char *origin;		/* the file @m came from, for FILE:LINE; or NULL */
	struct xs_target *all, *next;	/* now, and as the file wants it */
	struct xs_plan_pool *p;		/* p[0] is the queue pool */
	FILE *out;			/* the plan, printed once it is valid */
	char *text;
	size_t len;
	__u32 n;
	int changes;
	/*
	 * What keeps the plan linear in the number of backends: each pool is
	 * edited through an index of its buckets, each service visits only its
	 * own backends (running and in the file), a file backend learns its
	 * running id while its service's running backends are walked, and new
	 * backends take ids from a cursor.
	 */
	struct xs_pool_edit edit;
	struct xs_groups running;	/* running backend ids by service id */
	struct xs_groups in_file;	/* indexes into m->be by index into m->svc */
	__u32 *file_id;			/* per m->be: its running target id, or XS_NO_TARGET */
	__u32 free_backend;		/* no backend id below it is free */
	struct xs_index hop_users;	/* next hops of the active backends in next */
	/*
	 * Places a model names (plan_place.c). An object whose id another
	 * running object holds waits for a second commit: the first one takes
	 * it (and that holder) out, so no id ever names two things at once.
	 */
	__u32 *tgt_id, *be_id;		/* per model object: the id it gets, or XS_NO_TARGET */
	bool *defer_tgt, *defer_be;	/* per model object: left for the second commit */
	__u32 deferred;			/* how many; 0: one commit does it all */
	/*
	 * What a model backend leaves to the running state (plan_keep.c): its
	 * health, unless the model is the agent's; and how many of the slots
	 * it names count (fewer than it names when they are the slots it runs
	 * with and its weight was lowered since they were shown).
	 */
	bool *be_down;
	__u32 *be_slots;
};

/* Plan every change of @pl->m against the running state of @pl->h, checked. */
int xs_plan_build(struct xs_plan *pl);
void xs_plan_free(struct xs_plan *pl);
/* One change, printed in the plan ("+ target cpu 1") and counted. */
void xs_plan_say(struct xs_plan *pl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * What changed in a service's delivery settings, by the names a file gives
 * them: "encap ipip -> gue, second-chance off -> on"; "" when none did.
 */
void xs_plan_service_diff(const struct xs_service *o, const struct xs_service *n, char *buf,
			  size_t len);
/* A new service's settings: algo and encap, then each one set otherwise than its default. */
void xs_plan_service_new(const struct xs_service_spec *s, char *buf, size_t len);
/* An error at @line of @source (NULL: the commit's origin) as FILE:LINE, or of the interface. */
void xs_plan_err(const struct xs_plan *pl, const char *source, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Every pool the model places, checked whole before anything is written (plan_place.c). */
int xs_plan_check_places(struct xs_plan *pl);
/* A dev target whose frames would come back into this program (plan_check.c). */
int xs_plan_check_loops(struct xs_plan *pl);
/* Each model backend's health and named slots as they count (plan_keep.c). */
int xs_plan_keep(struct xs_plan *pl, const struct xs_service_entry *sv, __u32 nsv);
/* Which objects wait for a second commit (plan_place.c). */
int xs_plan_defer(struct xs_plan *pl);
/* Is target id @id claimed by a model object's explicit place? */
bool xs_plan_claimed(const struct xs_plan *pl, __u32 id);
/* Rebuild pool @pp (0: queues, else the model's service @s) where its objects name their slots. */
int xs_plan_place(struct xs_plan *pl, struct xs_plan_pool *pp, int s);
/* The queue pool: its settings and its targets (plan_queues.c). */
int xs_plan_queue_settings(struct xs_plan *pl);
int xs_plan_queue(struct xs_plan *pl);

#endif /* XS_PLAN_H */
