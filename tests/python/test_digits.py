# SPDX-License-Identifier: Apache-2.0
"""64-32-10 learns scikit-learn's digits through wsehost on the
host-reference backend: at least 95% on a seeded random 20% held out,
predict() and evaluate() agreeing; examples/train_digits.py prints that
accuracy on its last line."""

import os
import re
import subprocess
import sys

import numpy as np

import wsehost

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
sys.path.insert(0, EXAMPLES)
from train_digits import digits_split  # noqa: E402


def test_digits_to_95_percent():
    x, y, xt, yt = digits_split(seed=0)
    assert x.shape == (1438, 64) and xt.shape == (359, 64) and x.dtype == np.float32
    assert not set(map(bytes, xt)) <= set(map(bytes, x))  # held out, not a copy
    t = wsehost.Trainer(layers=[64, 32, 10], optimizer="adam", lr=0.01, batch_size=32, seed=1)
    hist = t.fit(x, y, epochs=20, seed=0, progress=False)
    assert len(hist) == 20 and t.step_count == 20 * 45
    e = t.evaluate(xt, yt)
    accuracy = e["correct"] / e["examples"]
    assert accuracy >= 0.95, accuracy
    pred = t.predict(xt).argmax(axis=1)
    assert int(np.sum(pred == yt)) == e["correct"]

    # the example trains the same model on the same split: the same bits
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, "train_digits.py")],
                         capture_output=True, text=True, check=True)
    last = out.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"accuracy [01]\.\d{4}", last), last
    assert last == f"accuracy {accuracy:.4f}"
    assert out.stderr.count("\nepoch ") + out.stderr.startswith("epoch ") == 20
