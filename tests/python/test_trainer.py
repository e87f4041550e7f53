# SPDX-License-Identifier: Apache-2.0
"""The Python package wsehost (python/wsehost) over libwsetrain: a small model
learns separable random data, the mesh backend on the functional model
(wsemu-fast, WSEMU_FAST) gives the host-reference backend's bits, on one
device and on two, tensors
come out and go in, bad arrays and models raise WseError with the
library's sentence, files written by numpy.save train as the same
arrays do, and .npz weights go to numpy.load and come from numpy.savez."""

import os

import numpy as np
import pytest

import wsehost
from blobs import blobs

LAYERS = [7, 12, 3]


def train(trainer, x, y, steps):
    losses = []
    bs = trainer.batch_size
    for k in range(steps):
        lo = (k * bs) % len(x)
        losses.append(trainer.step(x[lo:lo + bs], y[lo:lo + bs])["loss"])
    return losses


def train2(trainer, x, y):
    """4 steps of 16 examples (8 a device on two devices)."""
    return [trainer.step(x[16 * k:16 * k + 16], y[16 * k:16 * k + 16])["loss"] for k in range(4)]


def all_tensors(trainer):
    return {name: trainer.get_tensor(name) for name in trainer.tensors()}


def test_learns_on_host_reference():
    x, y = blobs(320, 1)
    xt, yt = blobs(200, 2)
    t = wsehost.Trainer(layers=LAYERS, optimizer="adam", lr=0.01, batch_size=16, seed=5,
                      mesh=(2, 2))
    assert t.backend == "host-reference"
    before = t.evaluate(xt, yt)
    assert before["examples"] == 200
    losses = train(t, x, y, 60)
    after = t.evaluate(xt, yt)
    assert t.step_count == 60
    assert np.mean(losses[-10:]) < np.mean(losses[:10])
    assert after["loss"] < 0.5 * before["loss"]
    assert after["correct"] >= 180  # 90% of separable blobs
    w = t.get_tensor("layer0.weight")
    assert w.shape == (12, 7) and w.dtype == np.float32
    assert t.get_tensor("layer1.bias.adam_v").shape == (3,)
    t.close()


def test_same_bits_as_the_c_reference_order():
    """Two trainers of the same spec fed the same batches stay identical;
    set_tensor and get_tensor round-trip exactly."""
    x, y = blobs(64, 3)
    a = wsehost.Trainer(layers=LAYERS, optimizer="sgd", lr=0.1, momentum=0.9, batch_size=16)
    b = wsehost.Trainer(layers=LAYERS, optimizer="sgd", lr=0.1, momentum=0.9, batch_size=16)
    train(a, x, y, 4)
    train(b, x, y, 4)
    ta, tb = all_tensors(a), all_tensors(b)
    assert ta.keys() == tb.keys()
    for name in ta:
        assert ta[name].tobytes() == tb[name].tobytes(), name
    w = np.arange(84, dtype=np.float32).reshape(12, 7) / 100
    a.set_tensor("layer0.weight", w)
    assert a.get_tensor("layer0.weight").tobytes() == w.tobytes()


@pytest.mark.skipif(not os.environ.get("WSEMU_FAST"),
                    reason="WSEMU_FAST (the functional model wsemu-fast) is not set")
def test_mesh_on_fast_model_equals_host_reference():
    x, y = blobs(96, 4)
    kw = dict(layers=LAYERS, optimizer="adamw", lr=0.01, weight_decay=0.01, batch_size=16,
              seed=9)
    host = wsehost.Trainer(backend="host-reference", mesh=(2, 2), **kw)
    with wsehost.Trainer(backend="mesh", device="sim:board=sim-2x2,model=fast", **kw) as mesh:
        assert mesh.backend == "mesh"
        lh = train(host, x, y, 6)
        lm = train(mesh, x, y, 6)
        assert np.array(lh, dtype=np.float32).tobytes() == np.array(lm, dtype=np.float32).tobytes()
        assert lm[-1] < lm[0]
        th, tm = all_tensors(host), all_tensors(mesh)
        for name in th:
            assert th[name].tobytes() == tm[name].tobytes(), name
        eh, em = host.evaluate(x, y), mesh.evaluate(x, y)
        assert eh["loss"] == em["loss"] and eh["correct"] == em["correct"]
        assert em["device_cycles"] > 0
        # One device: its cycles are the largest; the host has none.
        assert em["device_cycles_max"] == em["device_cycles"]
        assert eh["device_cycles"] == 0 and eh["device_cycles_max"] == 0


@pytest.mark.skipif(not os.environ.get("WSEMU_FAST"),
                    reason="WSEMU_FAST (the functional model wsemu-fast) is not set")
