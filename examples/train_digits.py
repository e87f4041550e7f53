#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Train 64-32-10 on scikit-learn's digits with wsehost (docs/python.md).

The 1,797 8x8 images of handwritten digits (sklearn.datasets.load_digits,
pixels 0..16 scaled to 0..1), a seeded random 20% held out for the test;
Adam 0.01 in batches of 32 for 20 epochs with a progress line per epoch on
stderr, then the held-out accuracy on the last line of stdout:
`accuracy <fraction>`. Runs on the host-reference backend; with --device
URI (e.g. sim:board=sim-2x2,model=fast) on the mesh backend of that device.

    make run-python-digits
    python3 examples/train_digits.py [--device URI] [--epochs N] [--seed S]
"""

import argparse
import os
import sys

import numpy as np
from sklearn.datasets import load_digits

# the package of this source tree (python/wsehost), unless one is installed
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import wsehost  # noqa: E402


def digits_split(seed, test_fraction=0.2):
    """x float32 [n, 64] in 0..1, y int [n]: (train x, train y, test x, test y)."""
    d = load_digits()
    x = (d.data / 16.0).astype(np.float32)
    order = np.random.default_rng(seed).permutation(len(x))
    n_test = int(round(test_fraction * len(x)))
    test, train = order[:n_test], order[n_test:]
    return x[train], d.target[train], x[test], d.target[test]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", help="train on the mesh backend of this device URI")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0, help="the split's and the shuffle's seed")
    args = ap.parse_args()
    x, y, xt, yt = digits_split(args.seed)
    kw = dict(backend="mesh", device=args.device) if args.device else {}
    with wsehost.Trainer(layers=[64, 32, 10], optimizer="adam", lr=0.01, batch_size=32,
                         seed=1, **kw) as t:
        print(f"digits: {len(x)} training and {len(xt)} test examples, backend {t.backend}")
        t.fit(x, y, epochs=args.epochs, seed=args.seed, validation=(xt, yt))
        pred = t.predict(xt).argmax(axis=1)
        print(f"accuracy {np.mean(pred == yt):.4f}")


if __name__ == "__main__":
    main()
