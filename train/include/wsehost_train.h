/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wsehost_train.h - the training API, libwsetrain (docs/training.md). It
 * links libwsehost, whose devices the mesh backend trains on.
 *
 * A training handle is created from a params file (docs/training.md,
 * "Params file") or from a struct wse_train_spec; it owns the model's
 * weights and optimizer state in MemoryX, reads Fashion-MNIST or the
 * caller's IDX, .npy or CSV files or takes the caller's arrays, runs steps and evaluations on a backend, and saves and
 * loads checkpoints (docs/checkpoint.md).
 *
 * Backends (params key runtime.backend): "host-reference" runs the C
 * reference trainer on the host CPU with the mesh's summation order for the
 * configured rows x columns; it is not the mesh. "mesh" runs the MLP kernel
 * on every PE of a device (runtime.device) and gives bit-identical results
 * for the device's rows x columns. Both sit behind the same calls.
 *
 * Functions return 0 (or a count) or a negative enum wse_error value;
 * wse_train_last_error() gives the sentence of the handle's last failure.
 *
 * With runtime.host_update = overlap (the default) a step's optimizer
 * update runs on a thread of the handle, layer by layer, beside the
 * device, and may still run when wse_train_step returns; the calls that
 * read or write the weights (evaluations, predictions, tensors,
 * checkpoints, .npz files) first wait for it, at most runtime.timeout_ms,
 * and fail with WSE_ERROR_TIMEOUT if it has not ended by then
 * (docs/training.md, "The host update beside the device").
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
	/* devices trained on together, 1..WSE_TRAIN_MAX_DEVICES; 0: as many
	 * as runtime.devices lists (1 without a list). Every step then runs
	 * num_devices * train.micro_batches micro-batches, device d taking
	 * micro-batches d, d + num_devices, ... on a thread of its own, and
	 * gives the bits of one device with that many micro-batches
	 * (docs/training.md, "Several devices"). */
	unsigned num_devices;
};

/* Most devices a handle trains on. */
#define WSE_TRAIN_MAX_DEVICES 64

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
	/* the largest over the devices of that device's cycles for this call
	 * (the sum of its passes): the call's device time when the devices
	 * run at the same time; device_cycles with one device. Left alone
	 * when size does not reach it. */
	uint64_t device_cycles_max;
};

/* Limits of a model: weight layers, the width of any layer (inputs
 * included) and the number of classes (labels are 0..classes-1). */
#define WSE_TRAIN_MAX_LAYERS  8
#define WSE_TRAIN_MAX_WIDTH   65536
#define WSE_TRAIN_MAX_CLASSES 256

/*
 * A model from code: what a params file says (docs/training.md, "Params
 * file"), key by key. Fill it with wse_train_spec_init() (the params
 * file's defaults), then set what differs. The library reads the first
 * size bytes and takes the defaults for fields past them, so callers built
 * with a shorter version of the struct keep working.
 */
