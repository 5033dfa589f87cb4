/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The model: the one way the state of an attachment changes.
 *
 * A struct xs_model is a desired state of one interface: its settings, its
 * queue targets, its services and their backends, as a configuration file
 * declares them. Every change is made the same way: build or load a model,
 * edit it with the functions below, and commit it. A command loads the
 * running state (xs_model_load), makes its one edit and commits; `apply`
 * builds the model from a file, line by line through the same edits; the
 * agent does what apply does. xs_model_commit() plans the difference from
 * the running state (plan.c) and writes it in one transaction (txn.h).
 *
 * Every rule lives here or in the parsers these functions call: a value, a
 * duplicate, a missing object, a limit. Each edit prints one line naming
 * what is wrong and returns -errno, and leaves the model as it was; the
 * configuration parser prefixes that line with FILE:LINE. The pool-level
 * rules (the shuffle entropy limit, the bucket limit) need the planned pools,
 * and a backend listing more slots than its weight needs the slots it runs
 * with (plan_keep.c): the commit checks them, for commands and files alike.
 */
#ifndef XS_MODEL_H
#define XS_MODEL_H

#include <net/if.h>
#include <stdbool.h>
#include "handle.h"
#include "index.h"
#include "spec.h"

/* An object of the model and where it was declared (line 0: not in a file). */
struct xs_model_target {
	struct xs_target_spec s;
	const char *source;	/* the file (or etcd key) that declared it, or NULL */
	int line;
};

struct xs_model_service {
	struct xs_service_spec s;
	const char *source;
	int line;
};

struct xs_model_backend {
	struct xs_backend_spec s;
	__u32 service;		/* index into xs_model.svc */
	const char *source;
	int line;
};

struct xs_model {
	struct xs_settings set;
	int hand_line;		/* where a file set the queue pool's hand size, else 0 */
	const char *source;	/* the source edits now come from (the parser sets it), or NULL */
	bool placed;		/* every pool is built from the model alone (xs_model_canonical) */
	/*
	 * The backends' down flags are the agent's probes (its health overlay).
	 * Else the model does not say (a file cannot): each backend the running
	 * state has keeps the health it has there, and a new one is up.
	 */
	bool health;
	struct xs_model_target *tgt;
	struct xs_model_service *svc;
	struct xs_model_backend *be;
	__u32 n_tgt, n_svc, n_be;
	__u32 cap_tgt, cap_svc, cap_be;
	__u64 *claimed;		/* bit per target id: an object's place.id names it */
	struct xs_index svc_by_key;	/* service key -> index into svc */
	struct xs_index be_by_addr;	/* (index into svc, address) -> index into be */
};

/* An empty model with default settings. 0 or -ENOMEM. */
int xs_model_init(struct xs_model *m);
void xs_model_free(struct xs_model *m);
/*
 * The running state of @h: what a command edits. With @placed, also where
 * every object sits (ids, slots, slot counts): what `show` prints, so that
 * another host given it holds the same pools.
 */
int xs_model_load(const struct xs_handle *h, struct xs_model *m, bool placed);

/* Edits. @line: where a file declares the object, 0 otherwise. */
void xs_model_settings(struct xs_model *m, const struct xs_settings *s);
int xs_model_target_add(struct xs_model *m, const struct xs_target_spec *s, int line);
int xs_model_target_del(struct xs_model *m, const struct xs_target *t);
int xs_model_target_drain(struct xs_model *m, const struct xs_target *t, bool drain);
int xs_model_service_add(struct xs_model *m, const struct xs_service_spec *s, int line);
/* Removes the service's backends with it. */
int xs_model_service_del(struct xs_model *m, const struct xs_service_key *key);
int xs_model_backend_add(struct xs_model *m, const struct xs_backend_spec *s, int line);
int xs_model_backend_del(struct xs_model *m, const struct xs_service_key *key,
			 const __u8 *addr);
int xs_model_backend_drain(struct xs_model *m, const struct xs_service_key *key,
			   const __u8 *addr, bool drain);
int xs_model_backend_weight(struct xs_model *m, const struct xs_service_key *key,
			    const __u8 *addr, __u16 weight);

/*
 * Make @m decide alike on every host, whatever its history: each dev
 * target and backend without an id gets one (the lowest no object names,
 * in model order), and every pool is built from the model alone (objects
 * without slots fill the holes of those with, lowest first, in model
 * order). What a fleet agent applies.
 */
void xs_model_canonical(struct xs_model *m);

/* Lookups: an index into m->svc or m->be, or -1. */
int xs_model_find_service(const struct xs_model *m, const struct xs_service_key *key);
int xs_model_find_backend(const struct xs_model *m, __u32 svc, const __u8 *addr);

struct xs_commit_opts {
	const char *origin;	/* a file: the plan is printed under "plan for IFACE from FILE" */
	bool dry_run;		/* print the plan, change nothing */
	bool quiet;		/* print nothing but errors */
};

/*
 * Make the running state of @h equal to @m in one transaction, and print
 * what changed. 0 (done, or nothing to do), or -errno (printed, nothing
 * changed). Pool-level errors name the line that declared the pool when
 * @m came from a file.
 */
int xs_model_commit(const struct xs_handle *h, const struct xs_model *m,
		    const struct xs_commit_opts *o);

#endif /* XS_MODEL_H */
