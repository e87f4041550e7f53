/* SPDX-License-Identifier: Apache-2.0 */
/*
 * train_mpi.h - training across processes and hosts on Open MPI
 * (train_mpi.c, built with mpicc; docs/training.md, "Across processes:
 * Open MPI"). Rank 0 holds the handle; ranks 1..N each serve one device.
 * Errors are negative enum wse_error values; err receives a sentence that
 * names the rank at fault.
 */
#ifndef WSE_TRAIN_MPI_H
#define WSE_TRAIN_MPI_H

#include <stddef.h>
#include "wsehost_train.h"

/* MPI_Init_thread with MPI_THREAD_MULTIPLE (refused: NOT_SUPPORTED), MPI
 * errors returned rather than fatal; *rank and *size of MPI_COMM_WORLD. */
int train_mpi_init(int *argc, char ***argv, int *rank, int *size, char *err, size_t errlen);
/* Rank 0: wse_train_create() whose device d is rank d + 1 (opts->num_devices
 * must be at most size - 1). Errors: those of wse_train_create(), and
 * TIMEOUT or DEVICE when a rank does not answer within runtime.timeout_ms
 * or is gone. */
int train_mpi_create(wse_train **t, const char *params_file, const struct wse_train_opts *opts,
		     char *err, size_t errlen);
/* Ranks 1..N: open the device rank 0 names and run its passes until rank 0
 * says quit (returns 0). Errors: TIMEOUT (no request from rank 0 for ten
 * minutes, or a message not complete within runtime.timeout_ms), DEVICE
 * (an MPI error: rank 0 is gone). A failure of the device itself goes back
 * to rank 0, which names it. */
int train_mpi_serve(char *err, size_t errlen);
/* MPI_Abort of the whole job; MPI_Finalize. */
void train_mpi_abort(int code);
void train_mpi_finish(void);

#endif /* WSE_TRAIN_MPI_H */
