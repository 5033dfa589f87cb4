// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The configuration file parser (config.h). The whole file is read and
 * checked before anyone touches a map, so a mistake anywhere leaves the
 * running state alone. Each line becomes a model edit (model.h); the edit's
 * own message is captured and prefixed with FILE:LINE.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "config.h"
#include "log.h"
#include "suggest.h"

#define XS_CFG_MAX_TOK 64 /* a service line with every key, its check's too, is 46 */
#define XS_N_SETTINGS 7
#define XS_SET_SEED 0
#define XS_SET_SEED_FILE 6

/* The sources being read into one model. */
struct xs_cfg {
	const char *file;		/* the source being read: errors are FILE:LINE */
	int nr_cpus;
	struct xs_model *m;
	struct xs_settings set;		/* applied to the model at the end */
	int seen[XS_N_SETTINGS];	/* line of each setting, 0: not set */
	const char *seen_in[XS_N_SETTINGS]; /* ... and its source */
	int last;			/* the last line read */
	const struct stat *st;		/* the file being read; NULL for text in memory */
};

static void xs_cfg_err(const struct xs_cfg *c, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void xs_cfg_err(const struct xs_cfg *c, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: ", c->file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Run a parser or model edit; on failure report its message at @line. */
#define XS_CFG_DO(c, line, call)                                            \
	({                                                                  \
		char __msg[256];                                            \
		int __err;                                                  \
		xs_log_capture(__msg, sizeof(__msg));                       \
		__err = (call);                                             \
		xs_log_capture(NULL, 0);                                    \
		if (__err)                                                  \
			xs_cfg_err(c, line, "%s", __msg);                   \
		__err;                                                      \
	})

/*
 * The "key value" pairs and flags after an object's fixed words, each at
 * most once, through the object's own setter (@keys says which take a value).
 */
static int xs_cfg_keys(const struct xs_cfg *c, int line, const char *what,
		       const struct xs_key *keys, char **tok, int ntok, xs_key_setter set,
		       void *spec)
{
	unsigned int seen = 0;
	int i, j, k;

	for (i = 0; i < ntok; i = j) {
		for (k = 0; keys[k].opt.name && strcmp(keys[k].opt.name, tok[i]); k++)
			;
		if (keys[k].opt.name && (seen & (1U << k))) {
			xs_cfg_err(c, line, "%s: '%s' given twice", what, tok[i]);
			return -EINVAL;
		}
		seen |= 1U << k;
		j = i + 1;
		if (keys[k].opt.name && keys[k].opt.arg) {
			if (j >= ntok) {
				xs_cfg_err(c, line, "%s: '%s' needs a value", what, tok[i]);
				return -EINVAL;
			}
			j++;
		}
		if (XS_CFG_DO(c, line, set(spec, tok[i], j == i + 2 ? tok[i + 1] : NULL)))
			return -EINVAL;
	}
	return 0;
}

static int xs_cfg_target(struct xs_cfg *c, int line, char **tok, int ntok)
{
	struct xs_target_spec s;

	if (ntok < 3) {
		xs_cfg_err(c, line, "target: want 'target cpu N' or 'target dev IFNAME'");
		return -EINVAL;
	}
	if (XS_CFG_DO(c, line, xs_target_spec_init(&s, tok[1], tok[2], c->nr_cpus)) ||
	    xs_cfg_keys(c, line, "target", xs_target_keys, tok + 3, ntok - 3, xs_target_key, &s))
		return -EINVAL;
	return XS_CFG_DO(c, line, xs_model_target_add(c->m, &s, line));
}

static int xs_cfg_service(struct xs_cfg *c, int line, char **tok, int ntok)
{
	struct xs_service_spec s;

	if (ntok < 2) {
		xs_cfg_err(c, line, "service: want 'service VIP:PORT/PROTO [key value]...'");
		return -EINVAL;
	}
	if (XS_CFG_DO(c, line, xs_service_spec_init(&s, tok[1])) ||
	    xs_cfg_keys(c, line, "service", xs_service_keys, tok + 2, ntok - 2, xs_service_key,
			&s))
		return -EINVAL;
	return XS_CFG_DO(c, line, xs_model_service_add(c->m, &s, line));
}

static int xs_cfg_backend(struct xs_cfg *c, int line, char **tok, int ntok)
{
	struct xs_backend_spec s;

	if (ntok < 3) {
		xs_cfg_err(c, line, "backend: want 'backend VIP:PORT/PROTO IP [weight W] [drain]'");
		return -EINVAL;
	}
	if (XS_CFG_DO(c, line, xs_backend_spec_init(&s, tok[1], tok[2])) ||
	    xs_cfg_keys(c, line, "backend", xs_backend_keys, tok + 3, ntok - 3, xs_backend_key,
			&s))
		return -EINVAL;
	return XS_CFG_DO(c, line, xs_model_backend_add(c->m, &s, line));
}

/* The setting @w names, an index into xs_settings_keys, or -1. */
static int xs_cfg_setting_index(const char *w)
{
	int k;

	for (k = 0; xs_settings_keys[k].opt.name; k++)
		if (!strcmp(w, xs_settings_keys[k].opt.name))
			return k;
	return -1;
}

/* A setting ("algo jump"): exactly one value, at most once per file. */
static int xs_cfg_setting(struct xs_cfg *c, int line, int k, char **tok, int ntok)
{
	if (ntok != 2) {
		xs_cfg_err(c, line, "%s: want exactly one value", tok[0]);
		return -EINVAL;
	}
	/* seed and seed-file are one setting: the seed. */
	if (k == XS_SET_SEED_FILE || k == XS_SET_SEED) {
		int o = k == XS_SET_SEED ? XS_SET_SEED_FILE : XS_SET_SEED;

		if (c->seen[o]) {
			xs_cfg_err(c, line, "%s: the seed is already set at %s:%d", tok[0],
				   c->seen_in[o], c->seen[o]);
			return -EINVAL;
		}
	}
	if (k == XS_SET_SEED && c->st && XS_CFG_DO(c, line, xs_check_secret_file(c->file, c->st)))
		return -EPERM;
	/* A file is a state: a new key at every apply of it would re-place every new flow. */
	if (k == XS_SET_SEED && !strcmp(tok[1], "random")) {
		xs_cfg_err(c, line, "seed random: a file names its seed (32 hex digits), or none to "
			   "keep the running one; `xdpsteer seed IFACE random` rotates it");
		return -EINVAL;
	}
	if (c->seen[k] && c->seen_in[k] == c->file) {
		xs_cfg_err(c, line, "%s is already set at line %d", tok[0], c->seen[k]);
		return -EINVAL;
	}
	if (c->seen[k]) {
		xs_cfg_err(c, line, "%s is already set at %s:%d: a setting belongs to one file",
			   tok[0], c->seen_in[k], c->seen[k]);
		return -EINVAL;
	}
	c->seen[k] = line;
	c->seen_in[k] = c->file;
	return XS_CFG_DO(c, line, xs_settings_set(&c->set, tok[0], tok[1]));
}

/* Read the file whole, refusing what cannot be a configuration. */
static char *xs_cfg_read(struct xs_cfg *c, size_t *len, struct stat *out)
{
	struct stat st;
	char *buf;
	ssize_t n;
	int fd;

	fd = open(c->file, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		xs_cfg_err(c, 1, "cannot open: %s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		xs_cfg_err(c, 1, "not a regular file");
		goto fail;
	}
	if (st.st_mode & S_IWOTH) {
		xs_cfg_err(c, 1, "refusing a world-writable file: anyone on this host could rewrite "
			   "the topology (chmod o-w %s)", c->file);
		goto fail;
	}
	if (st.st_size > XS_CFG_MAX_SIZE) {
		xs_cfg_err(c, 1, "file is %lld bytes, more than the %d a configuration may have",
			   (long long)st.st_size, XS_CFG_MAX_SIZE);
		goto fail;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		xs_cfg_err(c, 1, "out of memory");
		goto fail;
	}
	/* Read one byte more than stat said: a file that grew is refused, not cut. */
	n = read(fd, buf, (size_t)st.st_size + 1);
	if (n < 0 || n > st.st_size) {
		xs_cfg_err(c, 1, n < 0 ? "cannot read: %s" : "file changed while being read%s",
			   n < 0 ? strerror(errno) : "");
		free(buf);
		goto fail;
	}
	close(fd);
	buf[n] = 0;
	*len = (size_t)n;
	*out = st;
	return buf;
fail:
	close(fd);
	return NULL;
}

/* Text only: a NUL or a control character means this is not the file meant. */
static int xs_cfg_check_text(const struct xs_cfg *c, const char *buf, size_t len)
{
	int line = 1;
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)buf[i];

		if (ch == '\n') {
			line++;
		} else if (ch == 0 || (ch < 0x20 && ch != '\t' && ch != '\r') || ch == 0x7f) {
			xs_cfg_err(c, line, "binary data (byte 0x%02x at offset %zu): this is not "
				   "a text configuration", ch, i);
			return -EINVAL;
		}
	}
	return 0;
}

static int xs_cfg_line(struct xs_cfg *c, int line, char *s)
{
	char *tok[XS_CFG_MAX_TOK + 1], *save = NULL, *p;
	int ntok = 0, k;

	p = strchr(s, '#');
	if (p)
		*p = 0;
	/* Comments may be in any language; keywords and values are ASCII. */
	for (p = s; *p; p++) {
		if ((unsigned char)*p >= 0x80) {
			xs_cfg_err(c, line, "non-ASCII character outside a comment");
			return -EINVAL;
		}
	}
	for (p = strtok_r(s, " \t\r", &save); p; p = strtok_r(NULL, " \t\r", &save)) {
		if (ntok == XS_CFG_MAX_TOK) {
			xs_cfg_err(c, line, "more than %d words on one line", XS_CFG_MAX_TOK);
			return -EINVAL;
		}
		tok[ntok++] = p;
	}
	if (!ntok)
		return 0;
	k = xs_cfg_setting_index(tok[0]);
	if (k >= 0)
		return xs_cfg_setting(c, line, k, tok, ntok);
	if (!strcmp(tok[0], "target"))
		return xs_cfg_target(c, line, tok, ntok);
	if (!strcmp(tok[0], "service"))
		return xs_cfg_service(c, line, tok, ntok);
	if (!strcmp(tok[0], "backend"))
		return xs_cfg_backend(c, line, tok, ntok);
	{
		static const char *const objects[] = { "target", "service", "backend" };
		struct xs_suggest sg;
		char hint[96];
		size_t i;

		xs_suggest_init(&sg, tok[0], strlen(tok[0]));
		for (i = 0; xs_settings_keys[i].opt.name; i++) {
			const char *name = xs_settings_keys[i].opt.name;

			xs_suggest_add(&sg, name, strlen(name));
		}
		for (i = 0; i < 3; i++)
			xs_suggest_add(&sg, objects[i], strlen(objects[i]));
		xs_cfg_err(c, line, "unknown keyword '%s'%s (want seed, algo, hand-size, "
			   "hash-fields, hand-fields, target, service or backend)", tok[0],
			   xs_suggest_hint(&sg, NULL, hint, sizeof(hint)));
	}
	return -EINVAL;
}

/* One source's lines into the model. */
static int xs_cfg_text(struct xs_cfg *c, char *buf, size_t len)
{
	int line = 1, err;
	char *s, *nl;

	c->m->source = c->file;
	err = xs_cfg_check_text(c, buf, len);
	for (s = buf; !err && s && *s; s = nl, line++) {
		nl = strchr(s, '\n');
		if (nl)
			*nl++ = 0;
		err = xs_cfg_line(c, line, s);
		c->last = line;
	}
	return err;
}

/* After every source: nothing declared is refused, then the settings go in. */
static int xs_cfg_finish(struct xs_cfg *c, int err)
{
	bool any = false;
	int k;

	for (k = 0; k < XS_N_SETTINGS; k++)
		any |= c->seen[k] != 0;
	if (!err && !c->m->n_tgt && !c->m->n_svc && !any) {
		xs_cfg_err(c, c->last, "the configuration declares nothing: applying it would "
			   "remove every target and service; refusing (to empty the interface, "
			   "list its settings with no targets, e.g. 'algo jump')");
		err = -EINVAL;
	}
	c->m->source = NULL;
	if (err) {
		xs_model_free(c->m);
		return err;
	}
	xs_model_settings(c->m, &c->set);
	c->m->hand_line = c->seen[2];
	return 0;
}

static int xs_cfg_begin(struct xs_cfg *c, int nr_cpus, struct xs_model *m)
{
	int err;

	memset(c, 0, sizeof(*c));
	c->nr_cpus = nr_cpus;
	c->m = m;
	c->last = 1;
	xs_settings_init(&c->set);
	err = xs_model_init(m);
	if (err)
		fprintf(stderr, "configuration: out of memory\n");
	return err;
}

int xs_config_parse(const struct xs_config_src *src, int n, int nr_cpus, struct xs_model *m)
{
	struct xs_cfg c;
	char *buf;
	int i, err;

	err = xs_cfg_begin(&c, nr_cpus, m);
	if (err)
		return err;
	for (i = 0; !err && i < n; i++) {
		c.file = src[i].name;
		buf = strdup(src[i].text);
		if (!buf) {
			xs_cfg_err(&c, 1, "out of memory");
			err = -ENOMEM;
			break;
		}
		err = xs_cfg_text(&c, buf, strlen(buf));
		free(buf);
	}
	return xs_cfg_finish(&c, err);
}

int xs_config_load(const char *const *files, int n, int nr_cpus, struct xs_model *m)
{
	struct stat st;
	struct xs_cfg c;
	size_t len;
	char *buf;
	int i, err;

	err = xs_cfg_begin(&c, nr_cpus, m);
	if (err)
		return err;
	for (i = 0; !err && i < n; i++) {
		c.file = files[i];
		buf = xs_cfg_read(&c, &len, &st);
		if (!buf) {
			err = -EINVAL;
			break;
		}
		c.st = &st;
		err = xs_cfg_text(&c, buf, len);
		c.st = NULL;
		free(buf);
	}
	return xs_cfg_finish(&c, err);
}
