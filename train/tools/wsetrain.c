/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wsetrain - train and evaluate a model with libwsehost (docs/training.md).
 *
 *   wsetrain --params FILE --model-dir DIR [--num-steps N] [--mode train|eval]
 *            [--num-devices N]
 *
 * train: resumes from DIR/model.ckpt when it exists, runs until the model
 * has done N optimizer steps, checkpoints every run.checkpoint_steps steps
 * and at the end, appends DIR/metrics.csv and draws DIR/curves.svg.
 * eval: loads DIR/model.ckpt and evaluates on the test split.
 * Built with MPI (WSETRAIN_MPI), `mpirun -np 1+N wsetrain ...` trains on N
 * devices driven by ranks 1..N, rank 0 holding MemoryX.
 * Exit status: 0 done, 1 error, 2 bad command line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wsehost_train.h"
#ifdef WSETRAIN_MPI
#include "train_mpi.h"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"usage: wsetrain --params FILE --model-dir DIR [--num-steps N]\n"
		"                [--mode train|eval] [--num-devices N]\n"
		"  --params FILE     model, data, optimizer and runtime settings (docs/training.md)\n"
		"  --model-dir DIR   checkpoint (model.ckpt), metrics.csv, curves.svg, eval.csv\n"
		"  --num-steps N     train until the model has done N steps (train mode)\n"
		"  --mode MODE       train (default) or eval\n"
		"  --num-devices N   devices trained on together (default: as many as\n"
		"                    runtime.devices lists, or 1)\n"
#ifdef WSETRAIN_MPI
		"under mpirun -np 1+N: rank 0 holds MemoryX, ranks 1..N drive a device each\n"
#endif
		);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int parse_ulong(const char *s, unsigned long long *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return (errno || *end) ? -1 : 0;
}

struct row {
	unsigned long long step;
	double loss, acc;
};

/* Keep the rows of metrics.csv up to step `upto` (after a resume the rows
 * written past the checkpoint are dropped: those steps run again). */
static int csv_trim(const char *path, unsigned long long upto)
{
	FILE *f = fopen(path, "r");
	char tmp[4200], line[512];

	if (!f)
		return 0;
	FILE *o = NULL;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) < (int)sizeof(tmp))
		o = fopen(tmp, "w");
	if (!o) {
		fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s;

		if (sscanf(line, "%llu,", &s) == 1 && s > upto)
			continue;
		if (!strchr(line, '\n'))
			continue; /* a line cut by a kill */
		fputs(line, o);
	}
	fclose(f);
	if (fclose(o) != 0)
		return -1;
	return rename(tmp, path);
}

static void write_svg(const char *dir)
{
	char p[4200];
	struct row *r = NULL;
	size_t n = 0, cap = 0;
	char line[512];

	snprintf(p, sizeof(p), "%s/metrics.csv", dir);
	FILE *f = fopen(p, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		struct row x;

		if (sscanf(line, "%llu,%lf,%lf", &x.step, &x.loss, &x.acc) != 3)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			struct row *nr = realloc(r, cap * sizeof(*r));

			if (!nr)
				break;
			r = nr;
		}
		r[n++] = x;
	}
	fclose(f);
	snprintf(p, sizeof(p), "%s/curves.svg", dir);
	f = fopen(p, "w");
	if (!f || n == 0) {
		if (f)
			fclose(f);
		free(r);
		return;
	}
	const double W = 640, H = 360, x0 = 60, y0 = 20, pw = 520, ph = 290;
	double maxl = 0, maxs = (double)r[n - 1].step, mins = (double)r[0].step;

	for (size_t k = 0; k < n; k++)
		if (r[k].loss > maxl)
			maxl = r[k].loss;
	if (maxl <= 0)
		maxl = 1;
	if (maxs <= mins)
		maxs = mins + 1;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "font-family=\"sans-serif\" font-size=\"12\">\n", W, H);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"black\"/>\n",
		x0, y0, pw, ph);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">step %llu .. %llu</text>\n", x0 + pw / 2 - 40,
		y0 + ph + 30, r[0].step, r[n - 1].step);
	fprintf(f, "<text x=\"5\" y=\"%.0f\" fill=\"#c00\">loss %.3g</text>\n", y0 + 10, maxl);
	fprintf(f, "<text x=\"5\" y=\"%.0f\" fill=\"#c00\">0</text>\n", y0 + ph);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#06c\">acc 1</text>\n", x0 + pw + 5, y0 + 10);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#06c\">0</text>\n", x0 + pw + 5, y0 + ph);
	for (int c = 0; c < 2; c++) {
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" points=\"", c ? "#06c" : "#c00");
		for (size_t k = 0; k < n; k++) {
			double v = c ? r[k].acc : r[k].loss / maxl;

			fprintf(f, "%.1f,%.1f ", x0 + pw * ((double)r[k].step - mins) / (maxs - mins),
				y0 + ph * (1 - v));
		}
		fprintf(f, "\"/>\n");
	}
	fprintf(f, "</svg>\n");
	fclose(f);
	free(r);
}

