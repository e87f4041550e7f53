/* Common includes of the training tests (cmocka). */
#ifndef TR_TEST_H
#define TR_TEST_H
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static inline uint64_t tr_rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* uniform in [lo, hi) */
static inline float tr_uniform(uint64_t *s, float lo, float hi)
{
	return lo + (hi - lo) * ((float)(tr_rng(s) >> 40) / 16777216.0f);
}

/* Make a private directory for a test with mkdtemp(3) under $TMPDIR (or
 * /tmp), named prefix and a random suffix; its path goes into dir.
 * 0 or -1, as cmocka's setup wants. */
static inline int tr_tmpdir(char *dir, size_t size, const char *prefix)
{
	const char *tmp = getenv("TMPDIR");

	/* mkdtemp replaces the six X with random characters */
	snprintf(dir, size, "%s/%s.XXXXXX", tmp ? tmp : "/tmp", prefix);
	return mkdtemp(dir) ? 0 : -1;
}

/* dir/name, in one of four buffers used in turn. */
static inline const char *tr_path(const char *dir, const char *name)
{
	static char p[4][1200];
	static unsigned k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

/* Remove dir and all in it; 0 or -1. */
static inline int tr_rmdir(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}
#endif
