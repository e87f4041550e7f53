/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fmnist.h - Fashion-MNIST (IDX files, gzip) for the training runtime
 * (docs/training.md, "Data").
 */
#ifndef WSE_FMNIST_H
#define WSE_FMNIST_H

#include <stddef.h>
#include <stdint.h>

#define FM_DEFAULT_DIR "/usr/share/datasets/fashion-mnist"

struct fm_data {
	uint32_t n;         /* examples */
	uint32_t features;  /* 784, or 196 with 2x2 pooling */
	float *x;           /* x[e * features + f], in [0, 1] */
	uint8_t *y;         /* labels 0..9 */
};

/* An IDX file (gzip or plain): magic 0x0000TTNN, type TT, NN dimensions
 * (big-endian 32-bit each), then the data, big-endian. */
#define FM_IDX_UBYTE    0x08
#define FM_IDX_FLOAT    0x0D
#define FM_IDX_MAX_DIMS 8

struct fm_idx {
	uint8_t type;          /* FM_IDX_UBYTE or FM_IDX_FLOAT */
	unsigned ndim;
	uint32_t dims[FM_IDX_MAX_DIMS];
	size_t count;          /* elements: the product of dims */
	size_t data_offset;    /* where the data starts in the (unzipped) file */
	uint8_t *data;         /* count * (1 or 4) bytes as in the file */
};

/* Read the whole IDX file path: its magic must be `magic`, or with magic 0
 * any ubyte or float32 IDX of 1..FM_IDX_MAX_DIMS dimensions; at most
 * max_bytes of data, exactly as many as the header says. Returns 0 or a
 * negative enum wse_error (err names the file, the offset and the
 * problem); on error out holds nothing. */
int fm_read_idx(const char *path, uint32_t magic, struct fm_idx *out, size_t max_bytes,
		char *err, size_t errlen);
void fm_idx_free(struct fm_idx *x);

/* Load the training (train = 1) or test (train = 0) split from dir:
 * {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz. pool is 1 or 2.
 * Returns 0 or a negative enum wse_error; err says which file and what. */
int fm_load(const char *dir, int train, unsigned pool, struct fm_data *out,
	    char *err, size_t errlen);
void fm_free(struct fm_data *d);

/* The order in which epoch `epoch` visits the n examples: the identity
 * when shuffle is 0, else a Fisher-Yates shuffle driven by splitmix64
 * seeded with seed + epoch * 0x9E3779B97F4A7C15. perm has n entries. */
void fm_epoch_order(uint32_t n, int shuffle, uint64_t seed, uint64_t epoch,
		    uint32_t *perm);

/* Format the message into err (if not NULL) and return code. */
int fm_fail(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* splitmix64 step (the project's RNG). */
uint64_t fm_splitmix64(uint64_t *state);

#endif /* WSE_FMNIST_H */