struct wse_train_spec {
	size_t size;              /* sizeof(struct wse_train_spec) */
	uint32_t num_layers;      /* model.layers: weight layers, 1..WSE_TRAIN_MAX_LAYERS */
	/* widths[0] inputs, widths[1..num_layers-1] hidden, widths[num_layers]
	 * classes (2..WSE_TRAIN_MAX_CLASSES); each 1..WSE_TRAIN_MAX_WIDTH */
	uint32_t widths[WSE_TRAIN_MAX_LAYERS + 1];
	const char *optimizer;    /* optimizer.name: "sgd" (default), "adam", "adamw" */
	float lr;                 /* optimizer.lr, (0, 1000] (0.05) */
	float momentum;           /* optimizer.momentum, [0, 1) (0) */
	float beta1, beta2;       /* optimizer.beta1, .beta2, [0, 1) (0.9, 0.999) */
	float eps;                /* optimizer.eps, (0, 1] (1e-8) */
	float weight_decay;       /* optimizer.weight_decay, [0, 1] (0) */
	uint64_t init_seed;       /* model.init_seed (1) */
	uint32_t batch_size;      /* train.batch_size, 1..65536 (32) */
	uint32_t micro_batches;   /* train.micro_batches, 1..1024 (1) */
	const char *backend;      /* runtime.backend: "host-reference" (default), "mesh" */
	const char *device;       /* runtime.device: URI, NULL or "" = default simulator */
	/* runtime.mesh, each 0..64: the summation order of the host-reference
	 * backend (0 x 0: 4 x 4); the mesh backend always takes the device's */
	uint32_t mesh_rows, mesh_cols;
	int32_t timeout_ms;       /* runtime.timeout_ms, 100..86400000 (600000) */
	/* Fashion-MNIST for wse_train_step and wse_train_eval: data.dir (NULL:
	 * no dataset), data.pool (1 or 2), data.shuffle (0, 1), .shuffle_seed */
	const char *data_dir;
	uint32_t data_pool;
	uint32_t data_shuffle;
	uint64_t data_shuffle_seed;
	const char *memoryx_file; /* runtime.memoryx_file (NULL: in memory) */
	/* The caller's dataset files instead of data_dir (docs/training.md,
	 * "Data"): data.format "idx", "npy" or "csv" (NULL or "fmnist":
	 * Fashion-MNIST from data_dir); data.train_x and .train_y (the training
	 * split, required), .test_x and .test_y (the test split, optional). A
	 * CSV file holds inputs and labels: give only the _x paths, the label
	 * in column data.label_column (from 0; WSE_TRAIN_LAST_COLUMN: the
	 * last). The files must have widths[0] inputs per example and labels
	 * below the class count. */
	const char *data_format;
	const char *data_train_x, *data_train_y;
	const char *data_test_x, *data_test_y;
	uint32_t data_label_column;
	/* runtime.devices: the devices' URIs separated by commas (a comma
	 * followed by a scheme, "sim:", "usb:", ..., starts the next URI), or
	 * NULL: num_devices devices of the URI runtime.device. Not with
	 * device. */
	const char *devices;
	/* runtime.host_update: "overlap" (NULL, the default) updates each
	 * layer on a host thread as soon as its gradients are out, while the
	 * device goes on with the layers below; "serial" updates every layer
	 * after the step's last pass. Both give the same bits
	 * (docs/training.md, "The host update beside the device"). */
	const char *host_update;
	/* model.sparsity, [0, 1) (0: dense): the fraction of every weight
	 * matrix masked, floor(sparsity * elements) (docs/training.md,
	 * "Sparsity"); host-reference backend only. model.prune_step (0):
	 * 0 masks a fixed random choice from model.sparsity_seed (1) at
	 * creation; N >= 1 trains dense until step N and then masks the
	 * smallest magnitudes. */
	float sparsity;
	uint64_t sparsity_seed;
	uint64_t prune_step;
};

/* data.label_column = last */
#define WSE_TRAIN_LAST_COLUMN 0xffffffffu

/* Fill spec with the params file's defaults (no layers, no dataset) and
 * set spec->size; size is sizeof(*spec) as the caller compiled it (the
 * library writes no more than that, so a program built with an older,
 * shorter struct keeps working). A NULL spec or a size below
 * sizeof(size_t) is ignored. */
WSE_API void wse_train_spec_init(struct wse_train_spec *spec, size_t size);

/* Create from a params file. On failure *t is NULL and err (if not NULL)
 * names the file, line and problem. Errors:
 *   WSE_ERROR_INVALID_PARAM  a NULL argument, a bad line, key or value, a
 *                            model that does not match the dataset,
 *                            num_devices above WSE_TRAIN_MAX_DEVICES or
 *                            not the count runtime.devices lists
 *   WSE_ERROR_NOT_FOUND      the file, the dataset or the device is missing
 *   WSE_ERROR_IO             the file cannot be read
 *   WSE_ERROR_MALFORMED, TRUNCATED, BAD_MAGIC, VERSION
 *                            a bad dataset file (err names the file, the
 *                            byte offset or line and the problem)
 *   WSE_ERROR_NOT_SUPPORTED  the model or a device does not fit the
 *                            backend, or the devices' meshes differ (err
 *                            names both devices and their rows x columns)
 *   WSE_ERROR_NO_MEM         memory ran out
 *   and the device's errors for the mesh backend (TIMEOUT, NO_DEVICE, ...) */
