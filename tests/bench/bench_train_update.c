/* bench_train_update - the host update beside the device (docs/training.md,
 * "The host update beside the device"):
 *
 *   bench_train_update STEPS   784-128-10, batch 32, Adam, Fashion-MNIST in
 *                              file order, on the mesh backend: STEPS steps
 *                              with runtime.host_update = overlap, then the
 *                              same with serial; the weights and optimizer
 *                              state of both must be the same bits
 *
 * Prints "BENCH <name> <value> <unit>" lines: train.host_update_hidden, the
 * fraction of the host's update time that no pass or call waited for
 * (1 - waited / update time, the overlapped run), the update time and
 * the time waited for it per step. WSE_BENCH_URI picks the device
 * (default sim:board=sim-4x4,model=fast), TR_FM_DIR the dataset. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "train_stats.h"
#include "wsehost_train.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct run {
	wse_train *t;
	struct train_update_stats st;
	double sec_per_step;
	float loss;
};

static int run(struct run *r, const char *mode, unsigned steps)
{
	const char *uri = getenv("WSE_BENCH_URI");
	const char *fm = getenv("TR_FM_DIR");
	struct wse_train_spec s;
	char err[512];

	wse_train_spec_init(&s, sizeof(s));
	s.num_layers = 2;
	s.widths[0] = 784;
	s.widths[1] = 128;
	s.widths[2] = 10;
	s.optimizer = "adam";
	s.lr = 0.001f;
	s.batch_size = 32;
	s.backend = "mesh";
	s.device = uri ? uri : "sim:board=sim-4x4,model=fast";
	s.data_dir = fm ? fm : "/usr/share/datasets/fashion-mnist";
	s.host_update = mode;
	if (wse_train_create_model(&r->t, &s, NULL, err, sizeof(err))) {
		fprintf(stderr, "bench_train_update: %s\n", err);
		return -1;
	}
	struct wse_train_metrics m = { .size = sizeof(m) };

	/* the first step writes the parameter blocks: not measured */
	if (wse_train_step(r->t, &m))
		goto fail;
	struct train_update_stats s0;
	double t0 = now_s();

	if (train_update_stats(r->t, &s0))
		goto fail;
	for (unsigned k = 0; k < steps; k++)
		if (wse_train_step(r->t, &m))
			goto fail;
	if (train_update_stats(r->t, &r->st)) /* waits for the last update */
		goto fail;
	r->sec_per_step = (now_s() - t0) / steps;
	r->st.updates -= s0.updates;
	r->st.busy_ms -= s0.busy_ms;
	r->st.exposed_ms -= s0.exposed_ms;
	r->loss = m.loss;
	return 0;
fail:
	fprintf(stderr, "bench_train_update: %s: %s\n", mode, wse_train_last_error(r->t));
	return -1;
}

/* Every tensor of a and b the same bits. */
static int same(wse_train *a, wse_train *b)
{
	const char *name;
	int n, ok = 1;

	for (unsigned k = 0; ok && (n = wse_train_tensor_info(a, k, &name, NULL, NULL)) >= 0; k++) {
		float *x = malloc((size_t)n * 4), *y = malloc((size_t)n * 4);

		ok = x && y && !wse_train_get_tensor(a, name, x, (size_t)n) &&
		     !wse_train_get_tensor(b, name, y, (size_t)n) && !memcmp(x, y, (size_t)n * 4);
		if (!ok)
			fprintf(stderr, "bench_train_update: tensor %s differs\n", name);
		free(x);
		free(y);
	}
	return ok;
}

int main(int argc, char **argv)
{
	unsigned steps = argc > 1 ? (unsigned)atoi(argv[1]) : 20;
	struct run o = { 0 }, s = { 0 };
	int rc = 1;

	if (steps == 0) {
		fprintf(stderr, "usage: bench_train_update STEPS\n");
		return 2;
	}
	/* serial first with a second argument "serial-first" (the order's
	 * effect on the wall times) */
	if (argc > 2 && !strcmp(argv[2], "serial-first")) {
		if (run(&s, "serial", steps) || run(&o, "overlap", steps))
			goto out;
	} else if (run(&o, "overlap", steps) || run(&s, "serial", steps)) {
		goto out;
	}
	if (!same(o.t, s.t) || memcmp(&o.loss, &s.loss, 4)) {
		fprintf(stderr, "bench_train_update: overlap and serial differ\n");
		goto out;
	}
	printf("BENCH train.host_update_hidden %.3f fraction\n",
	       o.st.busy_ms > 0 ? 1.0 - o.st.exposed_ms / o.st.busy_ms : 0.0);
	printf("BENCH train.host_update_ms_per_step %.3f ms\n", o.st.busy_ms / steps);
	printf("BENCH train.host_update_waited_ms_per_step %.3f ms\n", o.st.exposed_ms / steps);
	/* wall times: the run that goes first has measured slower on a
	 * loaded machine, whichever it is; not a figure of the overlap */
	printf("bench_train_update: %u steps each, the same bits (loss %.6f); serial update %.3f ms per step; wall %.1f ms per step with the overlap, %.1f serial\n",
	       steps, o.loss, s.st.busy_ms / steps, o.sec_per_step * 1e3, s.sec_per_step * 1e3);
	rc = 0;
out:
	wse_train_destroy(o.t);
	wse_train_destroy(s.t);
	return rc;
}
