/* bench_swarm - training on several devices (docs/training.md, "Scaling"):
 *
 *   bench_swarm STEPS         784-128-10, batch 32, Adam, Fashion-MNIST:
 *                             STEPS steps on one device accumulating 4
 *                             micro-batches, then on 2 devices of 2 and 4
 *                             devices of 1, threads of this process (the
 *                             same global batch, the same bits: checked)
 *   mpirun -np 3 bench_swarm --mpi STEPS
 *                             2 devices of 2 on ranks 1 and 2 (built with
 *                             MPI, BENCH_MPI)
 *
 * Prints "BENCH <name> <value> <unit>" lines: swarm.speedup_N, one
 * device's cycles per step over the most cycles any of the N devices spent
 * in the step (the step's device time when the devices run at the same
 * time; the devices' passes are the same wherever they are driven from);
 * swarm.host_overhead_ms (2 devices, threads) and swarm.mpi_overhead_ms
 * (2 devices on MPI ranks): the wall time of a step less the slowest pass
 * of each round (train_stats.h), that is the host's part of a step:
 * sending the weights and examples, the reduction, the update the passes
 * waited for. WSE_BENCH_URI picks the device (default
 * sim:board=sim-4x4,model=fast), TR_FM_DIR the dataset, TMPDIR where the
 * params file goes. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "train_stats.h"
#include "wsehost_train.h"
#ifdef BENCH_MPI
#include "train_mpi.h"
#endif

#define BS_K 4 /* micro-batches of the global batch */

struct res {
	double cycles;  /* most device cycles of a step */
	double host_ms; /* host's part of a step */
};

/* STEPS steps on n devices of BS_K / n micro-batches (mpi: devices on
 * ranks 1..n); layer 0's weights into w. */
static int run(unsigned n, int mpi, unsigned steps, struct res *r, float *w, size_t nw)
{
	const char *uri = getenv("WSE_BENCH_URI"), *fm = getenv("TR_FM_DIR"), *tmp = getenv("TMPDIR");
	char pf[512], err[512];
	struct wse_train_opts o = { .size = sizeof(o), .num_devices = n };
	struct train_update_stats st;
	wse_train *t;
	uint64_t most = 0;
	int rc;

	snprintf(pf, sizeof(pf), "%s/bench_swarm.%d.params", tmp && *tmp ? tmp : "/tmp", (int)getpid());
	FILE *f = fopen(pf, "w");

	if (!f) {
		perror(pf);
		return -1;
	}
	fprintf(f, "model.layers = 784, 128, 10\nmodel.init_seed = 1\ndata.dir = %s\n"
		   "data.shuffle = 0\ntrain.batch_size = 32\ntrain.micro_batches = %u\n"
		   "optimizer.name = adam\noptimizer.lr = 0.001\nruntime.backend = mesh\n"
		   "runtime.device = %s\n",
		fm && *fm ? fm : "/usr/share/datasets/fashion-mnist", BS_K / n,
		uri && *uri ? uri : "sim:board=sim-4x4,model=fast");
	fclose(f);
#ifdef BENCH_MPI
	if (mpi)
		rc = train_mpi_create(&t, pf, &o, err, sizeof(err));
	else
#endif
		rc = wse_train_create(&t, pf, &o, err, sizeof(err));
	(void)mpi;
	remove(pf);
	if (rc < 0) {
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
	rc = train_update_stats(t, &st);
	if (!rc)
		rc = wse_train_get_tensor(t, "layer0.weight", w, nw);
	if (rc < 0)
		fprintf(stderr, "bench_swarm: %s\n", wse_train_last_error(t));
	r->cycles = (double)most / steps;
	r->host_ms = (st.step_ms - st.pass_ms) / (double)st.steps;
	wse_train_destroy(t);
	return rc < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	int mpi = argc > 1 && !strcmp(argv[1], "--mpi");
	unsigned steps = argc > 1 + mpi ? (unsigned)atoi(argv[1 + mpi]) : 3;
	const size_t nw = 784 * 128;
	float *w1 = malloc(nw * sizeof(float)), *wn = malloc(nw * sizeof(float));
	struct res r1, rn;

	if (!steps || !w1 || !wn)
		return 1;
	if (mpi) {
#ifdef BENCH_MPI
		int rank = 0, size = 0;
		char err[512];

		if (train_mpi_init(&argc, &argv, &rank, &size, err, sizeof(err))) {
			fprintf(stderr, "bench_swarm: rank %d: %s\n", rank, err);
			train_mpi_abort(1);
		}
		if (size != 3) {
			fprintf(stderr, "bench_swarm: --mpi wants 3 ranks (mpirun -np 3)\n");
			train_mpi_abort(2);
		}
		if (rank) {
			if (train_mpi_serve(err, sizeof(err))) {
				fprintf(stderr, "bench_swarm: rank %d: %s\n", rank, err);
				train_mpi_abort(1);
			}
		} else {
			if (run(2, 1, steps, &rn, wn, nw))
				train_mpi_abort(1);
			printf("2 devices on MPI ranks 1, 2: %.0f cycles/step at most on a device\n",
			       rn.cycles);
			printf("BENCH swarm.mpi_overhead_ms %.2f ms\n", rn.host_ms);
		}
		train_mpi_finish();
		return 0;
#else
		fprintf(stderr, "bench_swarm: built without MPI\n");
		return 2;
#endif
	}
	if (run(1, 0, steps, &r1, w1, nw))
		return 1;
	printf("one device, %u micro-batches: %.0f cycles/step\n", BS_K, r1.cycles);
	for (unsigned n = 2; n <= BS_K; n *= 2) {
		if (run(n, 0, steps, &rn, wn, nw))
			return 1;
		if (memcmp(w1, wn, nw * sizeof(float))) {
			fprintf(stderr, "bench_swarm: %u devices: the weights differ from one device's\n", n);
			return 1;
		}
		printf("%u devices of %u micro-batches: at most %.0f cycles/step on a device, host %.2f ms/step\n",
		       n, BS_K / n, rn.cycles, rn.host_ms);
		printf("BENCH swarm.speedup_%u %.3f x\n", n, r1.cycles / rn.cycles);
		if (n == 2)
			printf("BENCH swarm.host_overhead_ms %.2f ms\n", rn.host_ms);
	}
	free(w1);
	free(wn);
	return 0;
}