/* Which model a device URI runs on (wsetrain says so before training). */
static const char *device_model(const char *uri)
{
	if (!uri || !*uri || !strncmp(uri, "sim:", 4)) {
		if (uri && strstr(uri, "model=fast"))
			return "wsemu-fast, the functional model";
		if (uri && strstr(uri, "attach="))
			return "a running simulator";
		return "wsemu-sim, the RTL model";
	}
	return "a board";
}

static void progress(unsigned long long done, unsigned long long first,
		     unsigned long long total, double t0, float loss, double cycles, int final)
{
	static double last;
	double t = now_s();
	int tty = isatty(2);

	if (!final && t - last < (tty ? 0.1 : 5.0))
		return;
	last = t;
	double rate = (t > t0) ? (double)(done - first) / (t - t0) : 0;
	int w = 30, fill = total ? (int)(w * done / total) : w;

	char rs[32];

	/* slow devices (the simulated mesh) take seconds per step */
	if (rate >= 1.0 || rate <= 0.0)
		snprintf(rs, sizeof(rs), "%.1f steps/s", rate);
	else
		snprintf(rs, sizeof(rs), "%.1f s/step", 1.0 / rate);
	char cs[40] = "";

	if (cycles > 0)
		snprintf(cs, sizeof(cs), "  %.0f cycles/step", cycles);
	fprintf(stderr, "%s[%.*s%*s] %llu/%llu steps  %s%s  loss %.4f%s",
		tty ? "\r" : "", fill, "##############################", w - fill, "", done, total,
		rs, cs, loss, (final || !tty) ? "\n" : "");
	fflush(stderr);
}

/* Train or evaluate; mpi_devs > 0: as rank 0 of an MPI job of
 * 1 + mpi_devs ranks, device d on rank d + 1. */
static int run(int argc, char **argv, unsigned mpi_devs)
{
	static const struct option lo[] = {
		{ "params", required_argument, 0, 'p' },
		{ "num-devices", required_argument, 0, 'd' },
		{ "model-dir", required_argument, 0, 'm' },
		{ "num-steps", required_argument, 0, 'n' },
		{ "mode", required_argument, 0, 'o' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *params = NULL, *dir = NULL, *mode = "train";
	unsigned long long ndev = 0, nsteps = 0;
	int have_steps = 0, c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'p': params = optarg; break;
		case 'm': dir = optarg; break;
		case 'o': mode = optarg; break;
		case 'd':
			if (parse_ulong(optarg, &ndev) || ndev == 0 || ndev > WSE_TRAIN_MAX_DEVICES) {
				fprintf(stderr, "wsetrain: --num-devices '%s' is not an integer 1..%d\n", optarg,
					WSE_TRAIN_MAX_DEVICES);
				return 2;
			}
			break;
		case 'n':
			if (parse_ulong(optarg, &nsteps)) {
				fprintf(stderr, "wsetrain: --num-steps '%s' is not a non-negative integer\n", optarg);
				return 2;
			}
			have_steps = 1;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "wsetrain: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!params || !dir) {
		fprintf(stderr, "wsetrain: --params and --model-dir are required\n");
		usage(stderr);
		return 2;
	}
	if (strcmp(mode, "train") && strcmp(mode, "eval")) {
		fprintf(stderr, "wsetrain: --mode '%s': must be train or eval\n", mode);
		return 2;
	}
	if (!strcmp(mode, "train") && !have_steps) {
		fprintf(stderr, "wsetrain: --num-steps is required in train mode\n");
		return 2;
	}
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "wsetrain: cannot create model directory %s: %s\n", dir, strerror(errno));
		return 1;
	}
	if (mpi_devs && ndev && ndev != mpi_devs) {
		fprintf(stderr, "wsetrain: --num-devices %llu, but mpirun started %u ranks: one for MemoryX and %u devices\n",
			ndev, mpi_devs + 1, mpi_devs);
		return 2;
	}
	struct wse_train_opts opts = { .size = sizeof(opts), .model_dir = dir,
				       .num_devices = mpi_devs ? mpi_devs : (unsigned)ndev };
	char err[1024];
	wse_train *t;
	int rc;

