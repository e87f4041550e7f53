#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Train an MLP with libwsetrain on NumPy arrays (docs/training.md, "Python").

Four classes of points in 10 dimensions, a 10-32-4 model with Adam, three
epochs in batches of 32, then the held-out accuracy. Runs on the
host-reference backend; with --device URI (e.g.
sim:board=sim-2x2,model=fast) on the mesh backend of that device.

    make run-python-example
    python3 examples/train_numpy.py [--device URI] [--epochs N]
"""

import argparse
import os
import sys

import numpy as np

# the package of this source tree (python/wsehost), unless one is installed
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import wsehost  # noqa: E402


def data(n, seed):
    rng = np.random.default_rng(seed)
    centres = np.random.default_rng(0).normal(0, 1.5, size=(4, 10)).astype(np.float32)
    y = rng.integers(0, 4, size=n)
    x = centres[y] + rng.standard_normal((n, 10)).astype(np.float32)
    return x.astype(np.float32), y


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", help="train on the mesh backend of this device URI")
    ap.add_argument("--epochs", type=int, default=3)
    args = ap.parse_args()
    x, y = data(2048, 1)
    xt, yt = data(512, 2)
    kw = dict(backend="mesh", device=args.device) if args.device else {}
    t = wsehost.Trainer(layers=[10, 32, 4], optimizer="adam", lr=0.01, batch_size=32, seed=1, **kw)
    print(f"backend {t.backend}, test loss {t.evaluate(xt, yt)['loss']:.4f} before training")
    for epoch in range(args.epochs):
        order = np.random.default_rng(100 + epoch).permutation(len(x))
        for lo in range(0, len(x), t.batch_size):
            m = t.step(x[order[lo:lo + 32]], y[order[lo:lo + 32]])
        e = t.evaluate(xt, yt)
        print(f"epoch {epoch + 1}: step {m['step']} train loss {m['loss']:.4f} "
              f"test loss {e['loss']:.4f} accuracy {e['correct'] / e['examples']:.3f}")
    print("layer0.weight", t.get_tensor("layer0.weight").shape)
    t.close()


if __name__ == "__main__":
    main()
