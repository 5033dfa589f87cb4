// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* --json: documents built with json-c and printed once (json.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "json.h"
#include "log.h"

void xj_add(xs_json *o, const char *key, xs_json *val)
{
	if (!o || json_object_object_add(o, key, val))
		json_object_put(val);
}

void xj_str(xs_json *o, const char *key, const char *s)
{
	xj_add(o, key, s ? json_object_new_string(s) : NULL);
}

void xj_u64(xs_json *o, const char *key, __u64 v)
{
	xj_add(o, key, json_object_new_uint64(v));
}

void xj_int(xs_json *o, const char *key, long long v)
{
	xj_add(o, key, json_object_new_int64(v));
}

void xj_bool(xs_json *o, const char *key, bool v)
{
	xj_add(o, key, json_object_new_boolean(v));
}

void xj_dbl(xs_json *o, const char *key, double v, const char *fmt)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, v);
	xj_add(o, key, json_object_new_double_s(v, buf));
}

void xj_push(xs_json *a, xs_json *val)
{
	if (!a || json_object_array_add(a, val))
		json_object_put(val);
}

int xs_json_print(const struct xs_args *a, xs_json *doc)
{
	int flags = JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE;
	const char *s;
	int err = 0;

	if (a && xs_flag(a, XS_OPT_PRETTY))
		flags |= JSON_C_TO_STRING_PRETTY;
	s = doc ? json_object_to_json_string_ext(doc, flags) : NULL;
	if (!s) {
		pr_warn("out of memory building the JSON output\n");
		json_object_put(doc);
		return -ENOMEM;
	}
	if (fputs(s, stdout) == EOF || fputc('\n', stdout) == EOF || fflush(stdout)) {
		err = -errno;
		pr_warn("cannot write the output: %s\n", strerror(errno));
	}
	json_object_put(doc);
	return err;
}

int xs_capture_stdout(int (*fn)(void *ctx), void *ctx, char **text)
{
	FILE *saved = stdout, *mem;
	size_t len;
	int err;

	*text = NULL;
	fflush(stdout);
	mem = open_memstream(text, &len);
	if (!mem)
		return -ENOMEM;
	/* glibc's stdout is an assignable FILE *: whatever @fn prints lands in @mem. */
	stdout = mem;
	err = fn(ctx);
	stdout = saved;
	if (fclose(mem) && !err)
		err = -ENOMEM;
	return err;
}

/*
 * A change's "KEY OLD -> NEW, KEY OLD -> NEW" after its ": " (plan.c says
 * each so) as [{"key", "from", "to"}]; NULL when the line has none.
 */
static xs_json *xs_plan_fields(const char *text)
{
	const char *p = strstr(text, ": "), *arrow, *end, *sp;
	xs_json *arr = NULL;

	p = p ? p + 2 : text;
	for (; *p; p = *end ? end + 2 : end) {
		xs_json *f;
		char *s;

		end = strstr(p, ", ");
		if (!end)
			end = p + strlen(p);
		arrow = strstr(p, " -> ");
		sp = strchr(p, ' ');
		if (!arrow || arrow >= end || !sp || sp >= arrow)
			continue;
		f = xj_obj();
		s = strndup(p, (size_t)(sp - p));
		xj_str(f, "key", s);
		free(s);
		s = strndup(sp + 1, (size_t)(arrow - sp - 1));
		xj_str(f, "from", s);
		free(s);
		s = strndup(arrow + 4, (size_t)(end - arrow - 4));
		xj_str(f, "to", s);
		free(s);
		if (!arr)
			arr = xj_arr();
		xj_push(arr, f);
	}
	return arr;
}

/* The object a change line names: its first word, or "settings" for the pool's keys. */
static void xs_plan_change(xs_json *changes, const char *line)
{
	static const char *const objects[] = { "target", "service", "backend" };
	const char *ops = "+-~", *op_names[] = { "add", "remove", "change" };
	const char *obj = "settings", *text = line + 2;
	xs_json *c = xj_obj();
	size_t i, n;

	for (i = 0; i < 3; i++) {
		n = strlen(objects[i]);
		if (!strncmp(text, objects[i], n) && text[n] == ' ')
			obj = objects[i];
	}
	xj_str(c, "op", op_names[strchr(ops, line[0]) - ops]);
	xj_str(c, "object", obj);
	xj_str(c, "text", text);
	if (line[0] == '~') {
		xs_json *f = xs_plan_fields(text);

		if (f)
			xj_add(c, "changed", f);
	}
	xj_push(changes, c);
}

/*
 * "NAME: 24.95% of new flows change target (100000 sampled); ...", "NAME: all
 * flows (...)" or "NAME: nothing (...)" (an empty pool stays empty).
 */
static void xs_plan_move(xs_json *moves, const char *line)
{
	const char *colon = strstr(line, ": ");
	xs_json *m = xj_obj();
	unsigned long sampled = 0;
	double pct = 100;
	char *pool;

	if (!colon)
		colon = line + strlen(line);
	pool = strndup(line, (size_t)(colon - line));
	xj_str(m, "pool", pool);
	free(pool);
	if (*colon && !strncmp(colon + 2, "nothing", 7)) {
		pct = 0;
	} else if (*colon && strncmp(colon + 2, "all flows", 9)) {
		char *end;

		pct = strtod(colon + 2, &end);
		end = strstr(end, " (");
		sampled = end ? strtoul(end + 2, NULL, 10) : 0;
	}
	xj_dbl(m, "share", pct / 100, "%.4f");
	if (sampled)
		xj_u64(m, "sampled", sampled);
	else
		xj_str(m, "sampled", NULL); /* every flow moves, or none: none needed sampling */
	xj_push(moves, m);
}

/*
 * The commit's text (commit.c) line by line: "IFACE:" or "plan for IFACE
 * from FILE:", then "  X change" per change (X: + - ~), "  no changes",
 * "  moves POOL: ...", and "applied N changes to IFACE" or "dry run: ...".
 */
xs_json *xs_plan_json(const char *text, const char *ifname, const char *file, bool dry_run)
{
	xs_json *doc = xj_obj(), *changes = xj_arr(), *moves = xj_arr(), *notes = xj_arr();
	const char *p = text ? text : "", *nl;
	unsigned long applied = 0;
	char line[1024];

	for (; *p; p = *nl ? nl + 1 : nl) {
		size_t n;

		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		n = (size_t)(nl - p) < sizeof(line) - 1 ? (size_t)(nl - p) : sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = 0;
		if (!n || !strcmp(line, "  no changes") || !strncmp(line, "dry run: ", 9) ||
		    (line[n - 1] == ':' && line[0] != ' '))
			continue;
		if (n > 3 && line[0] == ' ' && line[1] == ' ' && strchr("+-~", line[2]) &&
		    line[3] == ' ')
			xs_plan_change(changes, line + 2);
		else if (!strncmp(line, "  moves ", 8))
			xs_plan_move(moves, line + 8);
		else if (!strncmp(line, "applied ", 8))
			applied = strtoul(line + 8, NULL, 10);
		else
			xj_push(notes, json_object_new_string(line));
	}
	xj_str(doc, "ifname", ifname);
	if (file)
		xj_str(doc, "file", file);
	xj_add(doc, "changes", changes);
	xj_add(doc, "moves", moves);
	xj_bool(doc, "dry_run", dry_run);
	xj_u64(doc, "applied", applied);
	if (json_object_array_length(notes))
		xj_add(doc, "notes", notes);
	else
		json_object_put(notes);
	return doc;
}
