/* soak_train - a long training run through the API (docs/training.md,
 * "Soak"):
 *
 *   soak_train STEPS CKPT_EVERY DIR [RSS_SLACK_KB]
 *
 * trains 196-16-10 (pooled Fashion-MNIST, shuffled, batch 8, Adam) on the
 * mesh backend over $WSE_SOAK_URI (default the functional model of
 * sim-2x2) for STEPS steps. Every CKPT_EVERY steps it saves DIR/ckpt-N,
 * loads it into a second handle of the same model and checks every tensor
 * and the step against the trained handle's, bit for bit; at the end it
 * loads every checkpoint again and checks it against what was saved. It
 * prints the process's resident set (VmRSS) every STEPS / 20 steps and,
 * when STEPS reaches 10 * CKPT_EVERY, fails if the resident set ever grew
 * by more than RSS_SLACK_KB (default 4096) over its value at the first
 * checkpoint (the warm-up). Leaks are the sanitizer's or valgrind's to
 * report. Exit status 0 passed, 1 failed, 2 bad command line. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wsehost_train.h"

#define SOAK_MAX_CKPTS 64

/* Every tensor of t, the step after them, in one buffer (*len bytes). */
static float *snapshot(wse_train *t, size_t *len)
{
	size_t total = 0;
	const char *name;
	int n;

	for (unsigned k = 0; (n = wse_train_tensor_info(t, k, NULL, NULL, NULL)) >= 0; k++)
		total += (size_t)n;
	float *buf = malloc((total + 2) * sizeof(float)), *q = buf;

	if (!buf)
		return NULL;
	for (unsigned k = 0; (n = wse_train_tensor_info(t, k, &name, NULL, NULL)) >= 0; k++) {
		if (wse_train_get_tensor(t, name, q, (size_t)n)) {
			free(buf);
			return NULL;
		}
		q += n;
	}
	uint64_t st = wse_train_get_step(t);

	memcpy(q, &st, sizeof(st));
	*len = (total + 2) * sizeof(float);
	return buf;
}

static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static int create(wse_train **t, const char *backend)
{
	const char *uri = getenv("WSE_SOAK_URI");
	const char *fm = getenv("TR_FM_DIR");
	struct wse_train_spec s;
	char err[512];

	wse_train_spec_init(&s, sizeof(s));
	s.num_layers = 2;
	s.widths[0] = 196;
	s.widths[1] = 16;
	s.widths[2] = 10;
	s.optimizer = "adam";
	s.lr = 0.002f;
	s.batch_size = 8;
	s.data_dir = fm ? fm : "/usr/share/datasets/fashion-mnist";
	s.data_pool = 2;
	s.data_shuffle = 1;
	s.backend = backend;
	s.device = uri ? uri : "sim:board=sim-2x2,model=fast";
	if (!strcmp(backend, "host-reference"))
		s.device = NULL;
	if (wse_train_create_model(t, &s, NULL, err, sizeof(err))) {
		fprintf(stderr, "soak: %s\n", err);
		return -1;
	}
	return 0;
}

/* Load path into c and compare with the snapshot want. */
static int check_ckpt(wse_train *c, const char *path, const float *want, size_t len)
{
	size_t l2;

	if (wse_train_load(c, path)) {
		fprintf(stderr, "soak: %s does not load: %s\n", path, wse_train_last_error(c));
		return -1;
	}
	float *got = snapshot(c, &l2);
	int ok = got && l2 == len && !memcmp(got, want, len);

	if (!ok)
		fprintf(stderr, "soak: %s loads other tensors or another step than were saved\n",
			path);
	free(got);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	if (argc < 4 || atol(argv[1]) <= 0 || atol(argv[2]) <= 0) {
		fprintf(stderr, "usage: soak_train STEPS CKPT_EVERY DIR [RSS_SLACK_KB]\n");
		return 2;
	}
	unsigned long steps = strtoul(argv[1], NULL, 10), every = strtoul(argv[2], NULL, 10);
	const char *dir = argv[3];
	long slack = argc > 4 ? atol(argv[4]) : 4096;
	unsigned long report = steps / 20 ? steps / 20 : 1;
	int check_rss = steps >= 10 * every;
	wse_train *t = NULL, *c = NULL;
	float *saved[SOAK_MAX_CKPTS] = { 0 };
	size_t len[SOAK_MAX_CKPTS];
	char path[SOAK_MAX_CKPTS][1024];
	unsigned nck = 0;
	long base = -1, most = 0, first = -1;
	int rc = 1;
	float loss0 = 0, loss = 0;

	setvbuf(stdout, NULL, _IOLBF, 0); /* progress as it comes */
	if (steps / every > SOAK_MAX_CKPTS) {
		fprintf(stderr, "soak: at most %d checkpoints\n", SOAK_MAX_CKPTS);
		return 2;
	}
	if (create(&t, "mesh") || create(&c, "host-reference"))
		goto out;
	for (unsigned long k = 1; k <= steps; k++) {
		struct wse_train_metrics m = { .size = sizeof(m) };

		if (wse_train_step(t, &m)) {
			fprintf(stderr, "soak: step %lu: %s\n", k, wse_train_last_error(t));
			goto out;
		}
		loss0 = k == 1 ? m.loss : loss0;
		loss = m.loss;
		if (k % every == 0) {
			snprintf(path[nck], sizeof(path[nck]), "%s/ckpt-%lu", dir, k);
			if (wse_train_save(t, path[nck])) {
				fprintf(stderr, "soak: save %s: %s\n", path[nck], wse_train_last_error(t));
				goto out;
			}
			saved[nck] = snapshot(t, &len[nck]);
			if (!saved[nck] || check_ckpt(c, path[nck], saved[nck], len[nck]))
				goto out;
			nck++;
		}
		long r = rss_kb();

		if (first < 0)
			first = r;
		if (k == every)
			base = r; /* warmed up */
		if (base >= 0 && r > most)
			most = r;
		if (k % report == 0 || k == steps)
			printf("soak: step %lu loss %.4f rss %ld kB\n", k, m.loss, r);
	}
	for (unsigned q = 0; q < nck; q++)
		if (check_ckpt(c, path[q], saved[q], len[q]))
			goto out;
	printf("soak: %lu steps, loss %.4f -> %.4f; %u checkpoints saved, each loaded and checked twice\n",
	       steps, loss0, loss, nck);
	if (base >= 0)
		printf("soak: rss %ld kB after the first step, %ld kB at step %lu (warm-up), at most %ld kB after it: %+ld kB\n",
		       first, base, every, most, most - base);
	if (check_rss && most - base > slack) {
		fprintf(stderr, "soak: the resident set grew by %ld kB after the warm-up, more than %ld kB\n",
			most - base, slack);
		goto out;
	}
	rc = 0;
out:
	for (unsigned q = 0; q < nck; q++)
		free(saved[q]);
	wse_train_destroy(t);
	wse_train_destroy(c);
	return rc;
}