#ifdef WSETRAIN_MPI
	if (mpi_devs)
		rc = train_mpi_create(&t, params, &opts, err, sizeof(err));
	else
#endif
		rc = wse_train_create(&t, params, &opts, err, sizeof(err));

	if (rc < 0) {
		fprintf(stderr, "wsetrain: %s\n", err);
		return 1;
	}
	char ck[4200], csv[4200];

	snprintf(ck, sizeof(ck), "%s/model.ckpt", dir);
	snprintf(csv, sizeof(csv), "%s/metrics.csv", dir);
	int have_ck = access(ck, F_OK) == 0;

	if (have_ck) {
		rc = wse_train_load(t, ck);
		if (rc < 0) {
			fprintf(stderr, "wsetrain: %s\n", wse_train_last_error(t));
			wse_train_destroy(t);
			return 1;
		}
	}
	if (!strcmp(mode, "eval")) {
		if (!have_ck) {
			fprintf(stderr, "wsetrain: no checkpoint %s to evaluate (train first)\n", ck);
			wse_train_destroy(t);
			return 1;
		}
		const char *ev = wse_train_get_param(t, "run.eval_examples");
		unsigned long long ne = 0;

		if (ev && parse_ulong(ev, &ne)) {
			fprintf(stderr, "wsetrain: params: run.eval_examples = '%s' is not an integer\n", ev);
			wse_train_destroy(t);
			return 1;
		}
		struct wse_train_metrics m = { .size = sizeof(m) };

		rc = wse_train_eval(t, (uint32_t)ne, &m);
		if (rc < 0) {
			fprintf(stderr, "wsetrain: %s\n", wse_train_last_error(t));
			wse_train_destroy(t);
			return 1;
		}
		printf("eval: step %llu, %u test examples, loss %.4f, accuracy %.4f (backend %s)\n",
		       (unsigned long long)m.step, m.examples, m.loss,
		       (double)m.correct / m.examples, wse_train_backend(t));
		snprintf(csv, sizeof(csv), "%s/eval.csv", dir);
		FILE *f = fopen(csv, "a");

		if (f) {
			fprintf(f, "%llu,%u,%.6f,%.6f\n", (unsigned long long)m.step, m.examples,
				m.loss, (double)m.correct / m.examples);
			fclose(f);
		}
		wse_train_destroy(t);
		return 0;
	}
	const char *cs = wse_train_get_param(t, "run.checkpoint_steps");
	unsigned long long every = 0;

	if (cs && parse_ulong(cs, &every)) {
		fprintf(stderr, "wsetrain: params: run.checkpoint_steps = '%s' is not an integer\n", cs);
		wse_train_destroy(t);
		return 1;
	}
	unsigned long long first = wse_train_get_step(t);

	if (have_ck) {
		fprintf(stderr, "wsetrain: resuming from %s at step %llu\n", ck, first);
		if (csv_trim(csv, first) != 0)
			fprintf(stderr, "wsetrain: warning: cannot rewrite %s\n", csv);
	} else {
		FILE *f = fopen(csv, "w");

		if (f) {
			fprintf(f, "step,loss,train_accuracy\n");
			fclose(f);
		}
	}
	const char *dev = wse_train_get_param(t, "runtime.device");
	const char *devs = wse_train_get_param(t, "runtime.devices");
	char on[64] = "";

	ndev = opts.num_devices;
	if (ndev > 1)
		snprintf(on, sizeof(on), " on %llu devices", ndev);
	if (mpi_devs)
		fprintf(stderr, "wsetrain: MemoryX on MPI rank 0, device d on rank d + 1 (ranks 1..%u)\n",
			mpi_devs);
	if (!strcmp(wse_train_backend(t), "mesh") && devs)
		fprintf(stderr, "wsetrain: backend mesh on the devices %s, steps %llu -> %llu\n", devs,
			first, nsteps);
	else if (!strcmp(wse_train_backend(t), "mesh"))
		fprintf(stderr, "wsetrain: backend mesh%s%s %s (%s), steps %llu -> %llu\n", on,
			ndev > 1 ? " of" : " on", dev && *dev ? dev : "sim:board=sim-4x4",
			device_model(dev), first, nsteps);
	else
		fprintf(stderr, "wsetrain: backend %s%s, steps %llu -> %llu\n", wse_train_backend(t),
			on, first, nsteps);
	FILE *mf = fopen(csv, "a");

	if (!mf) {
		fprintf(stderr, "wsetrain: cannot write %s: %s\n", csv, strerror(errno));
		wse_train_destroy(t);
		return 1;
	}
	double t0 = now_s();
	float loss = 0;
	uint64_t cycles = 0;

	while (wse_train_get_step(t) < nsteps) {
		struct wse_train_metrics m = { .size = sizeof(m) };

		rc = wse_train_step(t, &m);
		if (rc < 0) {
			fprintf(stderr, "\nwsetrain: %s\n", wse_train_last_error(t));
			fclose(mf);
			wse_train_destroy(t);
			return 1;
		}
		loss = m.loss;
		cycles += m.device_cycles;
		fprintf(mf, "%llu,%.6f,%.6f\n", (unsigned long long)m.step, m.loss,
			(double)m.correct / m.examples);
		fflush(mf);
		progress(m.step, first, nsteps, t0, loss,
			 (double)cycles / (double)(m.step - first), 0);
		if ((every && m.step % every == 0) || m.step == nsteps) {
			rc = wse_train_save(t, ck);
			if (rc < 0) {
				fprintf(stderr, "\nwsetrain: %s\n", wse_train_last_error(t));
				fclose(mf);
				wse_train_destroy(t);
				return 1;
			}
		}
	}
	uint64_t done = wse_train_get_step(t);

	progress(done, first, nsteps, t0, loss, done > first ? (double)cycles / (double)(done - first) : 0,
		 1);
	fclose(mf);
	write_svg(dir);
	printf("train: step %llu, last loss %.4f, checkpoint %s\n",
	       (unsigned long long)wse_train_get_step(t), loss, ck);
	wse_train_destroy(t);
	return 0;
}