def test_sparse_mesh_on_fast_model_equals_host_reference():
    """model.sparsity on the mesh backend (sparse weight streams): the
    host-reference backend's losses and tensors, masks included, bit for
    bit."""
    x, y = blobs(64, 4)
    kw = dict(layers=LAYERS, optimizer="sgd", lr=0.1, batch_size=16, seed=9, sparsity=0.75)
    host = wsehost.Trainer(backend="host-reference", mesh=(2, 2), **kw)
    with wsehost.Trainer(backend="mesh", device="sim:board=sim-2x2,model=fast", **kw) as mesh:
        lh = train(host, x, y, 4)
        lm = train(mesh, x, y, 4)
        assert np.array(lh, dtype=np.float32).tobytes() == np.array(lm, dtype=np.float32).tobytes()
        th, tm = all_tensors(host), all_tensors(mesh)
        assert "layer0.weight.mask" in th
        for name in th:
            assert th[name].tobytes() == tm[name].tobytes(), name



def test_two_devices():
    """Two host-reference devices: a step splits its examples in two
    micro-batches; trainers of the same spec stay identical, an odd n is
    refused with the library's sentence."""
    x, y = blobs(64, 6)
    kw = dict(layers=LAYERS, optimizer="sgd", lr=0.1, momentum=0.9, batch_size=8, mesh=(2, 2))
    a = wsehost.Trainer(num_devices=2, **kw)
    b = wsehost.Trainer(devices=["sim:board=sim-2x2", "sim:board=sim-2x2"], **kw)
    assert train2(a, x, y) == train2(b, x, y)
    assert a.step_count == 4
    ta, tb = all_tensors(a), all_tensors(b)
    for name in ta:
        assert ta[name].tobytes() == tb[name].tobytes(), name
    with pytest.raises(wsehost.WseError) as e:
        a.step(x[:7], y[:7])
    assert "n = 7 examples is not a multiple of the 2 devices" in e.value.message


def test_host_update_serial_equals_overlap():
    """The update beside the passes and the serial order: the same losses
    and tensors, step by step; another value is refused."""
    x, y = blobs(64, 7)
    kw = dict(layers=[7, 12, 9, 3], optimizer="adam", lr=0.01, batch_size=8, num_devices=2)
    a = wsehost.Trainer(host_update="overlap", **kw)
    b = wsehost.Trainer(host_update="serial", **kw)
    assert train2(a, x, y) == train2(b, x, y)
    ta, tb = all_tensors(a), all_tensors(b)
    for name in ta:
        assert ta[name].tobytes() == tb[name].tobytes(), name
    with pytest.raises(wsehost.WseError) as e:
        wsehost.Trainer(host_update="later", **kw)
    assert "spec.host_update = 'later': must be overlap or serial" in e.value.message


@pytest.mark.skipif(not os.environ.get("WSEMU_FAST"),
                    reason="WSEMU_FAST (the functional model wsemu-fast) is not set")
def test_two_fast_devices_equal_host_reference():
    x, y = blobs(64, 7)
    kw = dict(layers=LAYERS, optimizer="adam", lr=0.01, batch_size=8, seed=3, num_devices=2)
    host = wsehost.Trainer(backend="host-reference", mesh=(2, 2), **kw)
    with wsehost.Trainer(backend="mesh", device="sim:board=sim-2x2,model=fast", **kw) as mesh:
        lh, lm = train2(host, x, y), train2(mesh, x, y)
        assert np.array(lh, dtype=np.float32).tobytes() == np.array(lm, dtype=np.float32).tobytes()
        th, tm = all_tensors(host), all_tensors(mesh)
        for name in th:
            assert th[name].tobytes() == tm[name].tobytes(), name
        # Two devices at once: the step's device time is the larger of
        # their two counts, the sum counts both.
        m = mesh.step(x[:16], y[:16])
        assert 0 < m["device_cycles_max"] < m["device_cycles"] <= 2 * m["device_cycles_max"]


