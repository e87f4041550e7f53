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

#endif /* WSE_DATASET_H */