WSE_API int wse_train_create(wse_train **t, const char *params_file,
			     const struct wse_train_opts *opts, char *err,
			     size_t errlen);
/* Create from a spec (the same model, weights and steps as the params file
 * that says the same). Without spec->data_dir (or data_train_x with
 * another data_format) the handle has no dataset:
 * wse_train_step and wse_train_eval return WSE_ERROR_NOT_SUPPORTED and
 * training goes through wse_train_step_batch and wse_train_eval_batch. On
 * failure *t is NULL and err names the field and the problem. Errors: those
 * of wse_train_create; INVALID_PARAM names the spec field at fault (or a
 * spec->size that does not reach past widths); NOT_SUPPORTED for sparsity
 * > 0 with a backend other than host-reference. */
WSE_API int wse_train_create_model(wse_train **t, const struct wse_train_spec *spec,
				   const struct wse_train_opts *opts, char *err,
				   size_t errlen);
/* Release the handle, its devices included. NULL is ignored. */
WSE_API void wse_train_destroy(wse_train *t);
/* The sentence of the handle's last failure ("" before any; a fixed
 * sentence for a NULL handle). Valid until the next call on t. */
WSE_API const char *wse_train_last_error(const wse_train *t);
/* Name of the backend, e.g. "host-reference" ("" for a NULL handle). */
WSE_API const char *wse_train_backend(const wse_train *t);

/* One optimizer step: num_devices * train.micro_batches micro-batches of
 * train.batch_size examples, gradients accumulated in micro-batch order,
 * then the update. Errors: INVALID_PARAM (t NULL), NOT_SUPPORTED (a handle
 * without a dataset), and the backend's (with several devices the last
 * error names the device that failed). */
WSE_API int wse_train_step(wse_train *t, struct wse_train_metrics *m);
/* Evaluate on the first max_examples test examples (0 = all), in batches
 * of the batch size dealt to the devices as a step's micro-batches. Errors: as
 * wse_train_step, and the test split's (NOT_FOUND, MALFORMED, IO, ...;
 * NOT_FOUND when data.test_x is not given). */
WSE_API int wse_train_eval(wse_train *t, uint32_t max_examples,
			   struct wse_train_metrics *m);
/*
 * One optimizer step on the caller's n examples: x is [n, inputs] float32,
 * row-major; labels[e] in 0..classes-1; 1 <= n <= the batch size times
 * num_devices. The loss is averaged over the n examples (micro_batches
 * does not apply). With N devices, n must be a multiple of N: device d
 * takes examples d * n / N .. (d + 1) * n / N - 1 as one micro-batch.
 * Errors:
 *   WSE_ERROR_INVALID_PARAM  t, x or labels NULL, or n 0
 *   WSE_ERROR_RANGE          n above the batch size (times num_devices),
 *                            n not a multiple of num_devices, or a label
 *                            < 0 or >= classes (the last error names the
 *                            example and its label)
 *   and the backend's (NO_MEM; the device's errors on the mesh backend).
 * On error the weights, the optimizer state and the step are unchanged.
 */
WSE_API int wse_train_step_batch(wse_train *t, const float *x, const int32_t *labels,
				 uint32_t n, struct wse_train_metrics *m);
/* Loss and correct count of the model on the caller's n examples (any
 * n >= 1, run in batches of the batch size); arguments and errors as
 * wse_train_step_batch but any n is taken. Changes no state. */
WSE_API int wse_train_eval_batch(wse_train *t, const float *x, const int32_t *labels,
				 uint32_t n, struct wse_train_metrics *m);
/*
 * The model's logits (the last layer's outputs, before the softmax) for
 * the caller's n examples: x is [n, inputs] float32, row-major; logits
 * receives [n, classes] float32, row-major (logits[e * classes + k]). Runs
 * the forward pass of wse_train_eval_batch (any n >= 1, in batches of the
 * batch size, on the backend: on the mesh the device computes them), so
 * the arg max of example e's row is the class that call counts as its
 * prediction (the lowest class at the maximum); both backends give the
 * same bits for the same rows x columns. Changes no state. Errors:
 *   WSE_ERROR_INVALID_PARAM  t, x or logits NULL, or n 0
 *   and the backend's (NO_MEM; the device's errors on the mesh backend:
 *   TIMEOUT, NO_DEVICE, ...). On error logits' contents are unspecified.
 */