#ifdef WSETRAIN_MPI
/* Under mpirun (docs/training.md, "Across processes: Open MPI"): rank 0
 * trains, ranks 1..N serve a device each. A failure on any rank ends the
 * whole job (MPI_Abort) after its sentence. */
static int mpi_main(int argc, char **argv)
{
	int rank = 0, size = 1, rc;
	char err[1024];

	if (train_mpi_init(&argc, &argv, &rank, &size, err, sizeof(err))) {
		fprintf(stderr, "wsetrain: rank %d: %s\n", rank, err);
		train_mpi_abort(1);
	}
	if (rank > 0) {
		if (train_mpi_serve(err, sizeof(err))) {
			fprintf(stderr, "wsetrain: rank %d: %s\n", rank, err);
			train_mpi_abort(1);
		}
		train_mpi_finish();
		return 0;
	}
	rc = run(argc, argv, (unsigned)size - 1);
	if (rc)
		train_mpi_abort(rc);
	train_mpi_finish();
	return 0;
}
#endif

int main(int argc, char **argv)
{
	const char *n = getenv("OMPI_COMM_WORLD_SIZE");

	if (n && atoi(n) > 1) {
#ifdef WSETRAIN_MPI
		return mpi_main(argc, argv);
#else
		/* every rank would train the same model on its own */
		fprintf(stderr, "wsetrain: started by mpirun with %d ranks, but built without MPI (install openmpi-bin and libopenmpi-dev, and rebuild: docs/training.md)\n",
			atoi(n));
		return 2;
#endif
	}
	return run(argc, argv, 0);
}
