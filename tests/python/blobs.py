# SPDX-License-Identifier: Apache-2.0
"""The tests' data: separable random examples."""

import numpy as np


def blobs(n, seed):
    """n examples of 3 classes around well separated centres in 7-D."""
    rng = np.random.default_rng(seed)
    centres = np.array([[2, 0, 0, 1, 0, -1, 0], [0, 2, 0, -1, 1, 0, 0], [0, 0, 2, 0, -1, 1, 1]],
                       dtype=np.float32)
    y = rng.integers(0, 3, size=n)
    x = centres[y] + 0.5 * rng.standard_normal((n, 7)).astype(np.float32)
    return x.astype(np.float32), y
