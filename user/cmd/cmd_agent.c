// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * agent: the daemon (user/agent/, docs/fleet.md), and the requests a running
 * agent answers on its control socket: agent drain|undrain|status [IFACE].
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "agent.h"
#include "commands.h"
#include "json.h"
#include "log.h"
#include "metrics_http.h"
#include "netns.h"
#include "parse.h"

/* The password of --password-file: its first line. */
static char *xs_read_password(const char *path)
{
	char buf[512];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		pr_warn("agent: --password-file %s: %s\n", path, strerror(errno));
		return NULL;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0) {
		pr_warn("agent: --password-file %s: %s\n", path, strerror(errno));
		return NULL;
	}
	buf[n] = 0;
	buf[strcspn(buf, "\r\n")] = 0;
	return strdup(buf);
}

/* @key of @o as a string, or NULL when absent or null. */
static const char *xs_jstr(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return NULL;
	return json_object_get_string(v);
}

static long long xs_jint(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : 0;
}

static bool xs_jbool(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_get_boolean(v);
}

/* A JSON array of strings as "a, b", or @none. */
static void xs_jlist(struct json_object *o, const char *key, const char *none)
{
	struct json_object *arr;
	size_t i, n = 0;

	if (json_object_object_get_ex(o, key, &arr) && json_object_is_type(arr, json_type_array))
		n = json_object_array_length(arr);
	for (i = 0; i < n; i++)
		printf("%s%s", i ? ", " : "", json_object_get_string(json_object_array_get_idx(arr, i)));
	if (!n)
		printf("%s", none);
}

/* The status document (docs/fleet.md, "Status") as lines, the way status prints an attachment. */
static void xs_agent_status_text(struct json_object *d)
{
	struct json_object *ifs, *f;
	const char *s;
	size_t i;

	printf("agent %s (pid %lld), started %s\n", xs_jstr(d, "host") ?: "?", xs_jint(d, "pid"),
	       xs_jstr(d, "started") ?: "?");
	printf("  revision %lld, applied %lld%s\n", xs_jint(d, "revision"), xs_jint(d, "applied"),
	       xs_jint(d, "revision") == xs_jint(d, "applied") ? "" : " (behind)");
	if ((s = xs_jstr(d, "error")))
		printf("  error: %s\n", s);
	if (json_object_object_get_ex(d, "interfaces", &ifs)) {
		for (i = 0; i < json_object_array_length(ifs); i++) {
			f = json_object_array_get_idx(ifs, i);
			printf("  interface %s: %s, revision %lld", xs_jstr(f, "name") ?: "?",
			       xs_jbool(f, "attached") ? "attached" : "not attached",
			       xs_jint(f, "applied"));
			if ((s = xs_jstr(f, "error")))
				printf(", error: %s", s);
			printf("\n");
		}
	}
	printf("  %s, %s; VIPs ", xs_jbool(d, "drained") ? "drained" : "not drained",
	       xs_jbool(d, "announced") ? "announced" : "not announced");
	xs_jlist(d, "vips", "none");
	printf("\n  below min-healthy: ");
	xs_jlist(d, "below_min_healthy", "none");
	printf("\n");
	if ((s = xs_jstr(d, "bgp_error")))
		printf("  bgp error: %s\n", s);
	if ((s = xs_jstr(d, "etcd"))) {
		const char *e = xs_jstr(d, "etcd_error");

		printf("  etcd %s: %s%s\n", s, e ? "error: " : "up", e ? e : "");
	}
}

/* drain|undrain|status: the running agent's answer, as text, or JSON with -j/-p. */
static int xs_agent_request(const struct xs_args *a, const char *run_dir, const char *req)
{
	struct json_object *doc;
	char *reply = NULL;
	int err = xs_agent_control(run_dir, req, &reply);

	if (err)
		return err;
	doc = json_tokener_parse(reply);
	if (!doc || !json_object_is_type(doc, json_type_object) ||
	    xs_jstr(doc, "request_error")) {
		pr_warn("agent: the agent at %s answered '%s' %s: %s\n", run_dir, req,
			doc ? "with an error" : "with no JSON", strtok(reply, "\n") ?: "");
		json_object_put(doc);
		free(reply);
		return -EPROTO;
	}
	free(reply);
	if (xs_flag(a, XS_OPT_JSON))
		return xs_json_print(a, doc);
	xs_agent_status_text(doc);
	json_object_put(doc);
	return fflush(stdout) ? -errno : 0;
}