def test_sparsity():
    """model.sparsity from Python: the masks are tensors with
    floor(s * elements) zeros, a masked weight stays exactly +0 through
    Adam's steps, the same seed gives the same bits and another seed other
    masks; magnitude pruning at a step; values outside [0, 1) are refused
    with the library's sentences."""
    x, y = blobs(64, 8)
    kw = dict(layers=[7, 16, 3], optimizer="adam", lr=0.01, batch_size=16)
    a = wsehost.Trainer(sparsity=0.5, sparsity_seed=5, **kw)
    b = wsehost.Trainer(sparsity=0.5, sparsity_seed=5, **kw)
    c = wsehost.Trainer(sparsity=0.5, sparsity_seed=6, **kw)
    assert train2(a, x, y) == train2(b, x, y)
    ta, tb = all_tensors(a), all_tensors(b)
    assert sorted(ta) == sorted(tb)
    for name in ta:
        assert ta[name].tobytes() == tb[name].tobytes(), name
    for layer, (n_o, n_i) in enumerate([(16, 7), (3, 16)]):
        mask = ta[f"layer{layer}.weight.mask"]
        w = ta[f"layer{layer}.weight"]
        assert mask.shape == w.shape == (n_o, n_i)
        assert set(np.unique(mask)) <= {0.0, 1.0}
        assert int((mask == 0).sum()) == (n_o * n_i) // 2
        # Masked: +0 exactly (the sign bit clear too); kept: trained.
        assert not w.view(np.uint32)[mask == 0].any()
        assert (w[mask == 1] != 0).all()
    assert ta["layer0.weight.mask"].tobytes() != all_tensors(c)["layer0.weight.mask"].tobytes()
    # Dense until step 2, then the smallest magnitudes masked.
    p = wsehost.Trainer(sparsity=0.75, prune_step=2, **kw)
    p.step(x[:16], y[:16])
    w1 = p.get_tensor("layer0.weight")
    assert (w1 != 0).all()
    p.step(x[16:32], y[16:32])
    p.step(x[32:48], y[32:48])
    mask = p.get_tensor("layer0.weight.mask")
    assert int((mask == 0).sum()) == (16 * 7 * 3) // 4
    assert not p.get_tensor("layer0.weight").view(np.uint32)[mask == 0].any()
    for bad in (1.0, -0.25):
        with pytest.raises(wsehost.WseError) as e:
            wsehost.Trainer(sparsity=bad, **kw)
        assert e.value.name == "WSE_ERROR_INVALID_PARAM"
        assert "must be a number in [0, 1)" in e.value.message


def test_errors():
    x, y = blobs(20, 5)
    t = wsehost.Trainer(layers=LAYERS, batch_size=8)
    bad = y.copy()
    bad[3] = 3
    with pytest.raises(wsehost.WseError) as e:
        t.step(x[:8], bad[:8])
    assert e.value.name == "WSE_ERROR_RANGE"
    assert "example 3 has label 3; the model has 3 classes" in e.value.message
    bad[3] = -2
    with pytest.raises(wsehost.WseError, match="example 3 has label -2"):
        t.evaluate(x, bad)
    with pytest.raises(wsehost.WseError, match="above the batch size 8") as e:
        t.step(x[:9], y[:9])
    assert e.value.code < 0
    with pytest.raises(wsehost.WseError, match="no examples"):
        t.step(x[:0], y[:0])
    with pytest.raises(wsehost.WseError, match="no tensor named 'nope'"):
        t.get_tensor("nope")
    with pytest.raises(ValueError, match=r"model takes \[n, 7\]"):
        t.step(x[:, :6], y)
    with pytest.raises(TypeError):
        t.step(x[:8], y[:8].astype(np.float32))
    assert t.step_count == 0
    with pytest.raises(wsehost.WseError, match=r"spec.widths\[1\] = 1 classes: must be 2..256"):
        wsehost.Trainer(layers=[7, 1])
    with pytest.raises(wsehost.WseError, match="spec.optimizer = 'rmsprop'") as e:
        wsehost.Trainer(layers=LAYERS, optimizer="rmsprop")
    assert e.value.name == "WSE_ERROR_INVALID_PARAM"
    with pytest.raises(wsehost.WseError, match="spec.lr = 0"):
        wsehost.Trainer(layers=LAYERS, lr=0.0)


@pytest.mark.parametrize("xdtype,ydtype", [(np.float32, np.int64), (np.uint8, np.int32),
                                           (np.float32, np.uint8)])
