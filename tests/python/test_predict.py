# SPDX-License-Identifier: Apache-2.0
"""Trainer.predict, fit, state_dict and load_state_dict of the Python
package wsehost, and its Device over libwsehost on the functional model
(wsemu-fast, WSEMU_FAST): logits as a float64 forward pass computes them
and with the arg max evaluate() counts, the mesh backend's logits equal to
the host-reference backend's bit for bit, weights that go out and come
back, bad input refused with a sentence that names the problem."""

import os
import struct

import numpy as np
import pytest

import wsehost
from blobs import blobs

LAYERS = [7, 12, 3]
FAST = "sim:board=sim-2x2,model=fast"
needs_fast = pytest.mark.skipif(not os.environ.get("WSEMU_FAST"),
                                reason="WSEMU_FAST (the functional model wsemu-fast) is not set")


def forward64(state, x, nlayers):
    """The MLP's logits in float64 from the trainer's weights."""
    a = x.astype(np.float64)
    for k in range(nlayers):
        a = a @ state[f"layer{k}.weight"].astype(np.float64).T + state[f"layer{k}.bias"]
        if k + 1 < nlayers:
            a = np.maximum(a, 0)
    return a


def trained(backend="host-reference", **kw):
    t = wsehost.Trainer(layers=LAYERS, optimizer="adam", lr=0.01, batch_size=16, seed=5,
                        backend=backend, **kw)
    x, y = blobs(160, 1)
    t.fit(x, y, epochs=2, progress=False)
    return t


def test_predict_is_the_forward_pass_evaluate_counts():
    t = trained(mesh=(2, 2))
    xt, yt = blobs(53, 2)  # 3 batches of 16 and one of 5
    z = t.predict(xt)
    assert z.shape == (53, 3) and z.dtype == np.float32
    ref = forward64(t.state_dict(), xt, 2)
    np.testing.assert_allclose(z, ref, rtol=1e-5, atol=1e-5)
    e = t.evaluate(xt, yt)
    assert int(np.sum(z.argmax(axis=1) == yt)) == e["correct"]
    assert e["correct"] >= 48  # separable blobs
    # the same logits one example at a time, from a list, from float64
    assert t.predict(xt[:1]).tobytes() == z[:1].tobytes()
    assert t.predict(xt.astype(np.float64).tolist()).tobytes() == z.tobytes()
    assert t.step_count == 20


@needs_fast
def test_predict_on_the_mesh_equals_host_reference():
    host = trained(mesh=(2, 2))
    with trained(backend="mesh", device=FAST) as mesh:
        xt, _ = blobs(37, 3)
        zh, zm = host.predict(xt), mesh.predict(xt)
        assert zm.tobytes() == zh.tobytes()
        assert np.unique(zm).size > 37  # real logits, not a constant


def test_predict_on_two_devices():
    """Two host-reference devices take alternate batches: the logits of
    one device, bit for bit."""
    kw = dict(layers=LAYERS, optimizer="adam", lr=0.01, batch_size=8, seed=3, mesh=(2, 2))
    one, two = wsehost.Trainer(**kw), wsehost.Trainer(num_devices=2, **kw)
    xt, _ = blobs(45, 9)  # 6 batches: 3 rounds of two, the last partial
    assert two.predict(xt).tobytes() == one.predict(xt).tobytes()


def test_predict_errors():
    t = wsehost.Trainer(layers=LAYERS, batch_size=8)
    x, _ = blobs(4, 4)
    with pytest.raises(ValueError, match=r"x has shape \(4, 6\); the model takes \[n, 7\]"):
        t.predict(x[:, :6])
    with pytest.raises(ValueError, match=r"x has shape \(7,\)"):
        t.predict(x[0])
    with pytest.raises(ValueError, match="x has dtype complex64"):
        t.predict(x.astype(np.complex64))
    with pytest.raises(ValueError, match="x has dtype <U"):
        t.predict(np.full((2, 7), "a"))
    with pytest.raises(wsehost.WseError, match=r"no examples \(n = 0\)") as e:
        t.predict(x[:0])
    assert e.value.name == "WSE_ERROR_INVALID_PARAM"
    t.close()
    with pytest.raises(ValueError, match="closed"):
        t.predict(x)


def test_fit_equals_steps_and_reports(capsys):
    """fit() is step() on the shuffled batches: the same bits as the
    caller's own loop, a line per epoch on stderr, its history."""
    x, y = blobs(100, 6)
    kw = dict(layers=LAYERS, optimizer="sgd", lr=0.1, momentum=0.9, batch_size=16)
    a, b = wsehost.Trainer(**kw), wsehost.Trainer(**kw)
    hist = a.fit(x, y, epochs=3, seed=7, validation=(x, y))
    rng = np.random.default_rng(7)
    for _ in range(3):
        order = rng.permutation(100)
        for lo in range(0, 100, 16):
            b.step(x[order[lo:lo + 16]], y[order[lo:lo + 16]])
    assert a.step_count == b.step_count == 21
    for name, w in a.state_dict().items():
        assert w.tobytes() == b.get_tensor(name).tobytes(), name
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and err[2].startswith("epoch 3/3: 7 steps, loss ")
    assert "val_accuracy" in err[2]
    assert [h["steps"] for h in hist] == [7, 7, 7]
    assert hist[-1]["loss"] < hist[0]["loss"]
    e = a.evaluate(x, y)
    assert hist[-1]["val_accuracy"] == e["correct"] / 100
    a.fit(x, y, epochs=1, progress=False)
    assert capsys.readouterr().err == ""
    with pytest.raises(ValueError, match="batch_size = 17: must be 1..16"):
        a.fit(x, y, batch_size=17)


