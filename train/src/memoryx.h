/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memoryx.h - MemoryX of libwsehost: the weight store, the optimizers and
 * checkpoints (docs/training-dataflow.md "MemoryX", docs/checkpoint.md).
 * Internal to the library; the public face is wsehost_train.h.
 */
#ifndef WSE_MEMORYX_H
#define WSE_MEMORYX_H

#include <stddef.h>
#include <stdint.h>

#define MX_NAME_MAX 63
#define MX_MAX_DIMS 4
#define MX_MAX_TENSORS 64

struct mx_tensor {
	char name[MX_NAME_MAX + 1];
	unsigned ndim;
	uint32_t dims[MX_MAX_DIMS];
	size_t count;   /* elements */
	size_t offset;  /* element offset in the arena */
	/* a checkpoint may lack it (then it keeps its value on load): a weight
	 * mask, which checkpoints of dense models do not hold */
	int optional;
};

/* A set of named float32 tensors in one arena: host RAM (malloc) or a
 * file mapped with MAP_SHARED (models larger than RAM page to the file). */
struct mx_store {
	struct mx_tensor t[MX_MAX_TENSORS];
	unsigned n;
	float *arena;
	size_t arena_elems;
	int fd;         /* -1 when in RAM */
	size_t map_bytes;
	int committed;
};

/* Declaring: mx_store_init, mx_store_add (any number, before commit),
 * mx_store_commit (allocates, all tensors zero). Errors: negative
 * enum wse_error values; err (if not NULL) gets a sentence. */
void mx_store_init(struct mx_store *s);
int mx_store_add(struct mx_store *s, const char *name, unsigned ndim,
		 const uint32_t *dims);
int mx_store_commit(struct mx_store *s, const char *backing_file, char *err,
		    size_t errlen);
void mx_store_free(struct mx_store *s);
int mx_store_find(const struct mx_store *s, const char *name);
float *mx_store_data(const struct mx_store *s, int idx);

/* Optimizers (docs/training-dataflow.md, "Optimizers"). */
enum mx_opt_kind { MX_OPT_SGD = 0, MX_OPT_ADAM = 1, MX_OPT_ADAMW = 2 };

struct mx_opt_cfg {
	enum mx_opt_kind kind;
	float lr, momentum, beta1, beta2, eps, weight_decay;
};

/* Optimizer scalars kept with the state: the step count and, for Adam,
 * beta1^t and beta2^t as running float products. */
struct mx_opt_scalars {
	uint64_t t;
	float beta1_pow, beta2_pow;
};

void mx_opt_scalars_init(struct mx_opt_scalars *sc);
/* Advance the scalars once per optimizer step, before the updates. */
void mx_opt_begin_step(const struct mx_opt_cfg *cfg, struct mx_opt_scalars *sc);
/* Update n elements of one parameter tensor in place. s1 is the momentum
 * buffer (SGD) or the first moment (Adam), s2 the second moment (Adam). */
void mx_opt_update(const struct mx_opt_cfg *cfg, const struct mx_opt_scalars *sc,
		   size_t n, float *w, float *s1, float *s2, const float *g);
/* Gradient accumulation over micro-batches: acc[k] = acc[k] + g[k]. */
void mx_grad_accumulate(size_t n, float *acc, const float *g);

/* Checkpoints (docs/checkpoint.md). */
struct mx_ckpt_meta {
	uint64_t step;
	uint64_t rng_state;
	uint64_t data_epoch;
	uint64_t data_pos;
};

/* Write every tensor of the store and meta to path atomically: a temporary
 * file in the same directory, fsync, rename over path, fsync of the
 * directory. On failure path is untouched. */
int mx_ckpt_save(const char *path, const struct mx_store *s,
		 const struct mx_ckpt_meta *meta, char *err, size_t errlen);
/* The same with a hook called after each chunk written to the temporary
 * file with the bytes written so far (fault injection in tests). */
typedef void (*mx_ckpt_hook_fn)(uint64_t bytes_written, void *user);
int mx_ckpt_save_hooked(const char *path, const struct mx_store *s,
			const struct mx_ckpt_meta *meta, mx_ckpt_hook_fn hook,
			void *user, char *err, size_t errlen);
/* Read path and, only if it is complete and valid and its tensors match
 * the store's names and shapes exactly (a tensor marked optional may be
 * absent, and then keeps its value), copy them into the store.
 * Otherwise the store is unchanged and err says what is wrong. */
int mx_ckpt_load(const char *path, struct mx_store *s, struct mx_ckpt_meta *meta,
		 char *err, size_t errlen);

#endif /* WSE_MEMORYX_H */