int xs_cmd_agent(const struct xs_args *a)
{
	struct xs_agent_opts o = {
		.prefix = xs_arg(a, XS_OPT_PREFIX) ?: XS_AGENT_PREFIX,
		.host = xs_arg(a, XS_OPT_HOST),
		.run_dir = xs_arg(a, XS_OPT_RUN_DIR),
		.bird = xs_arg(a, XS_OPT_BIRD),
		.vip_dev = xs_arg(a, XS_OPT_VIP_DEV) ?: XS_AGENT_VIP_DEV,
		.metrics = xs_arg(a, XS_OPT_METRICS),
		.lease_ttl = XS_AGENT_LEASE_TTL,
		.etcd = {
			.endpoints = xs_arg(a, XS_OPT_ETCD),
			.cacert = xs_arg(a, XS_OPT_CACERT),
			.cert = xs_arg(a, XS_OPT_CERT),
			.key = xs_arg(a, XS_OPT_KEY),
			.user = xs_arg(a, XS_OPT_USER),
		},
	};
	struct sockaddr_storage metrics_addr;
	char run_dir[PATH_MAX];
	socklen_t metrics_len;
	char hostname[256], unit_dir[PATH_MAX];
	char *password = NULL;
	const char *s;
	__u32 ttl;
	int i, err;

	/* Agents of two namespaces must not share a control socket or health files. */
	if (!o.run_dir) {
		err = xs_netns_dir(run_dir, sizeof(run_dir), XS_AGENT_RUN_DIR);
		if (err)
			return err;
		o.run_dir = run_dir;
	}
	/* -f FILE, any number of times (the parser collects them in order). */
	for (i = 0; i < a->nfiles && i < XS_AGENT_MAX_FILES; i++)
		o.files[o.n_files++] = a->files[i];
	for (i = 0; i < a->npos; i++)
		if (o.n_ifaces < XS_AGENT_MAX_IFACES)
			o.ifaces[o.n_ifaces++] = a->pos[i];
	/* A bad --metrics address is refused before anything starts. */
	if (o.metrics && xs_metrics_addr_parse(o.metrics, &metrics_addr, &metrics_len))
		return -EINVAL;
	/*
	 * Without a source, a request word goes to the running agent; else it
	 * names an interface. REQUEST IFACE: the systemd unit's agent for IFACE,
	 * whose run directory is XS_AGENT_RUN_DIR/IFACE (unless --run-dir): the
	 * unit names it, in whatever network namespace it runs.
	 */
	if (!o.n_files && !o.etcd.endpoints && (o.n_ifaces == 1 || o.n_ifaces == 2) &&
	    (!strcmp(o.ifaces[0], "drain") || !strcmp(o.ifaces[0], "undrain") ||
	     !strcmp(o.ifaces[0], "status"))) {
		if (o.n_ifaces == 2 && !xs_arg(a, XS_OPT_RUN_DIR)) {
			if (strlen(o.ifaces[1]) >= IF_NAMESIZE || strchr(o.ifaces[1], '/') ||
			    o.ifaces[1][0] == '.') {
				pr_warn("agent %s: '%s' is not an interface name\n", o.ifaces[0],
					o.ifaces[1]);
				return -EINVAL;
			}
			snprintf(unit_dir, sizeof(unit_dir), "%s/%s", XS_AGENT_RUN_DIR, o.ifaces[1]);
			o.run_dir = unit_dir;
		}
		return xs_agent_request(a, o.run_dir, o.ifaces[0]);
	}
	if (xs_flag(a, XS_OPT_JSON)) {
		pr_warn("agent: --json and --pretty go with a request (agent status, drain or "
			"undrain), not with the daemon\n");
		return -XS_EUSAGE;
	}
	if (o.n_files && o.etcd.endpoints) {
		pr_warn("agent: follow etcd (--etcd URL), files (-f FILE), or neither (the running "
			"state, for its health checks), not both\n");
		return -EINVAL;
	}
	if (!o.n_ifaces) {
		pr_warn("agent: name the interfaces to keep (IFACE...)\n");
		return -EINVAL;
	}
	for (i = 1; i < o.n_ifaces; i++) {
		for (int j = 0; j < i; j++) {
			if (strcmp(o.ifaces[i], o.ifaces[j]))
				continue;
			pr_warn("agent: interface %s is named twice\n", o.ifaces[i]);
			return -EINVAL;
		}
	}
	if ((s = xs_arg(a, XS_OPT_LEASE_TTL))) {
		if (xs_parse_u32(s, "--lease-ttl", 2, 3600, &ttl))
			return -EINVAL;
		o.lease_ttl = ttl;
	}
	if (!o.host) {
		if (gethostname(hostname, sizeof(hostname))) {
			pr_warn("agent: cannot read the hostname (give --host): %s\n", strerror(errno));
			return -errno;
		}
		hostname[sizeof(hostname) - 1] = 0;
		o.host = hostname;
	}
	if ((s = xs_arg(a, XS_OPT_PASSWORD_FILE))) {
		password = xs_read_password(s);
		if (!password)
			return -EINVAL;
		o.etcd.password = password;
	}
	err = xs_agent_run(&o);
	if (password) {
		explicit_bzero(password, strlen(password));
		free(password);
	}
	return err;
}