def test_state_dict_round_trip():
    a = trained()
    sd = a.state_dict()
    assert sorted(sd) == sorted(a.tensors())
    assert sd["layer0.weight"].shape == (12, 7) and sd["layer0.weight"].dtype == np.float32
    assert "layer1.bias.adam_v" in sd
    b = wsehost.Trainer(layers=LAYERS, optimizer="adam", lr=0.01, batch_size=16, seed=99)
    xt, _ = blobs(20, 8)
    assert b.predict(xt).tobytes() != a.predict(xt).tobytes()
    b.load_state_dict(sd)
    for name, w in b.state_dict().items():
        assert w.tobytes() == sd[name].tobytes(), name
    assert b.predict(xt).tobytes() == a.predict(xt).tobytes()
    # the copies are the caller's: changing them changes no trainer
    sd["layer0.weight"][:] = 0
    assert a.get_tensor("layer0.weight").any()
    # weights only, the optimizer state kept
    c = wsehost.Trainer(layers=LAYERS, optimizer="adam", lr=0.01, batch_size=16, seed=99)
    v = c.get_tensor("layer0.weight.adam_v")
    c.load_state_dict({"layer0.weight": sd["layer0.weight"]}, strict=False)
    assert not c.get_tensor("layer0.weight").any()
    assert c.get_tensor("layer0.weight.adam_v").tobytes() == v.tobytes()


def test_load_state_dict_errors_change_nothing():
    t = trained()
    before = t.state_dict()
    good = t.state_dict()
    with pytest.raises(ValueError, match="missing layer0.bias"):
        t.load_state_dict({k: v for k, v in good.items() if k != "layer0.bias"})
    with pytest.raises(ValueError, match="the model has no tensor layer7.weight"):
        t.load_state_dict(dict(good, **{"layer7.weight": good["layer0.weight"]}))
    bad = dict(good, **{"layer1.weight": np.zeros((3, 11), np.float32)})
    bad["layer0.weight"] = np.zeros((12, 7), np.float32)  # valid, but before the bad one
    with pytest.raises(ValueError, match=r"layer1.weight has shape \(3, 11\); the model's is "
                                         r"\(3, 12\)"):
        t.load_state_dict(bad)
    for name, w in t.state_dict().items():
        assert w.tobytes() == before[name].tobytes(), name


@needs_fast
def test_device_on_the_fast_model():
    with wsehost.Device(FAST) as dev:
        info = dev.info()
        assert info["board"] == "wsemu,sim-2x2"
        assert info["mesh"] == (2, 2) and info["columns"] == 2 and info["rows"] == 2
        assert info["dmem_bytes"] > 0 and info["imem_bytes"] > 0
        dev.halt()
        words = np.arange(1, 17, dtype=np.uint32) * 0x01010101
        dev.mem_write(1, 0, 0x80100000, words)
        assert dev.mem_read(1, 0, 0x80100000, 64) == words.tobytes()
        assert dev.mem_read(0, 1, 0x80100000, 64) != words.tobytes()  # another tile
        with pytest.raises(wsehost.WseError) as e:
            dev.mem_read(2, 0, 0x80100000, 4)
        assert e.value.name == "WSE_ERROR_RANGE" and "tile (2, 0)" in e.value.message
        with pytest.raises(wsehost.WseError) as e:
            dev.mem_read(0, 0, 0x80100002, 4)
        assert e.value.name == "WSE_ERROR_ALIGN"
        with pytest.raises(wsehost.WseError) as e:
            dev.load_elf(b"\x7fELF" + bytes(60), 0, 0)
        assert e.value.name == "WSE_ERROR_MALFORMED"
        elf = os.environ.get("WSEHOST_TEST_ELF")
        if elf:
            image = open(elf, "rb").read()
            dev.load_elf(elf, 0, 0)
            phoff, = struct.unpack_from("<I", image, 0x1C)
            phentsize, phnum = struct.unpack_from("<HH", image, 0x2A)
            loaded = 0
            for k in range(phnum):
                p_type, off, _, paddr, filesz = struct.unpack_from("<5I", image,
                                                                   phoff + k * phentsize)
                if p_type == 1 and filesz:
                    n = filesz // 4 * 4
                    assert dev.mem_read(0, 0, paddr, n) == image[off:off + n]
                    loaded += 1
            assert loaded >= 1
    with pytest.raises(ValueError, match="closed"):
        dev.info()


def test_device_open_errors():
    with pytest.raises(wsehost.WseError) as e:
        wsehost.Device("nosuch:thing")
    assert e.value.code < 0 and "opening 'nosuch:thing'" in e.value.message
