// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The operator's habits the CLI serves without a netns: "did you mean" for a
 * mistyped name (suggest.c), and the agent's lines stamped with the time
 * unless the journal reads them (log.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "log.h"
#include "suggest.h"
#include "test.h"

static const char *const keys[] = { "algo", "hand-size", "encap", "tunnel-src", "tunnel-src6",
				    "quic", "second-chance", "second-chance-window", NULL };

static const char *hint(const char *word)
{
	static char buf[96];
	struct xs_suggest sg;
	int i;

	xs_suggest_init(&sg, word, strlen(word));
	for (i = 0; keys[i]; i++)
		xs_suggest_add(&sg, keys[i], strlen(keys[i]));
	return xs_suggest_hint(&sg, NULL, buf, sizeof(buf));
}

TEST(distance)
{
	ASSERT_EQ(xs_edit_distance("encp", 4, "encap", 5), 1, "a letter left out");
	ASSERT_EQ(xs_edit_distance("ecnap", 5, "encap", 5), 1, "two letters swapped");
	ASSERT_EQ(xs_edit_distance("encap", 5, "encap", 5), 0, "the same");
	ASSERT_EQ(xs_edit_distance("", 0, "gue", 3), 3, "from nothing");
	ASSERT_EQ(xs_edit_distance("kitten", 6, "sitting", 7), 3, "the textbook pair");
}

TEST(did_you_mean)
{
	const char *h = hint("encp");

	ASSERT_TRUE(!strcmp(h, "; did you mean 'encap'?"), "encp: got '%s'", h);
	h = hint("secnod-chance");
	ASSERT_TRUE(!strcmp(h, "; did you mean 'second-chance'?"), "secnod-chance: got '%s'", h);
	h = hint("tunnel-src7");
	ASSERT_TRUE(!strcmp(h, "; did you mean 'tunnel-src'?"), "the first of two as near: got '%s'", h);
	/* Nothing near: no guess, rather than a misleading one. */
	h = hint("weight");
	ASSERT_TRUE(!strcmp(h, ""), "weight is near no key: got '%s'", h);
	h = hint("qu");
	ASSERT_TRUE(!strcmp(h, ""), "two letters of quic are not a slip: got '%s'", h);
}

/* What the stamped stream writes for @a then @b, read back from a pipe. */
static char *stamped(const char *a, const char *b)
{
	static char out[512];
	int p[2];
	FILE *f;
	ssize_t n;

	if (pipe(p))
		return NULL;
	f = xs_log_stamped(p[1]);
	if (!f)
		return NULL;
	fputs(a, f);
	fputs(b, f);
	fclose(f);
	close(p[1]);
	n = read(p[0], out, sizeof(out) - 1);
	close(p[0]);
	out[n > 0 ? n : 0] = 0;
	return out;
}

/* "2026-12-07T00:41:46.123Z " */
static int is_stamp(const char *s)
{
	return strlen(s) >= 25 && s[4] == '-' && s[10] == 'T' && s[19] == '.' && s[23] == 'Z' &&
	       s[24] == ' ';
}

TEST(log_stamped)
{
	char *s = stamped("agent: one\nagent: tw", "o\n");

	if (!ASSERT_TRUE(s, "the log captured"))
		return;
	ASSERT_TRUE(is_stamp(s) && !strncmp(s + 25, "agent: one\n", 11),
		    "the first line stamped: '%s'", s);
	ASSERT_TRUE(is_stamp(s + 36) && !strcmp(s + 61, "agent: two\n"),
		    "a line written in two pieces, stamped once: '%s'", s);
}

TEST(log_journal)
{
	char env[64];
	struct stat st;
	int p[2];

	ASSERT_TRUE(!pipe(p) && !fstat(p[1], &st), "a pipe");
	unsetenv("JOURNAL_STREAM");
	ASSERT_TRUE(!xs_log_to_journal(p[1]), "no JOURNAL_STREAM: not the journal");
	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", env, 1);
	ASSERT_TRUE(xs_log_to_journal(p[1]), "JOURNAL_STREAM names this pipe: the journal");
	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + 1);
	setenv("JOURNAL_STREAM", env, 1);
	ASSERT_TRUE(!xs_log_to_journal(p[1]), "another stream's JOURNAL_STREAM (a child of the "
		    "service writing elsewhere): not the journal");
	unsetenv("JOURNAL_STREAM");
	close(p[0]);
	close(p[1]);
}

TEST_MAIN("test_suggest", NULL, NULL)
