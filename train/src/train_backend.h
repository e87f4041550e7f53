/* SPDX-License-Identifier: Apache-2.0 */
/*
 * train_backend.h - the operations table every training backend provides.
 *
 * The training API (train.c) owns the parameters and optimizer state
 * (MemoryX), the data stream, gradient accumulation over micro-batches and
 * the optimizer update; a step and an evaluation are the same loops for
 * every backend. What differs is where one pass of the MLP (forward, loss
 * and, when gradients are asked for, backward) runs, so that is what a
 * backend implements:
 *   "host-reference"  train_ref.c: the C reference trainer on the host CPU,
 *                     in the summation order of a rows x columns mesh
 *   "mesh"            train_mesh.c: the MLP kernel on every PE of a device
 *                     over libwsehost
 * Both give bit-identical results for the same rows and columns. train.c
 * picks the table by the params' runtime.backend (train_backend_find())
 * and calls nothing of a backend but its table.
 *
 * A handle on N devices opens N states. Calls on one state come from one
 * thread at a time; passes on different states run at the same time, each
 * on a thread of its own, reading the same weights (net) and writing
 * their own out. Errors are negative enum wse_error values (wsehost.h); err
 * receives a sentence for wse_train_last_error().
 */
#ifndef WSE_TRAIN_BACKEND_H
#define WSE_TRAIN_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "train_ref.h"

/* What a backend is opened for (from the params file). */
struct train_backend_cfg {
	const char *backend;    /* runtime.backend (what a remote device runs) */
	unsigned index;         /* the device's index, 0..N-1 */
	const char *device;     /* device URI; "" or NULL: the default simulator */
	int timeout_ms;         /* bound of every wait on a device */
	unsigned nlayers;       /* weight layers */
	const unsigned *dims;   /* dims[0..nlayers] */
	unsigned max_batch;     /* largest B a pass is given */
	/* in: the params' mesh shape; out: the shape every pass must be given
	 * in net->rows, net->cols (a device backend returns the device's) */
	unsigned rows, cols;
};

/*
 * What a training pass tells the update beside it (docs/training.md, "The
 * host update beside the device"). A pass given hooks calls, from its own
 * thread:
 *   weights_ready(user, l)  before it first reads net->w[l] or net->b[l];
 *                           blocks until the optimizer update of layer l
 *                           of the previous step is done. Returns 0, or a
 *                           negative enum wse_error (TIMEOUT) that fails
 *                           the pass with its error unchanged.
 *   grads_out(user, l)      once out->dw[l] and out->db[l] are complete and
 *                           the pass will read neither net->w[l] nor
 *                           net->b[l] again, so that layer l can be
 *                           updated while the pass goes on below it.
 * Layers come to weights_ready in the order 0 .. L-1 and to grads_out in
 * the order L-1 .. 0 (backward), each once per pass.
 */
struct train_pass_hooks {
	int (*weights_ready)(void *user, unsigned l);
	void (*grads_out)(void *user, unsigned l);
	void *user;
};

struct train_backend_ops {
	/* runtime.backend value, also returned by wse_train_backend(). */
	const char *name;
	/*
	 * open: prepare passes for cfg (a device backend opens its device,
	 * loads its kernel and writes its routes, which may block up to
	 * cfg->timeout_ms per device access). On success sets *state (NULL is
	 * a valid state for a backend without one), may update cfg->rows and
	 * cfg->cols, and returns 0. Errors: INVALID_PARAM, NO_MEM, NOT_SUPPORTED
	 * (the model or the device does not fit this backend), and for a
	 * device backend whatever wse_open() and the device calls return
	 * (NOT_FOUND, TIMEOUT, NO_DEVICE, ...). On error nothing stays
	 * allocated or open, *state is NULL and err says why.
	 */
	int (*open)(void **state, struct train_backend_cfg *cfg, char *err,
		    size_t errlen);
	/*
	 * pass: one pass with the arguments and results of train_ref_pass()
	 * (train_ref.h); net->rows and net->cols are cfg's after open. The
	 * caller owns every buffer: the backend reads net's weights, x and
	 * labels, writes out (and out->dw, out->db when out->dw[0] is not
	 * NULL) and keeps no pointer after it returns. Blocks until the pass
	 * is complete. hooks (NULL: none) are called as struct
	 * train_pass_hooks says. Returns 0 or INVALID_PARAM, NO_MEM, a hook's
	 * error, and for a device backend the device calls' errors (TIMEOUT,
	 * NO_DEVICE, DEVICE, ...); on error err says why and out's contents
	 * are unspecified.
	 */
	int (*pass)(void *state, const struct train_ref_net *net, const float *x,
		    const uint8_t *labels, unsigned B, unsigned norm,
		    struct train_ref_out *out, const struct train_pass_hooks *hooks,
		    char *err, size_t errlen);
	/* close: release state (device included). Never fails; NULL is
	 * ignored. */
	void (*close)(void *state);
};

extern const struct train_backend_ops train_backend_ref;
extern const struct train_backend_ops train_backend_mesh;

/* The table named name ("host-reference", "mesh"), or NULL. */
const struct train_backend_ops *train_backend_find(const char *name);

/*
 * wse_train_create() whose devices are reached through devs instead of
 * runtime.backend's table: devs->open is given every device's cfg (with
 * cfg->backend and cfg->index), and its passes stand for that device's in
 * the rounds of several devices (train_mpi.c: a device driven by another
 * MPI rank). Everything else (MemoryX, the data, the fold of the
 * gradients in micro-batch order, the update) is the handle's as usual.
 * devs NULL is wse_train_create(). Errors: those of wse_train_create().
 */
struct wse_train_opts;
typedef struct wse_train wse_train;
int train_create_devs(wse_train **out, const char *params_file,
		      const struct wse_train_opts *opts,
		      const struct train_backend_ops *devs, char *err, size_t errlen);

#endif /* WSE_TRAIN_BACKEND_H */
