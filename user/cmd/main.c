// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* xdpsteer: the command table. Parsing and help are generated from it (cli.c). */
#include <stdio.h>
#include "cli.h"
#include "commands.h"
#include "xs_gue.h"
#include "xs_trace_rec.h"

static const struct xs_opt attach_opts[] = {
	{ "xdp-mode", "native|skb", "XDP attach mode (default native)" },
	{ "flow-table-size", "N",
	  "LRU flow pins; 0 disables pinning (default " XS_XSTR(XS_DEFAULT_FLOW_ENTRIES) ")" },
	{ "flow-cache-size", "N",
	  "per-CPU flow-cache slots, a power of two up to 1048576 (default "
	  XS_XSTR(XS_FLOW_CACHE_SLOTS) ")" },
	{ "pin-rate", "N",
	  "new pins per second per CPU, 0 = no limit (default " XS_XSTR(XS_DEFAULT_PIN_RATE) ")" },
	{ "tcp-timeout", "DURATION",
	  "idle time after which a TCP pin expires (default " XS_XSTR(XS_DEFAULT_TCP_TIMEOUT_S) "s)" },
	{ "fin-timeout", "DURATION",
	  "the same once a FIN or RST was seen (default " XS_XSTR(XS_DEFAULT_FIN_TIMEOUT_S) "s)" },
	{ "udp-timeout", "DURATION",
	  "the same for UDP and other protocols (default " XS_XSTR(XS_DEFAULT_UDP_TIMEOUT_S) "s)" },
	{ "unparsed", "pass|drop", "verdict for packets that cannot be keyed (default pass)" },
	{ "too-big", "icmp|drop",
	  "a packet too big once encapsulated: ICMP back to the client, or drop (default icmp)" },
	{ "gue-port", "PORT", "gue: the UDP destination port (default " XS_XSTR(XS_DEFAULT_GUE_PORT) ")" },
	{ 0 },
};
#define JSON_OPTS                                                                                 \
	{ "json", NULL, "print one JSON document (nothing on stdout if the command fails)" },     \
	{ "pretty", NULL, "print JSON, indented (implies --json)" }
static const struct xs_opt json_opts[] = {
	JSON_OPTS,
	{ 0 },
};
/* Every command that commits takes --dry-run: the commit prints its plan and writes nothing. */
#define DRY_RUN_OPT { "dry-run", NULL, "print the plan only; change nothing" }
static const struct xs_opt edit_opts[] = {
	DRY_RUN_OPT,
	JSON_OPTS,
	{ 0 },
};
#define HEALTH_DIR_OPT \
	{ "run-dir", "DIR", "where the agent keeps health-IFACE, the backends' health " \
			    "(default /run/xdpsteer/IFACE, the unit's, else /run/xdpsteer, or " \
			    "/run/xdpsteer/netns:COOKIE outside the initial network namespace)" }
static const struct xs_opt stats_opts[] = {
	JSON_OPTS,
	{ "per-cpu", NULL, "break each target down by CPU" },
	{ "format", "text|json|prometheus",
	  "text (default), json (= --json) or Prometheus text exposition (docs/metrics.md)" },
	{ "watch", "[SECONDS]",
	  "rates per second, every SECONDS (default 1s) until ^C; redrawn on a terminal" },
	HEALTH_DIR_OPT,
	{ 0 },
};
static const struct xs_opt service_list_opts[] = {
	JSON_OPTS,
	HEALTH_DIR_OPT,
	{ 0 },
};

static const struct xs_opt sim_resize_opts[] = {
	{ "keys", "N", "keys to place (default 1000000)" },
	{ "from", "A", "shards before (default 20)" },
	{ "to", "B", "shards after (default 21)" },
	{ "remove", "K", "instead of --to: remove shard K of --from from the middle" },
	{ "check-every", "N", "check every Nth key against the kernel decision; 0: none (100)" },
	{ "threads", "N", "threads sharing the keys of each row, 1-16 (default: online CPUs)" },
	{ "csv", NULL, "print CSV" },
	JSON_OPTS,
	{ "plot", "FILE.svg", "draw moved share and balance per algorithm" },
	{ 0 },
};
static const struct xs_opt sim_isolation_opts[] = {
	{ "tenants", "T", "tenants; the hand key is the tenant (default 1000)" },
	{ "queues", "N", "queues (default 16)" },
	{ "heavy", "K", "heavy tenants (default 4)" },
	{ "ratio", "R", "a heavy tenant's rate over a light one's (default 100)" },
	{ "hands", "LIST", "shuffle hand sizes (default 1,2,3,4,6,8)" },
	{ "load", "PCT", "offered load, % of all queues' capacity (default 80)" },
	{ "flow-packets", "P", "packets per flow (default 16)" },
	{ "events", "N", "packets simulated per row (default 1000000)" },
	{ "seed", "S", "RNG seed of the queue model (default 1)" },
	{ "csv", NULL, "print CSV" },
	JSON_OPTS,
	{ "plot", "FILE.svg", "draw the isolation curve against H" },
	{ 0 },
};

