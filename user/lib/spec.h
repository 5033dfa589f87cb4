/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The objects a model holds (model.h), as specs: what one line of a file or
 * one command says about a target, a service, a backend or the settings.
 * One key table per object (key.h) binds each key to the field it sets, and
 * serves a command's options, a file's keys, their help, `show` and the
 * comparisons (spec.c).
 */
#ifndef XS_SPEC_H
#define XS_SPEC_H

#include <net/if.h>
#include <stdbool.h>
#include "defaults.h"
#include "key.h"
#include "xdpsteer.h"
#include "xs_check.h"

/*
 * Where an object sits, as `show` prints it: its target id and the slots
 * (buckets) it holds. A file that gives them is applied exactly, whatever
 * the host's history, so every host given the same file holds the same
 * pools, bit for bit (docs/configuration.md, "Canonical state"). Left out,
 * the commit chooses, from the host's history, what moves the fewest flows.
 */
struct xs_place {
	__u32 id;		/* XS_NO_TARGET: the commit picks */
	__u32 n_slots;		/* a drained object's: the slots it returns to */
	__u32 slots[XS_MAX_WEIGHT];
};

/* The interface's settings: the queue pool's algorithm, and what every pool shares. */
struct xs_settings {
	__u64 seed[2];
	bool has_seed;		/* false: keep the running seed */
	__u8 algo, hand_size;	/* the queue pool's */
	__u8 flow_fields, hand_fields;
	__u32 slot_count;	/* the queue pool's slots, holes included; 0: as the commit chooses */
};

struct xs_target_spec {
	struct xs_target t;	/* kind, cpu or ifindex, qsize */
	char ifname[IF_NAMESIZE];
	bool drain;
	struct xs_place place;
};

struct xs_service_spec {
	struct xs_service_key key;
	struct xs_service svc;	/* encap and tunnel sources; the id is the commit's */
	__u8 algo, hand_size;
	__u32 slot_count;	/* its pool's slots, holes included; 0: as the commit chooses */
	__u8 flow_fields;	/* its own hash-fields (enum xs_field); 0: the interface's */
	struct xs_check check;	/* its health check (check.h), run by the agent */
	__u32 check_given;	/* bit per check key given: the model checks them together */
};

struct xs_backend_spec {
	struct xs_service_key service;
	struct xs_target t;	/* kind, family, addr, weight */
	bool drain;
	/*
	 * Taken out by its health check: in no slot, like drain, but set by the
	 * agent's overlay (user/agent/health.c), never by a key; with @redecide
	 * the flows pinned to it are decided again. Read only when the model's
	 * health is set (model.h): else the running state's health stands.
	 */
	bool down, redecide;
	bool weight_set;	/* weight given: else slots given decide it */
	struct xs_place place;
};

/* The key tables (spec.c), each ended by a NULL name: the keys a line or command takes. */
extern const struct xs_key xs_settings_keys[];
extern const struct xs_key xs_target_keys[];
extern const struct xs_key xs_service_keys[];	/* the check's keys last */
extern const struct xs_key xs_backend_keys[];

/* The setters below for a caller that holds a spec of either kind behind a key table. */
typedef int (*xs_key_setter)(void *spec, const char *key, const char *val);
int xs_settings_key(void *spec, const char *key, const char *val);
int xs_target_key(void *spec, const char *key, const char *val);
int xs_service_key(void *spec, const char *key, const char *val);
int xs_backend_key(void *spec, const char *key, const char *val);

/* "3" or "0,7,12" into @p's slot list: -EINVAL printed. */
int xs_parse_slots(const char *s, struct xs_place *p);

/* 0, or -EPERM (printed) when @path, which holds the seed, is not root's alone. */
struct stat;
int xs_check_secret_file(const char *path, const struct stat *st);

/* Defaults. */
void xs_settings_init(struct xs_settings *s);
/* "cpu N" or "dev IFNAME" on this host (@nr_cpus possible CPUs), with defaults. */
int xs_target_spec_init(struct xs_target_spec *s, const char *kind, const char *val,
			int nr_cpus);
/* "VIP:PORT/PROTO", with defaults. */
int xs_service_spec_init(struct xs_service_spec *s, const char *service);
/* "VIP:PORT/PROTO" and "IP", with defaults. */
int xs_backend_spec_init(struct xs_backend_spec *s, const char *service, const char *addr);
/* One key of its table: @val is NULL for a flag. -EINVAL (printed) for a bad value. */
int xs_settings_set(struct xs_settings *s, const char *key, const char *val);
int xs_target_spec_set(struct xs_target_spec *s, const char *key, const char *val);
int xs_service_spec_set(struct xs_service_spec *s, const char *key, const char *val);
int xs_backend_spec_set(struct xs_backend_spec *s, const char *key, const char *val);

#endif /* XS_SPEC_H */
