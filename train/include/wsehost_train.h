/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wsehost_train.h - the training API, libwsetrain (docs/training.md). It
 * links libwsehost, whose devices the mesh backend trains on.
 *
 * A training handle is created from a params file (docs/training.md,
 * "Params file"); it owns the model's weights and optimizer state in
 * MemoryX, reads Fashion-MNIST, runs steps and evaluations on a backend,
 * and saves and loads checkpoints (docs/checkpoint.md).
 *
 * Backends (params key runtime.backend): "host-reference" runs the C
 * reference trainer on the host CPU with the mesh's summation order for the
 * configured rows x columns; it is not the mesh. "mesh" runs the MLP kernel
 * on every PE of a device (runtime.device) and gives bit-identical results
 * for the device's rows x columns. Both sit behind the same calls.
 *
 * Functions return 0 (or a count) or a negative enum wse_error value;
 * wse_train_last_error() gives the sentence of the handle's last failure.
 */
#ifndef WSEHOST_TRAIN_H
#define WSEHOST_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "wsehost.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wse_train wse_train;

struct wse_train_opts {
	size_t size;              /* sizeof(struct wse_train_opts) */
	const char *model_dir;    /* where a file-backed store lives (or NULL) */
	unsigned num_devices;     /* 0 or 1; more is refused (no data parallel yet) */
};

struct wse_train_metrics {
	size_t size;              /* sizeof(struct wse_train_metrics) */
	uint64_t step;            /* optimizer steps done after this call */
	float loss;               /* mean cross-entropy over the examples */
	uint32_t correct;         /* examples whose arg max is the label */
	uint32_t examples;        /* examples seen by this call */
	/* the device's cycles for this call, summed over its passes (the
	 * kernel's own count on the mesh backend; 0 on the host backend).
	 * Left alone when size does not reach it: callers built with the
	 * struct that ended at examples keep working. */
	uint64_t device_cycles;
};

/* Create from a params file. On failure *t is NULL and err (if not NULL)
 * names the file, line and problem. */
WSE_API int wse_train_create(wse_train **t, const char *params_file,
			     const struct wse_train_opts *opts, char *err,
			     size_t errlen);
WSE_API void wse_train_destroy(wse_train *t);
WSE_API const char *wse_train_last_error(const wse_train *t);
/* Name of the backend, e.g. "host-reference". */
WSE_API const char *wse_train_backend(const wse_train *t);

/* One optimizer step: train.micro_batches micro-batches of
 * train.batch_size examples, gradients accumulated, then the update. */
WSE_API int wse_train_step(wse_train *t, struct wse_train_metrics *m);
/* Evaluate on the first max_examples test examples (0 = all). */
WSE_API int wse_train_eval(wse_train *t, uint32_t max_examples,
			   struct wse_train_metrics *m);
WSE_API uint64_t wse_train_get_step(const wse_train *t);
/* The value of a key of the params file as written there (keys of the
 * tool driving the API, "run.*", included), or NULL if not given. */
WSE_API const char *wse_train_get_param(const wse_train *t, const char *key);

/* Tensors: "layerN.weight" [out, in], "layerN.bias" [out], and optimizer
 * state "<param>.momentum", "<param>.adam_m", "<param>.adam_v".
 * wse_train_tensor_info enumerates (index from 0; WSE_ERROR_RANGE past the
 * end) and returns the element count. */
WSE_API int wse_train_tensor_info(const wse_train *t, unsigned index,
				  const char **name, unsigned *ndim,
				  uint32_t dims[4]);
WSE_API int wse_train_get_tensor(wse_train *t, const char *name, float *buf,
				 size_t count);
WSE_API int wse_train_set_tensor(wse_train *t, const char *name,
				 const float *buf, size_t count);

/* Checkpoints: weights, optimizer state, step, RNG state, data position,
 * written atomically; a load refuses a corrupt or mismatching file and
 * leaves the handle unchanged. */
WSE_API int wse_train_save(wse_train *t, const char *path);
WSE_API int wse_train_load(wse_train *t, const char *path);

#ifdef __cplusplus
}
#endif
#endif /* WSEHOST_TRAIN_H */
