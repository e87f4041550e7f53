/* SPDX-License-Identifier: Apache-2.0 */
/*
 * train_mesh.h - the mesh backend of the training API: one pass of an MLP
 * (forward, loss, backward) run by the MLP kernel on every PE of a device,
 * with the weights streamed in and the gradients streamed out
 * (docs/training-dataflow.md). Its results are bit-identical to
 * train_ref_pass() for the device's rows and columns.
 */
#ifndef WSE_TRAIN_MESH_H
#define WSE_TRAIN_MESH_H

#include <stddef.h>
#include <stdint.h>

#include "train_ref.h"

struct train_mesh;
struct wse_device;
struct wse_route_plan;
struct wse_route_report;
struct train_pass_hooks;

#define TM_PROF_WORDS 48

/* What crossed the link in the last pass, in payload bytes (4 per wavelet
 * or memory word), by category. */
enum train_mesh_bytes {
	TM_WEIGHTS,      /* weights streamed in, forward and backward-inputs
			  * (sparse layers: the kept ones) */
	TM_BIASES,       /* biases streamed in */
	TM_GRADIENTS,    /* weight gradients streamed out (sparse layers: the
			  * kept ones) */
	TM_BIAS_GRADS,   /* bias gradients streamed out */
	TM_BATCH,        /* input batch written, padded tokens included */
	TM_LABELS,       /* labels written (every row of every column) */
	TM_METRICS,      /* per-token loss and class candidates read back */
	TM_PARAMS,       /* parameter blocks written */
	TM_INDEX,        /* sparse layers: index wavelets (gap codes) streamed in */
	TM_EMPTY,        /* sparse layers: control wavelets of shares with no value */
	TM_GRAD_INDEX,   /* sparse layers: the backward-weights pass's index-only
			  * shares streamed in (index and empty-share wavelets) */
	TM_NUM_BYTES
};

struct train_mesh_stats {
	uint64_t bytes[TM_NUM_BYTES];
	uint32_t cycles;          /* device cycles of the pass (release to last tile done) */
	uint32_t gemm_cycles;     /* of which streamed GEMMs (largest over the tiles) */
	uint64_t weight_wavelets; /* weight and bias wavelets streamed in */
	/* host wall time of the pass's phases, milliseconds */
	double ms_load;           /* reset, parameter blocks, batch, labels, release */
	double ms_stream;         /* weights in */
	double ms_collect;        /* gradients out */
	double ms_finish;         /* waiting for the tiles' end, metrics */
	/* with $WSE_MLP_PROFILE set (1: phases, 2: per-feature detail too):
	 * the kernel's profile words (wse_mlp_abi.h WSE_MLP_PROF_*), the
	 * largest over the tiles; else zeros */
	uint32_t prof[TM_PROF_WORDS];
};

/*
 * Open the device at uri (NULL: the default simulator) for MLPs of layer
 * sizes dims[0..nlayers] and batches of up to max_batch examples, load the
 * kernel into every tile and write the routes. The device's rows and
 * columns are returned in *rows, *cols (the reference reproduces them).
 * timeout_ms bounds every wait on the device. Returns 0 or a negative
 * wse_error; err says what failed (for a model that does not fit: the
 * bytes needed and available per tile).
 */
int train_mesh_open(struct train_mesh **m, const char *uri, unsigned nlayers,
		    const unsigned *dims, unsigned max_batch, int timeout_ms,
		    unsigned *rows, unsigned *cols, char *err, size_t errlen);
void train_mesh_close(struct train_mesh *m);

/* One pass, with the same arguments and results as train_ref_pass()
 * (net->rows and net->cols must be the device's). Returns 0 or a negative
 * wse_error (err of train_mesh_last_error). */
int train_mesh_pass(struct train_mesh *m, const struct train_ref_net *net,
		    const float *x, const uint8_t *labels, unsigned B,
		    unsigned norm, struct train_ref_out *out);
/* The same with hooks (train_backend.h, struct train_pass_hooks; NULL:
 * none): the weights of layer l are streamed after weights_ready(l), and
 * the gradients are taken layer by layer, L-1 first, each reported by
 * grads_out as soon as every row has sent it. A hook's error fails the
 * pass with that error. */
int train_mesh_pass_hooked(struct train_mesh *m, const struct train_ref_net *net,
			   const float *x, const uint8_t *labels, unsigned B, unsigned norm,
			   struct train_ref_out *out, const struct train_pass_hooks *hooks);
/* The route plan of docs/training-dataflow.md section 6 for a mesh of
 * cols x rows with the device's color-to-VC map (wse_route.h); NULL when
 * memory runs out. The caller frees it with wse_route_plan_free(). */
struct wse_route_plan *train_mesh_route_plan(unsigned cols, unsigned rows,
					     const uint8_t color_vc[32],
					     unsigned num_vc);
const char *train_mesh_last_error(const struct train_mesh *m);
/* For the tests of the PE's check of sparse streams: in the next pass, the
 * first index wavelet of layer's (masked) forward share of output 0 for
 * mesh row 0 gets a first gap code of 254, a slot beyond the share, which
 * the PE refuses; the pass then fails with WSE_ERROR_DEVICE naming the
 * tile. Once only; m NULL is ignored. */
void train_mesh_fault_sparse(struct train_mesh *m, unsigned layer);
/* The same for the backward-weights pass of a training pass: the first
 * index wavelet of layer's index-only share of output 0 for mesh row 0
 * gets a first gap code of 254; the PEs of row 0 refuse the slot, send
 * one gradient fewer and fail, and the pass fails with WSE_ERROR_DEVICE
 * naming the tile. Once only; m NULL is ignored. */
void train_mesh_fault_index(struct train_mesh *m, unsigned layer);
void train_mesh_get_stats(const struct train_mesh *m, struct train_mesh_stats *st);

#endif /* WSE_TRAIN_MESH_H */
