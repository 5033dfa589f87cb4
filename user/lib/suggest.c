// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* "did you mean" (suggest.h): the optimal-string-alignment edit distance. */
#include <stdio.h>
#include <string.h>
#include "suggest.h"

/* Names are short (keys, commands): longer ones are not worth a hint. */
#define XS_SUGGEST_MAX 64

unsigned int xs_edit_distance(const char *a, size_t alen, const char *b, size_t blen)
{
	unsigned int d[XS_SUGGEST_MAX + 1][XS_SUGGEST_MAX + 1];
	size_t i, j;

	if (alen > XS_SUGGEST_MAX || blen > XS_SUGGEST_MAX)
		return (unsigned int)-1;
	for (i = 0; i <= alen; i++)
		d[i][0] = (unsigned int)i;
	for (j = 0; j <= blen; j++)
		d[0][j] = (unsigned int)j;
	for (i = 1; i <= alen; i++) {
		for (j = 1; j <= blen; j++) {
			unsigned int cost = a[i - 1] != b[j - 1], v = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			/* "ecnap": two letters swapped is one slip of the hand, not two. */
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[alen][blen];
}

void xs_suggest_init(struct xs_suggest *s, const char *word, size_t wlen)
{
	memset(s, 0, sizeof(*s));
	s->word = word;
	s->wlen = wlen;
	s->dist = (unsigned int)-1;
}

void xs_suggest_add(struct xs_suggest *s, const char *cand, size_t clen)
{
	/* One slip in a short name, two in a longer one: beyond that, a guess misleads. */
	unsigned int max = s->wlen <= 4 ? 1 : s->wlen <= 9 ? 2 : 3;
	unsigned int dist = xs_edit_distance(s->word, s->wlen, cand, clen);

	if (!dist || dist > max || dist >= clen || dist >= s->dist)
		return;
	s->best = cand;
	s->best_len = clen;
	s->dist = dist;
}

const char *xs_suggest_hint(const struct xs_suggest *s, const char *pre, char *buf, size_t len)
{
	if (!s->best)
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, "; did you mean '%s%.*s'?", pre ? pre : "", (int)s->best_len,
			 s->best);
	return buf;
}
