/* bench_swarm - the device side of training on several devices
 * (docs/training.md, "Several devices", "Scaling"):
 *
 *   bench_swarm STEPS   784-128-10, batch 32, Adam, Fashion-MNIST: STEPS
 *                       steps on one device accumulating 4 micro-batches,
 *                       then on 2 devices of 2 and 4 devices of 1 (the
 *                       same global batch, the same bits: checked)
 *
 * Prints "BENCH swarm.speedup_N <v> x": one device's cycles per step over
 * the most cycles any of the N devices spent in the step (the step's
 * device time when the devices run at the same time). The devices'
 * passes are the same wherever they are driven from (threads or MPI
 * ranks), so the figure is the one of both. WSE_BENCH_URI picks the
 * device (default sim:board=sim-4x4,model=fast), TR_FM_DIR the dataset. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wsehost_train.h"

#define BS_K 4 /* micro-batches of the global batch */

/* STEPS steps on n devices of BS_K / n micro-batches: the device cycles
 * per step (the most of any device) into *cyc, layer 0's weights into w. */
static int run(unsigned n, unsigned steps, double *cyc, float *w, size_t nw)
{
	const char *uri = getenv("WSE_BENCH_URI");
	const char *fm = getenv("TR_FM_DIR");
	struct wse_train_spec s;
	struct wse_train_opts o = { .size = sizeof(o), .num_devices = n };
	wse_train *t;
	char err[512];
	uint64_t most = 0;

	wse_train_spec_init(&s, sizeof(s));
	s.num_layers = 2;
	s.widths[0] = 784;
	s.widths[1] = 128;
	s.widths[2] = 10;
	s.optimizer = "adam";
	s.lr = 0.001f;
	s.batch_size = 32;
	s.micro_batches = BS_K / n;
	s.backend = "mesh";
	s.device = uri && *uri ? uri : "sim:board=sim-4x4,model=fast";
	s.data_dir = fm && *fm ? fm : "/usr/share/datasets/fashion-mnist";
	s.data_shuffle = 0;
	if (wse_train_create_model(&t, &s, &o, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench_swarm: %u devices: %s\n", n, err);
		return -1;
	}
	for (unsigned k = 0; k < steps; k++) {
		struct wse_train_metrics m = { .size = sizeof(m) };

		if (wse_train_step(t, &m) < 0) {
			fprintf(stderr, "bench_swarm: %u devices: %s\n", n, wse_train_last_error(t));
			wse_train_destroy(t);
			return -1;
		}
		most += m.device_cycles_max;
	}
	*cyc = (double)most / steps;
	int rc = wse_train_get_tensor(t, "layer0.weight", w, nw);

	wse_train_destroy(t);
	return rc < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	unsigned steps = argc > 1 ? (unsigned)atoi(argv[1]) : 3;
	const size_t nw = 784 * 128;
	float *w1 = malloc(nw * sizeof(float)), *wn = malloc(nw * sizeof(float));
	double c1, cn;

	if (!steps || !w1 || !wn || run(1, steps, &c1, w1, nw))
		return 1;
	printf("one device, %u micro-batches: %.0f cycles/step\n", BS_K, c1);
	for (unsigned n = 2; n <= BS_K; n *= 2) {
		if (run(n, steps, &cn, wn, nw))
			return 1;
		if (memcmp(w1, wn, nw * sizeof(float))) {
			fprintf(stderr, "bench_swarm: %u devices: the weights differ from one device's\n", n);
			return 1;
		}
		printf("%u devices of %u micro-batches: at most %.0f cycles/step on a device\n", n,
		       BS_K / n, cn);
		printf("BENCH swarm.speedup_%u %.3f x\n", n, c1 / cn);
	}
	free(w1);
	free(wn);
	return 0;
}
