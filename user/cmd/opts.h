/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The options code reads, by id: xs_arg(a, XS_OPT_GUE_PORT). One list of
 * names makes both the ids and their strings, so a misspelt option in code
 * is an undeclared identifier, not a lookup that quietly finds nothing.
 * The command table (main.c) still spells each option for the user; an id
 * here that no command has reads as absent, as before.
 */
#ifndef XS_OPTS_H
#define XS_OPTS_H

#define XS_OPTS(X) \
	X(BIRD, "bird") \
	X(CACERT, "cacert") \
	X(CERT, "cert") \
	X(CHECK_EVERY, "check-every") \
	X(COUNT, "count") \
	X(CSV, "csv") \
	X(DOC, "doc") \
	X(DRY_RUN, "dry-run") \
	X(ETCD, "etcd") \
	X(EVENTS, "events") \
	X(FILE, "file") \
	X(FIN_TIMEOUT, "fin-timeout") \
	X(FLOW_CACHE_SIZE, "flow-cache-size") \
	X(FLOW_PACKETS, "flow-packets") \
	X(FLOW_TABLE_SIZE, "flow-table-size") \
	X(FORMAT, "format") \
	X(FROM, "from") \
	X(GUE_PORT, "gue-port") \
	X(HANDS, "hands") \
	X(HEAVY, "heavy") \
	X(HOST, "host") \
	X(ID, "id") \
	X(JSON, "json") \
	X(KEY, "key") \
	X(KEYS, "keys") \
	X(LEASE_TTL, "lease-ttl") \
	X(LOAD, "load") \
	X(METRICS, "metrics") \
	X(PASSWORD_FILE, "password-file") \
	X(PCAP, "pcap") \
	X(PER_CPU, "per-cpu") \
	X(PIN_RATE, "pin-rate") \
	X(PLOT, "plot") \
	X(PREFIX, "prefix") \
	X(PRETTY, "pretty") \
	X(QUEUES, "queues") \
	X(RATE, "rate") \
	X(RATIO, "ratio") \
	X(REMOVE, "remove") \
	X(RUN_DIR, "run-dir") \
	X(SAMPLE, "sample") \
	X(SECRETS, "secrets") \
	X(SEED, "seed") \
	X(SLOTS, "slots") \
	X(TCP_TIMEOUT, "tcp-timeout") \
	X(TENANTS, "tenants") \
	X(THREADS, "threads") \
	X(TO, "to") \
	X(TOO_BIG, "too-big") \
	X(UDP_TIMEOUT, "udp-timeout") \
	X(UNPARSED, "unparsed") \
	X(USER, "user") \
	X(VIP_DEV, "vip-dev") \
	X(WATCH, "watch") \
	X(XDP_MODE, "xdp-mode") \

enum xs_opt_id {
#define XS_OPT_ENUM(id, name) XS_OPT_##id,
	XS_OPTS(XS_OPT_ENUM)
#undef XS_OPT_ENUM
	XS_OPT_NR		/* how many there are */
};

/* The option's name, as a command line spells it after "--". */
extern const char *const xs_opt_names[XS_OPT_NR];

#endif /* XS_OPTS_H */
