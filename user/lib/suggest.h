/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * "did you mean": the nearest known name to one that was refused (a key, a
 * keyword, an option, a command word), by edit distance. Every place that
 * rejects a name feeds its candidates through one struct xs_suggest, so the
 * hint reads and judges the same everywhere.
 */
#ifndef XS_SUGGEST_H
#define XS_SUGGEST_H

#include <stddef.h>

/* Insertions, deletions, substitutions and swaps of two neighbours, each 1. */
unsigned int xs_edit_distance(const char *a, size_t alen, const char *b, size_t blen);

struct xs_suggest {
	const char *word;
	size_t wlen;
	const char *best; /* the nearest candidate close enough, or NULL */
	size_t best_len;
	unsigned int dist;
};

void xs_suggest_init(struct xs_suggest *s, const char *word, size_t wlen);
/* Consider @cand (@clen chars): kept if nearer than any before and close enough. */
void xs_suggest_add(struct xs_suggest *s, const char *cand, size_t clen);
/* "; did you mean 'encap'?" (@pre before the name, e.g. "--"), or "" when none is close. */
const char *xs_suggest_hint(const struct xs_suggest *s, const char *pre, char *buf, size_t len);

#endif /* XS_SUGGEST_H */
