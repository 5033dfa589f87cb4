// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * agent: the daemon (user/agent/, docs/fleet.md), and the requests a running
 * agent answers on its control socket: agent drain|undrain|status.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "agent.h"
#include "commands.h"
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

int xs_cmd_agent(const struct xs_args *a)
{
	struct xs_agent_opts o = {
		.prefix = xs_arg(a, "prefix") ?: XS_AGENT_PREFIX,
		.host = xs_arg(a, "host"),
		.run_dir = xs_arg(a, "run-dir"),
		.bird = xs_arg(a, "bird"),
		.vip_dev = xs_arg(a, "vip-dev") ?: XS_AGENT_VIP_DEV,
		.metrics = xs_arg(a, "metrics"),
		.lease_ttl = XS_AGENT_LEASE_TTL,
		.etcd = {
			.endpoints = xs_arg(a, "etcd"),
			.cacert = xs_arg(a, "cacert"),
			.cert = xs_arg(a, "cert"),
			.key = xs_arg(a, "key"),
			.user = xs_arg(a, "user"),
		},
	};
	struct sockaddr_storage metrics_addr;
	char run_dir[PATH_MAX];
	socklen_t metrics_len;
	char hostname[256];
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
	/* Without a source, a request word goes to the running agent; else it names an interface. */
	if (!o.n_files && !o.etcd.endpoints && o.n_ifaces == 1 &&
	    (!strcmp(o.ifaces[0], "drain") || !strcmp(o.ifaces[0], "undrain") ||
	     !strcmp(o.ifaces[0], "status")))
		return xs_agent_control(o.run_dir, o.ifaces[0]);
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
	if ((s = xs_arg(a, "lease-ttl"))) {
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
	if ((s = xs_arg(a, "password-file"))) {
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