WSE_API int wse_train_predict(wse_train *t, const float *x, uint32_t n, float *logits);
/* Optimizer steps done (0 for a NULL handle). */
WSE_API uint64_t wse_train_get_step(const wse_train *t);
/* The value of a key of the params file as written there (keys of the
 * tool driving the API, "run.*", included), or NULL if not given, for a
 * handle made by wse_train_create_model, or for a NULL argument. */
WSE_API const char *wse_train_get_param(const wse_train *t, const char *key);

/* Tensors: "layerN.weight" [out, in], "layerN.bias" [out], optimizer
 * state "<param>.momentum", "<param>.adam_m", "<param>.adam_v", and with
 * model.sparsity > 0 the masks "layerN.weight.mask" [out, in] (1 kept, 0
 * masked; setting a mask, or weights, leaves the masked weights and their
 * optimizer state +0).
 * wse_train_tensor_info enumerates (index from 0) and returns the element
 * count; name, ndim and dims may be NULL. Errors: INVALID_PARAM (t NULL),
 * RANGE (index past the last tensor).
 * wse_train_get_tensor and wse_train_set_tensor copy a whole tensor out
 * and in. Errors: INVALID_PARAM (t, name or buf NULL, a mask holding a
 * value other than 1 and 0), NOT_FOUND (no such tensor), LENGTH (count is
 * not its element count); on error nothing changes. */
WSE_API int wse_train_tensor_info(const wse_train *t, unsigned index,
				  const char **name, unsigned *ndim,
				  uint32_t dims[4]);
WSE_API int wse_train_get_tensor(wse_train *t, const char *name, float *buf,
				 size_t count);
WSE_API int wse_train_set_tensor(wse_train *t, const char *name,
				 const float *buf, size_t count);

/* Checkpoints: weights, optimizer state, step, RNG state, data position,
 * written atomically; a load refuses a corrupt or mismatching file and
 * leaves the handle unchanged. Errors: INVALID_PARAM (t or path NULL),
 * NO_MEM, IO; and on load NOT_FOUND, BAD_MAGIC, VERSION, HEADER_CRC,
 * PAYLOAD_CRC, TRUNCATED, MALFORMED (another model's tensors, a data
 * position past the dataset), INVALID_PARAM (a mask holding a value other
 * than 1 and 0). A checkpoint without masks (of a dense model) loads into
 * a sparse model, which keeps its masks and zeroes the masked weights. */
WSE_API int wse_train_save(wse_train *t, const char *path);
WSE_API int wse_train_load(wse_train *t, const char *path);

/*
 * Tensors as NumPy .npz (docs/training.md, "Weights as NumPy .npz"): an
 * uncompressed zip of one "NAME.npy" per tensor (the names above, and
 * "optimizer.beta_pow"), float32 '<f4' in C order, of the tensor's shape;
 * numpy.load reads it and numpy.savez writes what wse_train_import_npz
 * reads. The step, RNG and data position are in checkpoints only.
 * wse_train_export_npz writes every tensor (through path.tmp and a
 * rename). wse_train_import_npz sets the tensors the file holds and keeps
 * the others; every entry must name a tensor of the model, once, with its
 * shape and dtype, stored (numpy.savez, not savez_compressed), with a
 * good CRC-32; on error nothing changes and the last error names the
 * file, the entry, the offset and the problem. Errors: INVALID_PARAM (t or
 * path NULL), IO, NO_MEM; on import NOT_FOUND (no file, or an entry that
 * names no tensor), BAD_MAGIC (not a zip), TRUNCATED, MALFORMED (wrong
 * dtype, Fortran order, a tensor given twice, a bad header), LENGTH (a
 * shape that is not the tensor's), PAYLOAD_CRC, VERSION, NOT_SUPPORTED
 * (compressed or zip64 entries), INVALID_PARAM (a mask holding a value
 * other than 1 and 0).
 */
WSE_API int wse_train_export_npz(wse_train *t, const char *path);
WSE_API int wse_train_import_npz(wse_train *t, const char *path);

#ifdef __cplusplus
}
#endif
#endif /* WSEHOST_TRAIN_H */
