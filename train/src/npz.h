/* SPDX-License-Identifier: Apache-2.0 */
/*
 * npz.h - a MemoryX store's tensors as NumPy .npz: an uncompressed
 * (stored) zip of NAME.npy files, float32 '<f4' in C order
 * (docs/training.md, "Weights as NumPy .npz").
 */
#ifndef WSE_NPZ_H
#define WSE_NPZ_H

#include <stddef.h>
#include <stdint.h>

#include "memoryx.h"

/* CRC-32 of IEEE 802.3 (zip's): crc of p[0..n) continuing crc (start 0). */
uint32_t npz_crc32(uint32_t crc, const void *p, size_t n);

/* Write every tensor of st to path (through path.tmp and a rename).
 * Returns 0 or a negative enum wse_error; err names the file and problem. */
int npz_write(const char *path, const struct mx_store *st, char *err, size_t errlen);

/* Read path and set the tensors of st it holds. Every entry must name a
 * tensor of st ("NAME.npy"), at most once, stored (not compressed) with a
 * good CRC-32, '<f4', C order and the tensor's shape; tensors it does not
 * hold keep their values. On error st is unchanged and err names the
 * file, the entry, the offset and the problem. */
int npz_read(const char *path, struct mx_store *st, char *err, size_t errlen);

#endif /* WSE_NPZ_H */