static const struct xs_opt decap_attach_opts[] = {
	{ "xdp-mode", "native|skb", "XDP attach mode (default native)" },
	{ "gue-port", "PORT", "GUE's UDP destination port, as the load balancers' (default "
			      XS_XSTR(XS_DEFAULT_GUE_PORT) ")" },
	{ 0 },
};
static const struct xs_opt show_opts[] = {
	{ "secrets", NULL, "print the hash seed too (it is a secret)" },
	JSON_OPTS,
	{ 0 },
};

static const struct xs_opt apply_opts[] = {
	{ "file", "FILE", "the configuration" },
	DRY_RUN_OPT,
	{ "watch", NULL, "keep running; re-apply when the file changes" },
	JSON_OPTS,
	{ 0 },
};

static const struct xs_opt agent_opts[] = {
	{ "etcd", "URL[,URL]", "follow the configuration in etcd v3 (its JSON gateway)" },
	{ "prefix", "PREFIX", "etcd keys PREFIX/fleet, PREFIX/hosts/HOST, PREFIX/status/HOST "
			      "(default /xdpsteer)" },
	{ "host", "NAME", "this host in those keys (default: the hostname)" },
	{ "file", "FILE", "instead of etcd, follow FILE (also -f FILE, repeatable)" },
	{ "cacert", "FILE", "etcd: verify the server's certificate with this CA bundle" },
	{ "cert", "FILE", "etcd: TLS client certificate" },
	{ "key", "FILE", "etcd: the client certificate's key" },
	{ "user", "NAME[:PASSWORD]", "etcd: authenticate as NAME" },
	{ "password-file", "FILE", "etcd: the user's password, from FILE" },
	{ "lease-ttl", "SECONDS", "the status key lives this long after the agent (default 10)" },
	{ "run-dir", "DIR", "control socket, drain mark, bird route files, health files (default "
			    "/run/xdpsteer, or /run/xdpsteer/netns:COOKIE outside the initial network "
			    "namespace; drain|undrain|status IFACE: /run/xdpsteer/IFACE, the unit's)" },
	{ "bird", "SOCKET", "announce the VIPs through bird2's control socket" },
	{ "vip-dev", "NAME", "the device the VIP routes point to (default xsvip0)" },
	{ "metrics", "ADDR:PORT", "serve Prometheus metrics on http://ADDR:PORT/metrics" },
	JSON_OPTS, /* drain|undrain|status: the answer as JSON (text by default) */
	{ 0 },
};

static const struct xs_opt trace_opts[] = {
	{ "sample", "N", "one record for every N matching packets, per CPU (default 1: all)" },
	{ "count", "N", "stop after N records" },
	{ "rate", "N", "at most N records a second per CPU, 0 = no cap (default "
		       XS_XSTR(XS_TRACE_DEFAULT_RATE) ")" },
	{ "pcap", "FILE", "also write the packets, each with its decision as comment, as pcapng" },
	JSON_OPTS,
	{ 0 },
};

static const struct xs_opt help_opts[] = {
	{ "doc", "markdown|scdoc|keys",
	  "print the synopses for docs/usage.md or xdpsteer(8), or the file's keys (make docs)" },
	{ 0 },
};

#define CMD(w, syn, h, lo, hi, o, k, fn)                                                          \
	{ .words = (w), .synopsis = (syn), .help = (h), .min_pos = (lo), .max_pos = (hi),         \
	  .opts = (o), .keys = (k), .run = (fn) }
/*
 * A command that changes state: one edit of the model, committed (edit.c);
 * --json: its plan; --dry-run: the plan only.
 */
#define EDIT(w, syn, h, lo, hi, k, fn)                                                            \
	{ .words = (w), .synopsis = (syn), .help = (h), .min_pos = (lo), .max_pos = (hi),         \
	  .opts = edit_opts, .keys = (k), .edit = (fn) }

#define TARGET "IFACE cpu N | dev IFNAME"
#define TARGET_OR_ID TARGET " | id N"
#define BACKEND "IFACE VIP:PORT/PROTO BACKEND_IP"

