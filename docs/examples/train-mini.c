/* A minimal program using the training API of libwsehost: train a few
 * steps from a params file, evaluate, save a checkpoint.
 *   cc -o train-mini train-mini.c $(pkg-config --cflags --libs wsehost)
 *   ./train-mini model.params 20 model.ckpt */
#include <stdio.h>
#include <stdlib.h>

#include <wsehost_train.h>

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s PARAMS STEPS CHECKPOINT\n", argv[0]);
		return 2;
	}
	char err[512];
	wse_train *t;
	int r = wse_train_create(&t, argv[1], NULL, err, sizeof(err));

	if (r < 0) {
		fprintf(stderr, "%s (%s)\n", err, wse_error_name(r));
		return 1;
	}
	struct wse_train_metrics m = { .size = sizeof(m) };
	int steps = atoi(argv[2]);

	for (int s = 0; s < steps; s++) {
		if ((r = wse_train_step(t, &m)) < 0)
			break;
		if (s == 0 || s == steps - 1)
			printf("step %llu loss %.4f\n", (unsigned long long)m.step, m.loss);
	}
	if (r >= 0)
		r = wse_train_eval(t, 1000, &m);
	if (r >= 0)
		printf("eval on %u examples: accuracy %.3f (backend %s)\n", m.examples,
		       (double)m.correct / m.examples, wse_train_backend(t));
	if (r >= 0)
		r = wse_train_save(t, argv[3]);
	if (r < 0)
		fprintf(stderr, "%s\n", wse_train_last_error(t));
	wse_train_destroy(t);
	return r < 0;
}