def test_npy_files_from_numpy(tmp_path, xdtype, ydtype):
    """numpy.save's files (shapes of any rank after the first) load as the
    arrays they hold: the model trained from them equals one fed the same
    batches by step()."""
    x, y = blobs(64, 6)
    if xdtype == np.uint8:
        x = np.clip(x * 40 + 128, 0, 255).astype(np.uint8)
        xf = x.astype(np.float32) / np.float32(255)
    else:
        xf = x
    np.save(tmp_path / "x.npy", x.reshape(64, 7, 1))
    np.save(tmp_path / "y.npy", y.astype(ydtype))
    data = dict(format="npy", train_x=tmp_path / "x.npy", train_y=tmp_path / "y.npy",
                test_x=tmp_path / "x.npy", test_y=tmp_path / "y.npy")
    kw = dict(layers=LAYERS, optimizer="adam", lr=0.01, batch_size=16)
    a = wsehost.Trainer(data=data, **kw)
    b = wsehost.Trainer(**kw)
    for k in range(8):
        ma = a.step_data()
        lo = (k * 16) % 64
        mb = b.step(xf[lo:lo + 16], y[lo:lo + 16])
        assert ma["loss"] == mb["loss"]
    for name, w in all_tensors(a).items():
        assert w.tobytes() == b.get_tensor(name).tobytes(), name
    ea, eb = a.evaluate_data(), b.evaluate(xf, y)
    assert ea["examples"] == 64 and ea["loss"] == eb["loss"]


def test_npy_file_errors(tmp_path):
    x, y = blobs(32, 7)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "x64.npy", x.astype(np.float64))
    np.save(tmp_path / "xf.npy", np.asfortranarray(x))
    np.save(tmp_path / "y.npy", y)
    np.save(tmp_path / "y31.npy", y[:31])

    def make(xname, yname):
        wsehost.Trainer(layers=LAYERS, data=dict(format="npy", train_x=tmp_path / xname,
                                               train_y=tmp_path / yname))
    with pytest.raises(wsehost.WseError, match=r"x64.npy: offset \d+: wrong dtype '<f8'"):
        make("x64.npy", "y.npy")
    with pytest.raises(wsehost.WseError, match=r"xf.npy: offset \d+: Fortran order"):
        make("xf.npy", "y.npy")
    with pytest.raises(wsehost.WseError, match="shape mismatch: .*x.npy has 32 examples"):
        make("x.npy", "y31.npy")
    with pytest.raises(wsehost.WseError, match=r"x.npy: offset \d+: wrong dtype '<f4'"):
        make("x.npy", "x.npy")
    with pytest.raises(ValueError, match="unknown keys"):
        wsehost.Trainer(layers=LAYERS, data=dict(fmt="npy"))


def test_npz_round_trip_with_numpy(tmp_path):
    """numpy.load reads what export_npz writes (every tensor, its shape,
    float32, the same bits); import_npz reads what numpy.savez writes, and
    refuses savez_compressed, float64, a wrong shape and an unknown name
    with nothing changed."""
    x, y = blobs(32, 8)
    a = wsehost.Trainer(layers=LAYERS, optimizer="adam", lr=0.01, batch_size=16)
    train(a, x, y, 3)
    a.export_npz(tmp_path / "a.npz")
    with np.load(tmp_path / "a.npz") as z:
        assert sorted(z.files) == sorted(a.tensors())
        for name, shape in a.tensors().items():
            assert z[name].dtype == np.float32 and z[name].shape == shape, name
            assert z[name].tobytes() == a.get_tensor(name).tobytes(), name
    b = wsehost.Trainer(layers=LAYERS, optimizer="adam", lr=0.01, batch_size=16)
    new = {name: (a.get_tensor(name) * 3 - 1).astype(np.float32) for name in a.tensors()}
    np.savez(tmp_path / "b.npz", **new)
    b.import_npz(tmp_path / "b.npz")
    for name in new:
        assert b.get_tensor(name).tobytes() == new[name].tobytes(), name
    # PyTorch-style weights only: the optimizer state stays
    np.savez(tmp_path / "w.npz", **{"layer0.weight": new["layer0.weight"] * 2})
    b.import_npz(tmp_path / "w.npz")
    assert b.get_tensor("layer0.weight").tobytes() == (new["layer0.weight"] * 2).tobytes()
    assert b.get_tensor("layer1.bias.adam_v").tobytes() == new["layer1.bias.adam_v"].tobytes()
    before = all_tensors(b)
    w = new["layer0.weight"]
    bad = {
        "c.npz": (np.savez_compressed, {"layer0.weight": w}, "compressed .method 8."),
        "d.npz": (np.savez, {"layer0.weight": w.astype(np.float64)}, "wrong dtype '<f8'"),
        "s.npz": (np.savez, {"layer0.weight": w[:, :6].copy()},
                  r"shape \(12, 6\), the tensor's is \(12, 7\)"),
        "n.npz": (np.savez, {"layer9.weight": w}, "the model has no tensor 'layer9.weight'"),
    }
    for fname, (save, arrays, msg) in bad.items():
        save(tmp_path / fname, **arrays)
        with pytest.raises(wsehost.WseError, match=msg):
            b.import_npz(tmp_path / fname)
    after = all_tensors(b)
    for name in before:
        assert before[name].tobytes() == after[name].tobytes(), name
