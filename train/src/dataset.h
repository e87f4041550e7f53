/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dataset.h - the caller's datasets for the training runtime: IDX, NumPy
 * .npy and CSV files (docs/training.md, "Data"). Fashion-MNIST's own
 * layout stays in fmnist.h.
 */
#ifndef WSE_DATASET_H
#define WSE_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "fmnist.h"

/* data.label_column = last */
#define DS_LAST_COLUMN UINT32_MAX

enum ds_format { DS_FMNIST, DS_IDX, DS_NPY, DS_CSV };

/* "fmnist", "idx", "npy", "csv" (NULL: fmnist) into *f; -1 if unknown. */
int ds_format_parse(const char *name, enum ds_format *f);

/* Load one split: inputs from xpath and labels from ypath (IDX, npy), or
 * both from the CSV file xpath with the label in column label_column
 * (from 0, or DS_LAST_COLUMN). Every example must have `width` inputs and
 * a label in 0..classes-1. out->x gets the inputs as float (uint8 data
 * divided by 255), out->y the labels. Returns 0 or a negative enum
 * wse_error; err names the file, the byte offset (IDX, npy) or line (CSV)
 * and the problem. */
int ds_load(enum ds_format f, const char *xpath, const char *ypath, uint32_t label_column,
	    uint32_t width, uint32_t classes, struct fm_data *out, char *err, size_t errlen);

/* The whole file path into *buf (malloc'd), its length in *size. Errors
 * (NOT_FOUND, IO, NO_MEM) start with name. */
int ds_slurp(const char *path, const char *name, uint8_t **buf, size_t *size, char *err,
	     size_t errlen);

/* A .npy header. */
struct ds_npy {
	char descr[16];       /* dtype, e.g. "<f4" */
	size_t descr_off;     /* its offset */
	unsigned ndim;
	uint64_t dims[FM_IDX_MAX_DIMS];
	size_t count;         /* elements */
	size_t off;           /* offset of the data */
};

/* Parse the header of the .npy image b[0..size), which starts at offset
 * base of its file: magic, version 1.0 or 2.0, the dict, C order, the
 * shape. Errors start with name, then "offset N:" (from base). */
int ds_npy_parse(const char *name, const uint8_t *b, size_t size, size_t base, struct ds_npy *h,
		 char *err, size_t errlen);
/* 0 when the data from h->off to end is exactly count elements of esize
 * bytes; else TRUNCATED or MALFORMED. */
int ds_npy_data(const char *name, const struct ds_npy *h, size_t esize, size_t end, char *err,
		size_t errlen);

#endif /* WSE_DATASET_H */
