// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * What the agent says about itself: the status JSON (the status key in etcd,
 * and `xdpsteer agent status`), and the control socket through which
 * `xdpsteer agent drain|undrain|status` talks to a running agent.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <json-c/json.h>
#include "log.h"
#include "suggest.h"
#include "sock.h"
#include "state.h"

#define XS_CTL_TIMEOUT_S 10
#define XS_CTL_MAX_REPLY (1 << 20)

static struct json_object *xs_json_text(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

long long xs_agent_applied(const struct xs_agent *a)
{
	long long min = a->n_ifc ? a->ifc[0].applied : 0;
	int i;

	for (i = 1; i < a->n_ifc; i++)
		if (a->ifc[i].applied < min)
			min = a->ifc[i].applied;
	return min;
}

char *xs_agent_status_json(const struct xs_agent *a)
{
	struct json_object *o = json_object_new_object(), *ifs = json_object_new_array();
	struct json_object *vips = json_object_new_array();
	char when[32], addr[64], *out;
	struct tm tm;
	int i;

	gmtime_r(&a->started, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_object_add(o, "host", json_object_new_string(a->o->host));
	json_object_object_add(o, "pid", json_object_new_int(getpid()));
	json_object_object_add(o, "started", json_object_new_string(when));
	json_object_object_add(o, "revision", json_object_new_int64(a->revision));
	json_object_object_add(o, "applied", json_object_new_int64(xs_agent_applied(a)));
	json_object_object_add(o, "error", xs_json_text(a->error));
	for (i = 0; i < a->n_ifc; i++) {
		struct json_object *f = json_object_new_object();

		json_object_object_add(f, "name", json_object_new_string(a->ifc[i].name));
		json_object_object_add(f, "attached", json_object_new_boolean(a->ifc[i].prog_id != 0));
		json_object_object_add(f, "applied", json_object_new_int64(a->ifc[i].applied));
		json_object_object_add(f, "error", xs_json_text(a->ifc[i].error));
		json_object_array_add(ifs, f);
	}
	json_object_object_add(o, "interfaces", ifs);
	json_object_object_add(o, "drained", json_object_new_boolean(a->drained));
	json_object_object_add(o, "announced", json_object_new_boolean(a->announced));
	for (i = 0; i < a->n_vips; i++) {
		xs_route_format(&a->vips[i], addr, sizeof(addr));
		json_object_array_add(vips, json_object_new_string(addr));
	}
	json_object_object_add(o, "vips", vips);
	/* The VIPs held back because a service of theirs is below its min-healthy. */
	vips = json_object_new_array();
	for (i = 0; i < a->n_vips; i++)
		if (xs_checker_vip_down(&a->chk, (const __u8 *)a->vips[i].addr)) {
			xs_route_format(&a->vips[i], addr, sizeof(addr));
			json_object_array_add(vips, json_object_new_string(addr));
		}
	json_object_object_add(o, "below_min_healthy", vips);
	if (a->bgp_on)
		json_object_object_add(o, "bgp_error", xs_json_text(a->bgp.error));
	if (a->etcd) {
		json_object_object_add(o, "etcd", json_object_new_string(xs_etcd_endpoint(a->etcd)));
		json_object_object_add(o, "etcd_error",
				       a->etcd_up ? NULL : xs_json_text(a->etcd_error));
	}
	out = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							       JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return out;
}

int xs_ctl_listen(struct xs_agent *a)
{
	struct sockaddr_un sa;
	int fd, err = xs_unix_addr(a->ctl_path, &sa);

	if (err) {
		pr_warn("control socket path %s is too long\n", a->ctl_path);
		return err;
	}
	/* A socket that answers is another agent's; one that does not is left from a dead one. */
	fd = xs_unix_connect(a->ctl_path, XS_CTL_TIMEOUT_S);
	if (fd >= 0) {
		close(fd);
		pr_warn("another agent is running: its control socket %s answers (one agent per "
			"--run-dir)\n", a->ctl_path);
		return -EBUSY;
	}
	unlink(a->ctl_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || chmod(a->ctl_path, 0600) ||
	    listen(fd, 8)) {
		err = -errno;
		pr_warn("cannot listen on %s: %s\n", a->ctl_path, strerror(errno));
		close(fd);
		return err;
	}
	a->ctl_fd = fd;
	return 0;
}

void xs_ctl_close(struct xs_agent *a)
{
	if (a->ctl_fd < 0)
		return;
	close(a->ctl_fd);
	unlink(a->ctl_path);
	a->ctl_fd = -1;
}

/* One request line from one client: answer with the status, after acting on it. */
void xs_ctl_serve(struct xs_agent *a, xs_drain_fn drain)
{
	struct timeval tv = { .tv_sec = 1 };
	char req[64], *nl, *reply;
	size_t have = 0;
	ssize_t n;
	int fd;

	fd = accept(a->ctl_fd, NULL, NULL);
	if (fd < 0)
		return;
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	/* A client that says nothing must not hold the agent up. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	while (have < sizeof(req) - 1 && (n = read(fd, req + have, sizeof(req) - 1 - have)) > 0) {
		have += (size_t)n;
		req[have] = 0;
		if (strchr(req, '\n'))
			break;
	}
	req[have] = 0;
	nl = strchr(req, '\n');
	if (nl)
		*nl = 0;
	if (!strcmp(req, "drain") || !strcmp(req, "undrain")) {
		printf("agent: %s requested on %s\n", req, a->ctl_path);
		drain(a, req[0] == 'd');
	} else if (strcmp(req, "status")) {
		static const char bad[] = "{\"request_error\": \"unknown request\"}\n";

		if (write(fd, bad, sizeof(bad) - 1) < 0)
			pr_debug("control: %s\n", strerror(errno));
		close(fd);
		return;
	}
	reply = xs_agent_status_json(a);
	if (reply) {
		size_t len = strlen(reply);

		reply[len] = '\n'; /* the NUL goes: the length is known */
		if (write(fd, reply, len + 1) < 0)
			pr_debug("control: %s\n", strerror(errno));
		free(reply);
	}
	close(fd);
}

int xs_agent_control(const char *run_dir, const char *request, char **reply)
{
	char path[PATH_MAX], *buf;
	size_t have = 0;
	ssize_t n;
	int fd;

	if (strcmp(request, "drain") && strcmp(request, "undrain") && strcmp(request, "status")) {
		static const char *const known[] = { "drain", "undrain", "status" };
		struct xs_suggest sg;
		char hint[96];
		int i;

		xs_suggest_init(&sg, request, strlen(request));
		for (i = 0; i < 3; i++)
			xs_suggest_add(&sg, known[i], strlen(known[i]));
		pr_warn("agent: unknown request '%s'%s (drain, undrain or status)\n", request,
			xs_suggest_hint(&sg, NULL, hint, sizeof(hint)));
		return -EINVAL;
	}
	*reply = NULL;
	snprintf(path, sizeof(path), "%s/agent.sock", run_dir);
	fd = xs_unix_connect(path, XS_CTL_TIMEOUT_S);
	if (fd < 0) {
		pr_warn("no agent answers at %s: %s (is `xdpsteer agent` running with this "
			"--run-dir? the systemd unit's agent for IFACE: `xdpsteer agent %s IFACE`)\n",
			path, strerror(-fd), request);
		return fd;
	}
	buf = malloc(XS_CTL_MAX_REPLY);
	if (!buf || dprintf(fd, "%s\n", request) < 0) {
		free(buf);
		close(fd);
		return -EIO;
	}
	while (have < XS_CTL_MAX_REPLY - 1 &&
	       (n = read(fd, buf + have, XS_CTL_MAX_REPLY - 1 - have)) > 0)
		have += (size_t)n;
	close(fd);
	buf[have] = 0;
	if (!have) {
		pr_warn("the agent at %s gave no answer\n", path);
		free(buf);
		return -EIO;
	}
	*reply = buf;
	return 0;
}
