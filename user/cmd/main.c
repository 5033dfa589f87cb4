// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* xdpsteer: the command table. Parsing and help are generated from it (cli.c). */
#include <stdio.h>
#include "cli.h"
#include "commands.h"

static const struct xs_opt attach_opts[] = {
	{ "algo", "jump|shuffle", "selection algorithm (default jump)" },
	{ "hand-size", "H", "shuffle: cards per hand, 1-15 (default 4)" },
	{ "seed", "HEX", "128-bit hash key as 32 hex digits (default: random)" },
	{ "xdp-mode", "native|skb", "XDP attach mode (default native)" },
	{ "flow-table-size", "N", "LRU flow pins; 0 disables pinning (default 65536)" },
	{ "pin-rate", "N", "new pins per second per CPU, 0 = no limit (default 50000)" },
	{ "tcp-timeout", "DURATION", "idle time after which a TCP pin expires (default 2h)" },
	{ "fin-timeout", "DURATION", "the same once a FIN or RST was seen (default 30s)" },
	{ "udp-timeout", "DURATION", "the same for UDP and other protocols (default 300s)" },
	{ "hash-fields", "LIST", "flow hash fields (default src,dst,sport,dport,proto)" },
	{ "hand-fields", "LIST", "shuffle: fields that deal the hand (default src)" },
	{ "unparsed", "pass|drop", "verdict for packets that cannot be keyed (default pass)" },
	{ 0 },
};
static const struct xs_opt json_opts[] = {
	{ "json", NULL, "print JSON" },
	{ 0 },
};
static const struct xs_opt stats_opts[] = {
	{ "json", NULL, "print JSON" },
	{ "per-cpu", NULL, "break each target down by CPU" },
	{ 0 },
};
static const struct xs_opt target_add_opts[] = {
	{ "qsize", "Q", "cpu: cpumap queue size in frames, 1-16384 (default 2048)" },
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
	{ "json", NULL, "print JSON" },
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
	{ "json", NULL, "print JSON" },
	{ "plot", "FILE.svg", "draw the isolation curve against H" },
	{ 0 },
};

static const struct xs_opt service_add_opts[] = {
	{ "algo", "jump|shuffle", "selection algorithm (default jump)" },
	{ "hand-size", "H", "shuffle: cards per hand, 1-15 (default 4)" },
	{ "encap", "ipip|l2", "delivery: IP-in-IP tunnel or L2 DSR (default ipip)" },
	{ "tunnel-src", "CIDR", "ipip: outer IPv4 source prefix (default 172.16.0.0/16)" },
	{ "tunnel-src6", "CIDR", "ipip: outer IPv6 source prefix (default fd00:7873::/96)" },
	{ 0 },
};
static const struct xs_opt decap_attach_opts[] = {
	{ "xdp-mode", "native|skb", "XDP attach mode (default native)" },
	{ 0 },
};
static const struct xs_opt backend_add_opts[] = {
	{ "weight", "W", "share of new flows, 1-256 (default 1): W slots" },
	{ 0 },
};

static const struct xs_opt apply_opts[] = {
	{ "file", "FILE", "the configuration (also -f FILE)" },
	{ "dry-run", NULL, "print the plan only" },
	{ "watch", NULL, "keep running; re-apply when the file changes" },
	{ 0 },
};

const struct xs_cmd xs_commands[] = {
	{ "attach", "IFACE", "attach xdpsteer to IFACE and pin its state", 1, 1, attach_opts,
	  xs_cmd_attach },
	{ "detach", "IFACE", "detach from IFACE and remove its pins", 1, 1, NULL, xs_cmd_detach },
	{ "status", "[IFACE]", "show attachments, algorithm and seed", 0, 1, json_opts,
	  xs_cmd_status },
	{ "target add", "IFACE cpu N | dev IFNAME", "add a target: back into its old slot, else a hole, else a new slot", 3, 3,
	  target_add_opts, xs_cmd_target_add },
	{ "target del", "IFACE cpu N | dev IFNAME | id N", "remove a target", 3, 3, NULL,
	  xs_cmd_target_del },
	{ "target list", "IFACE", "list targets by slot", 1, 1, json_opts, xs_cmd_target_list },
	{ "target drain", "IFACE cpu N | dev IFNAME | id N",
	  "no new flows for the target; pinned flows stay", 3, 3, NULL, xs_cmd_target_drain },
	{ "target undrain", "IFACE cpu N | dev IFNAME | id N",
	  "take new flows again, on the slots it had", 3, 3, NULL, xs_cmd_target_undrain },
	{ "stats", "IFACE", "per-target packets, bytes and load; per-reason counters", 1, 1,
	  stats_opts, xs_cmd_stats },
	{ "lookup", "IFACE PROTO SRC:SPORT DST:DPORT", "which target a flow goes to, and why", 4,
	  4, json_opts, xs_cmd_lookup },
	{ "seed", "IFACE HEX|random", "rotate the hash key; pinned flows keep their targets", 2, 2,
	  NULL, xs_cmd_seed },
	{ "service add", "IFACE VIP:PORT/PROTO", "add a load-balanced service (PORT * = any port)",
	  2, 2, service_add_opts, xs_cmd_service_add },
	{ "service del", "IFACE VIP:PORT/PROTO", "remove a service and its backends", 2, 2, NULL,
	  xs_cmd_service_del },
	{ "service list", "IFACE", "services and their backends", 1, 1, json_opts,
	  xs_cmd_service_list },
	{ "backend add", "IFACE VIP:PORT/PROTO BACKEND_IP", "add a backend to a service", 3, 3,
	  backend_add_opts, xs_cmd_backend_add },
	{ "backend del", "IFACE VIP:PORT/PROTO BACKEND_IP", "remove a backend (only its flows move)",
	  3, 3, NULL, xs_cmd_backend_del },
	{ "backend drain", "IFACE VIP:PORT/PROTO BACKEND_IP",
	  "no new flows for the backend; pinned flows stay", 3, 3, NULL, xs_cmd_backend_drain },
	{ "backend undrain", "IFACE VIP:PORT/PROTO BACKEND_IP",
	  "take new flows again, on the slots it had", 3, 3, NULL, xs_cmd_backend_undrain },
	{ "apply", "IFACE -f FILE", "make IFACE's state equal to FILE; prints the plan first", 1,
	  3, apply_opts, xs_cmd_apply },
	{ "show", "IFACE", "IFACE's running state, in the format apply reads", 1, 1, NULL,
	  xs_cmd_show },
	{ "decap attach", "IFACE", "backend side: strip xdpsteer's tunnel headers on IFACE", 1, 1,
	  decap_attach_opts, xs_cmd_decap_attach },
	{ "decap detach", "IFACE", "remove the decap program from IFACE", 1, 1, NULL,
	  xs_cmd_decap_detach },
	{ "decap stats", "IFACE", "what the decap program did", 1, 1, json_opts,
	  xs_cmd_decap_stats },
	{ "sim resize", "", "compare sharding algorithms when shards are added or removed", 0, 0,
	  sim_resize_opts, xs_cmd_sim_resize },
	{ "sim isolation", "", "noisy neighbours: modulo, jump and shuffle sharding by hand size",
	  0, 0, sim_isolation_opts, xs_cmd_sim_isolation },
	{ 0 },
};

int main(int argc, char **argv)
{
	return xs_cli_main(argc, argv);
}