const struct xs_cmd xs_commands[] = {
	CMD("attach", "IFACE", "attach xdpsteer to IFACE and pin its state", 1, 1, attach_opts,
	    xs_settings_keys, xs_cmd_attach),
	CMD("upgrade", "IFACE",
	    "replace the running program by this build's, keeping every map and flow", 1, 1, NULL,
	    NULL, xs_cmd_upgrade),
	CMD("detach", "IFACE", "detach from IFACE and remove its pins", 1, 1, NULL, NULL,
	    xs_cmd_detach),
	CMD("status", "[IFACE]", "show attachments, algorithm and seed", 0, 1, json_opts, NULL,
	    xs_cmd_status),
	EDIT("target add", TARGET, "add a target: back into its old slot, else a hole, else a new slot",
	     3, 3, xs_target_keys, xs_edit_target_add),
	EDIT("target del", TARGET_OR_ID, "remove a target", 3, 3, NULL, xs_edit_target_del),
	CMD("target list", "IFACE", "list targets by slot", 1, 1, json_opts, NULL,
	    xs_cmd_target_list),
	EDIT("target drain", TARGET_OR_ID, "no new flows for the target; pinned flows stay", 3, 3,
	     NULL, xs_edit_target_drain),
	EDIT("target undrain", TARGET_OR_ID, "take new flows again, on the slots it had", 3, 3,
	     NULL, xs_edit_target_undrain),
	CMD("stats", "IFACE", "per-target packets, bytes and load; per-reason counters", 1, 1,
	    stats_opts, NULL, xs_cmd_stats),
	CMD("lookup", "IFACE PROTO SRC:SPORT DST:DPORT", "which target a flow goes to, and why", 4,
	    4, json_opts, NULL, xs_cmd_lookup),
	{ .words = "trace",
	  .synopsis = "IFACE [service VIP:PORT/PROTO] [client ADDR[/LEN]] [backend ADDR] "
		      "[reason NAME[,NAME]]",
	  .help = "every decision on matching packets as it is taken, with its reasons "
		  "(docs/observing.md)",
	  .min_pos = 1, .max_pos = 9, .opts = trace_opts, .run = xs_cmd_trace,
	  .min_prefix = 2 /* "t" stays target */ },
	EDIT("seed", "IFACE HEX|random", "rotate the hash key; pinned flows keep their targets", 2,
	     2, NULL, xs_edit_seed),
	EDIT("service add", "IFACE VIP:PORT/PROTO", "add a load-balanced service (PORT * = any port)",
	     2, 2, xs_service_keys, xs_edit_service_add),
	EDIT("service del", "IFACE VIP:PORT/PROTO", "remove a service and its backends", 2, 2, NULL,
	     xs_edit_service_del),
	CMD("service list", "IFACE", "services, their checks, their backends and their health", 1, 1,
	    service_list_opts, NULL,
	    xs_cmd_service_list),
	EDIT("backend add", BACKEND, "add a backend to a service", 3, 3, xs_backend_keys,
	     xs_edit_backend_add),
	EDIT("backend del", BACKEND, "remove a backend (only its flows move)", 3, 3, NULL,
	     xs_edit_backend_del),
	EDIT("backend drain", BACKEND, "no new flows for the backend; pinned flows stay", 3, 3,
	     NULL, xs_edit_backend_drain),
	EDIT("backend undrain", BACKEND, "take new flows again, on the slots it had", 3, 3, NULL,
	     xs_edit_backend_undrain),
	EDIT("backend weight", BACKEND " W", "set a backend's weight: W slots, 1-256", 4, 4, NULL,
	     xs_edit_backend_weight),
	CMD("apply", "IFACE -f FILE", "make IFACE's state equal to FILE; prints the plan first", 1,
	    1, apply_opts, NULL, xs_cmd_apply),
	CMD("show", "IFACE", "IFACE's running state, in the format apply reads", 1, 1, show_opts,
	    NULL, xs_cmd_show),
	CMD("agent", "IFACE... [--etcd URL | -f FILE...] | drain|undrain|status [IFACE]",
	    "keep IFACEs equal to etcd or files (or as they are); run the services' health checks; "
	    "announce the VIPs (docs/fleet.md, docs/health.md)", 1, XS_MAX_POS,
	    agent_opts, NULL, xs_cmd_agent),
	CMD("decap attach", "IFACE", "backend side: strip xdpsteer's tunnel headers on IFACE", 1,
	    1, decap_attach_opts, NULL, xs_cmd_decap_attach),
	CMD("decap detach", "IFACE", "remove the decap program from IFACE", 1, 1, NULL, NULL,
	    xs_cmd_decap_detach),
	CMD("decap stats", "IFACE", "what the decap program did", 1, 1, json_opts, NULL,
	    xs_cmd_decap_stats),
	CMD("sim resize", "", "compare sharding algorithms when shards are added or removed", 0, 0,
	    sim_resize_opts, NULL, xs_cmd_sim_resize),
	CMD("sim isolation", "", "noisy neighbours: modulo, jump and shuffle sharding by hand size",
	    0, 0, sim_isolation_opts, NULL, xs_cmd_sim_isolation),
	CMD("version", "", "xdpsteer's version, its libraries', and its BPF objects' SHA-256", 0, 0,
	    json_opts, NULL, xs_cmd_version),
	CMD("help", "[OBJECT [COMMAND]]", "the usage of every command, an object or a command", 0,
	    2, help_opts, NULL, xs_cmd_help),
	CMD("completion", "[bash]", "print the bash completion script, made from this table", 0, 1,
	    NULL, NULL, xs_cmd_completion),
	{ 0 },
};

int main(int argc, char **argv)
{
	return xs_cli_main(argc, argv);
}
