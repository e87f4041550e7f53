# SPDX-License-Identifier: Apache-2.0
"""wsehost: train MLP classifiers with libwsetrain from NumPy.

A ctypes wrapper of the training API (train/include/wsehost_train.h) and
of libwsehost's device calls (docs/python.md); it needs numpy and the
shared library libwsetrain.so, found in this order:
  - the path in the environment variable WSEMU_LIBWSETRAIN;
  - build/train/libwsetrain.so of the source tree this package sits in;
  - the system's library path (an installed libwsetrain).

    import numpy as np, wsehost
    t = wsehost.Trainer(layers=[7, 16, 3], optimizer="adam", lr=0.01, batch_size=32)
    t.fit(x, y, epochs=5)           # a line per epoch on stderr
    t.evaluate(x_test, y_test)      # {'loss': ..., 'correct': ..., ...}
    logits = t.predict(x_test)      # float32 [n, 3]

    with wsehost.Device("sim:board=sim-2x2,model=fast") as dev:
        dev.info()["mesh"]          # (rows, columns)

Every failure of the libraries raises WseError with its code and sentence.
"""

import ctypes
import ctypes.util
import glob
import os
import sys
import time

import numpy as np

__all__ = ["Trainer", "Device", "WseError", "MAX_LAYERS", "MAX_WIDTH", "MAX_CLASSES",
           "ALL_TILES"]

# wsehost_train.h
MAX_LAYERS = 8
MAX_WIDTH = 65536
MAX_CLASSES = 256
# wsehost.h: x = y = ALL_TILES addresses every tile
ALL_TILES = 0xFF

_c_float_p = ctypes.POINTER(ctypes.c_float)
_c_int32_p = ctypes.POINTER(ctypes.c_int32)


class _Spec(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("num_layers", ctypes.c_uint32),
        ("widths", ctypes.c_uint32 * (MAX_LAYERS + 1)),
        ("optimizer", ctypes.c_char_p),
        ("lr", ctypes.c_float),
        ("momentum", ctypes.c_float),
        ("beta1", ctypes.c_float),
        ("beta2", ctypes.c_float),
        ("eps", ctypes.c_float),
        ("weight_decay", ctypes.c_float),
        ("init_seed", ctypes.c_uint64),
        ("batch_size", ctypes.c_uint32),
        ("micro_batches", ctypes.c_uint32),
        ("backend", ctypes.c_char_p),
        ("device", ctypes.c_char_p),
        ("mesh_rows", ctypes.c_uint32),
        ("mesh_cols", ctypes.c_uint32),
        ("timeout_ms", ctypes.c_int32),
        ("data_dir", ctypes.c_char_p),
        ("data_pool", ctypes.c_uint32),
        ("data_shuffle", ctypes.c_uint32),
        ("data_shuffle_seed", ctypes.c_uint64),
        ("memoryx_file", ctypes.c_char_p),
        ("data_format", ctypes.c_char_p),
        ("data_train_x", ctypes.c_char_p),
        ("data_train_y", ctypes.c_char_p),
        ("data_test_x", ctypes.c_char_p),
        ("data_test_y", ctypes.c_char_p),
        ("data_label_column", ctypes.c_uint32),
        ("devices", ctypes.c_char_p),
        ("host_update", ctypes.c_char_p),
        ("sparsity", ctypes.c_float),
        ("sparsity_seed", ctypes.c_uint64),
        ("prune_step", ctypes.c_uint64),
    ]


class _Opts(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("model_dir", ctypes.c_char_p),
        ("num_devices", ctypes.c_uint),
    ]


class _Metrics(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("step", ctypes.c_uint64),
        ("loss", ctypes.c_float),
        ("correct", ctypes.c_uint32),
        ("examples", ctypes.c_uint32),
        ("device_cycles", ctypes.c_uint64),
        ("device_cycles_max", ctypes.c_uint64),
    ]


class _OpenOpts(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("timeout_ms", ctypes.c_int),
        ("open_timeout_ms", ctypes.c_int),
        ("log_cb", ctypes.c_void_p),
        ("log_user", ctypes.c_void_p),
        ("log_level", ctypes.c_int),
    ]


class _Info(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("proto_major", ctypes.c_uint),
        ("proto_minor", ctypes.c_uint),
        ("max_payload", ctypes.c_uint32),
        ("max_outstanding", ctypes.c_uint32),
        ("build_id", ctypes.c_char * 33),
        ("compatible", ctypes.c_char * 64),
        ("model", ctypes.c_char * 96),
        ("columns", ctypes.c_uint),
        ("rows", ctypes.c_uint),
        ("colors", ctypes.c_uint),
        ("user_colors", ctypes.c_uint),
        ("num_vc", ctypes.c_uint),
        ("vc_depth", ctypes.c_uint),
        ("ramp_color_depth", ctypes.c_uint),
        ("color_vc", ctypes.c_uint8 * 32),
        ("imem_bytes", ctypes.c_uint),
        ("dmem_bytes", ctypes.c_uint),
        ("dmem_banks", ctypes.c_uint),
        ("link_compatible", ctypes.c_char * 32),
        ("link_width_bits", ctypes.c_uint),
        ("link_bytes_per_cycle", ctypes.c_uint),
        ("link_latency_cycles", ctypes.c_uint),
    ]


class WseError(Exception):
    """A failure of libwsetrain or libwsehost: code is the negative enum wse_error value,
    name its name ("WSE_ERROR_RANGE"), message the library's sentence."""

    def __init__(self, code, name, message):
        super().__init__(f"{message} ({name}, {code})" if message else f"{name} ({code})")
        self.code = code
        self.name = name
        self.message = message


def _library_path():
    env = os.environ.get("WSEMU_LIBWSETRAIN")
    if env:
        return env
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    tree = os.path.join(root, "build", "train", "libwsetrain.so")
    if os.path.exists(tree):
        return tree
    found = ctypes.util.find_library("wsetrain")
    if found:
        return found
    raise OSError("libwsetrain.so not found: build it (make trainlib) or set WSEMU_LIBWSETRAIN "
                  "to its path")


def _load():
    path = _library_path()
    # libwsehost, which libwsetrain needs, from the same directory or the
    # build tree's host-lib/ when it is not on the library path
    here = os.path.dirname(os.path.abspath(path))
    for d in (here, os.path.join(os.path.dirname(here), "host-lib")):
        hosts = sorted(glob.glob(os.path.join(d, "libwsehost.so.*")))
        if hosts:
            ctypes.CDLL(hosts[0], mode=ctypes.RTLD_GLOBAL)
            break
    lib = ctypes.CDLL(path)
    sig = {
        "wse_train_spec_init": (None, [ctypes.POINTER(_Spec), ctypes.c_size_t]),
        "wse_train_create_model": (ctypes.c_int, [ctypes.POINTER(ctypes.c_void_p),
                                                  ctypes.POINTER(_Spec), ctypes.POINTER(_Opts),
                                                  ctypes.c_char_p, ctypes.c_size_t]),
        "wse_train_destroy": (None, [ctypes.c_void_p]),
        "wse_train_last_error": (ctypes.c_char_p, [ctypes.c_void_p]),
        "wse_train_backend": (ctypes.c_char_p, [ctypes.c_void_p]),
        "wse_train_get_step": (ctypes.c_uint64, [ctypes.c_void_p]),
        "wse_train_step_batch": (ctypes.c_int, [ctypes.c_void_p, _c_float_p, _c_int32_p,
                                                ctypes.c_uint32, ctypes.POINTER(_Metrics)]),
        "wse_train_eval_batch": (ctypes.c_int, [ctypes.c_void_p, _c_float_p, _c_int32_p,
                                                ctypes.c_uint32, ctypes.POINTER(_Metrics)]),
        "wse_train_step": (ctypes.c_int, [ctypes.c_void_p, ctypes.POINTER(_Metrics)]),
        "wse_train_eval": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_uint32,
                                          ctypes.POINTER(_Metrics)]),
        "wse_train_tensor_info": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_uint,
                                                 ctypes.POINTER(ctypes.c_char_p),
                                                 ctypes.POINTER(ctypes.c_uint),
                                                 ctypes.POINTER(ctypes.c_uint32)]),
        "wse_train_get_tensor": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p, _c_float_p,
                                                ctypes.c_size_t]),
        "wse_train_set_tensor": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p, _c_float_p,
                                                ctypes.c_size_t]),
        "wse_train_save": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p]),
        "wse_train_load": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p]),
        "wse_train_export_npz": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p]),
        "wse_train_import_npz": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p]),
        "wse_train_predict": (ctypes.c_int, [ctypes.c_void_p, _c_float_p, ctypes.c_uint32,
                                             _c_float_p]),
        "wse_error_name": (ctypes.c_char_p, [ctypes.c_int]),
        # libwsehost (wsehost.h), which libwsetrain links
        "wse_strerror": (ctypes.c_char_p, [ctypes.c_int]),
        "wse_open": (ctypes.c_int, [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p,
                                    ctypes.POINTER(_OpenOpts)]),
        "wse_close": (None, [ctypes.c_void_p]),
        "wse_get_info": (ctypes.c_int, [ctypes.c_void_p, ctypes.POINTER(_Info)]),
        "wse_mem_read": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint,
                                        ctypes.c_uint32, ctypes.c_void_p, ctypes.c_size_t]),
        "wse_mem_write": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint,
                                         ctypes.c_uint32, ctypes.c_void_p, ctypes.c_size_t]),
        "wse_tile_halt": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint]),
        "wse_tile_run": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint]),
        "wse_load_elf": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint,
                                        ctypes.c_void_p, ctypes.c_size_t]),
    }
    for name, (res, args) in sig.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    return lib


_lib = None


def _library():
    global _lib
    if _lib is None:
        _lib = _load()
    return _lib


def _error(code, message):
    name = _library().wse_error_name(code)
    return WseError(code, name.decode() if name else "error", message)


def _bytes(s):
    return None if s is None else str(s).encode()


class Trainer:
    """An MLP trained by libwsetrain on the caller's arrays.

    layers: widths, inputs first and classes last (2..MAX_CLASSES), at most
    MAX_LAYERS + 1 of them. optimizer: "sgd", "adam" or "adamw"; lr,
    momentum, beta1, beta2, eps, weight_decay as the params file's
    optimizer.* keys (None: their defaults). batch_size bounds the examples
    of one step. backend: "host-reference" or "mesh"; device: the mesh
    backend's device URI (e.g. "sim:board=sim-2x2,model=fast"); devices: a
    list of device URIs to train on together, or num_devices: that many
    devices of device (docs/training.md, "Several devices"; step() then
    takes a multiple of the device count, up to it times batch_size); mesh:
    (rows, columns) whose summation order the host-reference backend
    reproduces (the mesh backend takes its device's). seed: the
    initialization's seed. data: a dataset in files the library reads
    (docs/training.md, "Data"), a dict of the params file's data.* keys
    without "data.": format ("idx", "npy", "csv"), train_x, train_y,
    test_x, test_y, label_column (an integer or "last"), shuffle,
    shuffle_seed; train on it with step_data() and evaluate with
    evaluate_data(). host_update: "overlap" (None, the default: each
    layer's optimizer update on a host thread as soon as its gradients are
    out, beside the device) or "serial" (docs/training.md, "The host update
    beside the device"); the same bits. sparsity, sparsity_seed,
    prune_step: model.sparsity (the fraction of every weight matrix masked,
    in [0, 1); host-reference backend), its random masks' seed, and the step
    of magnitude pruning (0: the fixed random masks from the start); the
    masks are the tensors "layerN.weight.mask" (docs/training.md,
    "Sparsity"). Results are bit-identical to the C API and to wsetrain
    given the same model, data and order.
    """

    def __init__(self, layers, optimizer="sgd", lr=None, momentum=None, beta1=None,
                 beta2=None, eps=None, weight_decay=None, batch_size=32,
                 backend="host-reference", device=None, mesh=None, seed=1, timeout_ms=None,
                 data=None, devices=None, num_devices=0, host_update=None,
                 sparsity=None, sparsity_seed=None, prune_step=None):
        lib = _library()
        self._t = ctypes.c_void_p()
        layers = [int(w) for w in layers]
        if not 2 <= len(layers) <= MAX_LAYERS + 1:
            raise ValueError(f"layers: {len(layers)} widths; give 2..{MAX_LAYERS + 1} "
                             "(inputs, hidden..., classes)")
        spec = _Spec()
        lib.wse_train_spec_init(ctypes.byref(spec), ctypes.sizeof(spec))
        spec.num_layers = len(layers) - 1
        for k, w in enumerate(layers):
            if not 0 <= w < 2**32:
                raise ValueError(f"layers[{k}] = {w}: must be 1..{MAX_WIDTH}")
            spec.widths[k] = w
        self._keep = [_bytes(optimizer), _bytes(backend), _bytes(device),
                      _bytes(None if devices is None else ", ".join(devices)),
                      _bytes(host_update)]
        (spec.optimizer, spec.backend, spec.device, spec.devices,
         spec.host_update) = self._keep
        for key, val in (("lr", lr), ("momentum", momentum), ("beta1", beta1),
                         ("beta2", beta2), ("eps", eps), ("weight_decay", weight_decay),
                         ("timeout_ms", timeout_ms), ("sparsity", sparsity),
                         ("sparsity_seed", sparsity_seed), ("prune_step", prune_step)):
            if val is not None:
                setattr(spec, key, val)
        spec.init_seed = int(seed)
        spec.batch_size = int(batch_size)
        if mesh is not None:
            spec.mesh_rows, spec.mesh_cols = (int(v) for v in mesh)
        self._data_spec(spec, data)
        err = ctypes.create_string_buffer(768)
        opts = _Opts(size=ctypes.sizeof(_Opts), num_devices=int(num_devices))
        rc = lib.wse_train_create_model(ctypes.byref(self._t), ctypes.byref(spec),
                                        ctypes.byref(opts), err, len(err))
        if rc < 0:
            self._t = None
            raise _error(rc, err.value.decode(errors="replace"))
        self.layers = layers
        self.batch_size = int(batch_size)
        self.num_devices = len(devices) if devices else max(int(num_devices), 1)

    _DATA_PATHS = ("format", "train_x", "train_y", "test_x", "test_y")

    def _data_spec(self, spec, data):
        data = dict(data or {})
        unknown = set(data) - set(self._DATA_PATHS) - {"label_column", "shuffle",
                                                        "shuffle_seed"}
        if unknown:
            raise ValueError(f"data: unknown keys {sorted(unknown)}")
        for key in self._DATA_PATHS:
            if data.get(key) is not None:
                v = data[key] if key == "format" else os.fspath(data[key])
                self._keep.append(_bytes(v))
                setattr(spec, "data_" + key, self._keep[-1])
        col = data.get("label_column", 0)
        spec.data_label_column = 0xFFFFFFFF if col == "last" else int(col)
        spec.data_shuffle = int(data.get("shuffle", 0))
        spec.data_shuffle_seed = int(data.get("shuffle_seed", 1))

    def _check(self, rc):
        if rc < 0:
            raise _error(rc, _library().wse_train_last_error(self._t).decode(errors="replace"))
        return rc

    def _handle(self):
        if not self._t:
            raise ValueError("the trainer is closed")
        return self._t

    def close(self):
        """Release the model and its device; the trainer is unusable after."""
        if getattr(self, "_t", None) and _lib is not None:
            _lib.wse_train_destroy(self._t)
            self._t = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    @property
    def backend(self):
        return _library().wse_train_backend(self._handle()).decode()

    @property
    def step_count(self):
        """Optimizer steps done."""
        return int(_library().wse_train_get_step(self._handle()))

    def _arrays(self, x, y):
        x = np.ascontiguousarray(x, dtype=np.float32)
        if x.ndim != 2 or x.shape[1] != self.layers[0]:
            raise ValueError(f"x has shape {x.shape}; the model takes [n, {self.layers[0]}]")
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != x.shape[0]:
            raise ValueError(f"y has shape {y.shape}; x has {x.shape[0]} examples")
        if y.dtype.kind not in "iu":
            raise TypeError(f"y has dtype {y.dtype}; labels are integers")
        if y.size and (y.min() < -2**31 or y.max() >= 2**31):
            bad = int(np.flatnonzero((y < -2**31) | (y >= 2**31))[0])
            raise ValueError(f"example {bad} has label {y[bad]}; the model has "
                             f"{self.layers[-1]} classes")
        y = np.ascontiguousarray(y, dtype=np.int32)
        return x, y

    def _run(self, fn, x, y):
        x, y = self._arrays(x, y)
        m = _Metrics(size=ctypes.sizeof(_Metrics))
        self._check(fn(self._handle(), x.ctypes.data_as(_c_float_p),
                       y.ctypes.data_as(_c_int32_p), x.shape[0], ctypes.byref(m)))
        return self._metrics(m)

    def step(self, x, y):
        """One optimizer step on x (float32 [n, inputs], 1 <= n <= batch_size)
        and integer labels y [n]; returns loss (mean), correct, examples,
        step, device_cycles (summed over the devices) and device_cycles_max
        (the largest over the devices: the step's device time when they run
        at once)."""
        return self._run(_library().wse_train_step_batch, x, y)

    def evaluate(self, x, y):
        """Mean loss and correct count on any number of examples, in
        batches of batch_size; changes nothing."""
        return self._run(_library().wse_train_eval_batch, x, y)

    def predict(self, x):
        """The logits (the last layer's outputs, before the softmax) of x,
        float32 [n, inputs] (any real dtype is converted), as a float32
        array [n, classes], from the backend's forward pass (on the mesh,
        the device's), in batches of batch_size; argmax(axis=1) is the
        prediction evaluate() counts. Changes nothing."""
        x = np.asarray(x)
        if x.dtype.kind not in "fiu":
            raise ValueError(f"x has dtype {x.dtype}; predict takes real numbers (float32)")
        if x.ndim != 2 or x.shape[1] != self.layers[0]:
            raise ValueError(f"x has shape {x.shape}; the model takes [n, {self.layers[0]}]")
        if x.shape[0] >= 2**32:
            raise ValueError(f"x has {x.shape[0]} examples; at most {2**32 - 1} a call")
        x = np.ascontiguousarray(x, dtype=np.float32)
        out = np.empty((x.shape[0], self.layers[-1]), dtype=np.float32)
        self._check(_library().wse_train_predict(self._handle(), x.ctypes.data_as(_c_float_p),
                                                 x.shape[0], out.ctypes.data_as(_c_float_p)))
        return out

    def fit(self, x, y, epochs=1, batch_size=None, shuffle=True, seed=0, progress=True,
            validation=None):
        """Train on all of x, y for epochs passes, one step() per batch of
        batch_size examples (default and most: the trainer's batch_size
        times its devices; the last batch of an epoch takes what is left,
        cut to a multiple of the devices). shuffle: a new order each epoch
        from numpy.random.default_rng(seed); False: the order of x.
        validation: (x, y) evaluated after each epoch. progress: a line per
        epoch on stderr. Returns one dict per epoch: epoch, steps, loss (the
        mean over the epoch's examples), accuracy (of the steps' examples,
        before each update), and val_loss, val_accuracy with validation."""
        x, y = self._arrays(x, y)
        most = self.batch_size * self.num_devices
        bs = most if batch_size is None else int(batch_size)
        if not self.num_devices <= bs <= most:
            raise ValueError(f"batch_size = {bs}: must be {self.num_devices}..{most} "
                             f"(the trainer's batch_size {self.batch_size} times "
                             f"{self.num_devices} device(s))")
        if int(epochs) < 0:
            raise ValueError(f"epochs = {epochs}: must be >= 0")
        rng = np.random.default_rng(seed)
        history = []
        for epoch in range(1, int(epochs) + 1):
            t0 = time.monotonic()
            order = rng.permutation(len(x)) if shuffle else np.arange(len(x))
            loss_sum, correct, seen, steps = 0.0, 0, 0, 0
            for lo in range(0, len(x), bs):
                idx = order[lo:lo + bs]
                idx = idx[:len(idx) - len(idx) % self.num_devices]
                if not len(idx):
                    continue
                m = self.step(x[idx], y[idx])
                loss_sum += m["loss"] * m["examples"]
                correct += m["correct"]
                seen += m["examples"]
                steps += 1
            h = {"epoch": epoch, "steps": steps, "loss": loss_sum / max(seen, 1),
                 "accuracy": correct / max(seen, 1)}
            line = (f"epoch {epoch}/{epochs}: {steps} steps, loss {h['loss']:.4f}, "
                    f"accuracy {h['accuracy']:.4f}")
            if validation is not None:
                e = self.evaluate(*validation)
                h["val_loss"] = e["loss"]
                h["val_accuracy"] = e["correct"] / e["examples"]
                line += f", val_loss {h['val_loss']:.4f}, val_accuracy {h['val_accuracy']:.4f}"
            history.append(h)
            if progress:
                print(f"{line} ({time.monotonic() - t0:.1f} s)", file=sys.stderr, flush=True)
        return history

    @staticmethod
    def _metrics(m):
        return {"loss": float(m.loss), "correct": int(m.correct), "examples": int(m.examples),
                "step": int(m.step), "device_cycles": int(m.device_cycles),
                "device_cycles_max": int(m.device_cycles_max)}

    def step_data(self):
        """One optimizer step on the next batch of the data= training split;
        returns the metrics of step()."""
        m = _Metrics(size=ctypes.sizeof(_Metrics))
        self._check(_library().wse_train_step(self._handle(), ctypes.byref(m)))
        return self._metrics(m)

    def evaluate_data(self, max_examples=0):
        """Loss and correct count on the data= test split (its first
        max_examples; 0: all)."""
        m = _Metrics(size=ctypes.sizeof(_Metrics))
        self._check(_library().wse_train_eval(self._handle(), int(max_examples),
                                              ctypes.byref(m)))
        return self._metrics(m)

    def tensors(self):
        """{name: shape} of the weights, biases and optimizer state."""
        out = {}
        name = ctypes.c_char_p()
        ndim = ctypes.c_uint()
        dims = (ctypes.c_uint32 * 4)()
        k = 0
        while _library().wse_train_tensor_info(self._handle(), k, ctypes.byref(name),
                                               ctypes.byref(ndim), dims) >= 0:
            out[name.value.decode()] = tuple(int(d) for d in dims[:ndim.value])
            k += 1
        return out

    def get_tensor(self, name):
        """A copy of a tensor ("layer0.weight" [out, in], "layer0.bias",
        "layer0.weight.adam_m", ...) as a float32 array of its shape."""
        shape = self.tensors().get(name)
        if shape is None:
            # the library's NOT_FOUND with its sentence
            self._check(_library().wse_train_get_tensor(self._handle(), _bytes(name), None, 0))
        a = np.empty(shape, dtype=np.float32)
        self._check(_library().wse_train_get_tensor(self._handle(), _bytes(name),
                                                    a.ctypes.data_as(_c_float_p), a.size))
        return a

    def set_tensor(self, name, value):
        """Overwrite a tensor with value (any array of its element count)."""
        a = np.ascontiguousarray(value, dtype=np.float32)
        self._check(_library().wse_train_set_tensor(self._handle(), _bytes(name),
                                                    a.ctypes.data_as(_c_float_p), a.size))

    def state_dict(self):
        """Every tensor (weights, biases, optimizer state) as {name: float32
        array of its shape}, copies; load_state_dict() takes it back."""
        return {name: self.get_tensor(name) for name in self.tensors()}

    def load_state_dict(self, state, strict=True):
        """Set the tensors of state ({name: array}, as state_dict() gives).
        strict: every tensor of the model must be given; else those not
        given keep their values. An unknown name, a missing one (strict)
        or a shape that differs raises ValueError naming it, before any
        tensor changes."""
        shapes = self.tensors()
        unknown = sorted(set(state) - set(shapes))
        if unknown:
            raise ValueError(f"state_dict: the model has no tensor {', '.join(unknown)}")
        missing = [name for name in shapes if name not in state]
        if strict and missing:
            raise ValueError(f"state_dict: missing {', '.join(missing)} (strict=False keeps "
                             "their values)")
        arrays = {}
        for name, value in state.items():
            a = np.asarray(value)
            if a.dtype.kind not in "fiu":
                raise ValueError(f"state_dict: {name} has dtype {a.dtype}; tensors are float32")
            if a.shape != shapes[name]:
                raise ValueError(f"state_dict: {name} has shape {a.shape}; the model's is "
                                 f"{shapes[name]}")
            arrays[name] = a
        for name, a in arrays.items():
            self.set_tensor(name, a)

    def save(self, path):
        """Write a checkpoint (docs/checkpoint.md)."""
        self._check(_library().wse_train_save(self._handle(), _bytes(os.fspath(path))))

    def load(self, path):
        """Read a checkpoint of the same model; on error nothing changes."""
        self._check(_library().wse_train_load(self._handle(), _bytes(os.fspath(path))))

    def export_npz(self, path):
        """Write every tensor to an uncompressed .npz (numpy.load reads it)."""
        self._check(_library().wse_train_export_npz(self._handle(), _bytes(os.fspath(path))))

    def import_npz(self, path):
        """Set the tensors an .npz holds (numpy.savez writes one; each entry
        must name a tensor, with its shape, float32); on error nothing
        changes."""
        self._check(_library().wse_train_import_npz(self._handle(), _bytes(os.fspath(path))))


class Device:
    """A device opened through libwsehost (host-lib/include/wsehost.h) by
    its URI: "sim:board=sim-4x4" (wsemu-sim, the RTL model),
    "sim:board=sim-2x2,model=fast" (wsemu-fast, the functional model),
    "sim:attach=PATH" (a running simulator's socket). timeout_ms bounds
    every request (None: the library's 5000). Tile (x, y) is column x,
    row y; ALL_TILES for both addresses every tile where the call allows
    it. Every failure raises WseError with the library's code and
    sentence."""

    def __init__(self, uri="sim:board=sim-4x4", timeout_ms=None):
        lib = _library()
        self.uri = uri
        self._dev = ctypes.c_void_p()
        opts = _OpenOpts(size=ctypes.sizeof(_OpenOpts), timeout_ms=int(timeout_ms or 0))
        rc = lib.wse_open(ctypes.byref(self._dev), _bytes(uri), ctypes.byref(opts))
        if rc < 0:
            self._dev = None
            raise self._fail(rc, f"opening {uri!r}")

    @staticmethod
    def _fail(code, what):
        return _error(code, f"{what}: {_library().wse_strerror(code).decode(errors='replace')}")

    def _call(self, what, fn, *args):
        if not self._dev:
            raise ValueError("the device is closed")
        rc = fn(self._dev, *args)
        if rc < 0:
            raise self._fail(rc, what)
        return rc

    def close(self):
        """Close the device (a simulator the URI started ends)."""
        if getattr(self, "_dev", None) and _lib is not None:
            _lib.wse_close(self._dev)
            self._dev = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def info(self):
        """What the device and its device tree say: board (the compatible
        string, e.g. "wsemu,sim-2x2"), model, mesh (rows, columns), and
        every field of struct wse_info by its name (columns, rows,
        imem_bytes, dmem_bytes, proto_major, ...)."""
        i = _Info(size=ctypes.sizeof(_Info))
        self._call("info", _library().wse_get_info, ctypes.byref(i))
        out = {}
        for name, _ in _Info._fields_[1:]:
            v = getattr(i, name)
            out[name] = (v.decode(errors="replace") if isinstance(v, bytes)
                         else list(v) if name == "color_vc" else int(v))
        out["board"] = out["compatible"]
        out["mesh"] = (out["rows"], out["columns"])
        return out

    def mem_read(self, x, y, addr, length):
        """length bytes (a multiple of 4) of tile (x, y)'s memory from the
        core's address addr (IMEM 0x80000000, DMEM 0x80100000), as bytes."""
        buf = ctypes.create_string_buffer(int(length))
        self._call(f"mem_read tile ({x}, {y}) 0x{int(addr):08x} {int(length)} bytes",
                   _library().wse_mem_read, int(x), int(y), int(addr), buf, int(length))
        return buf.raw

    def mem_write(self, x, y, addr, data):
        """Write data (bytes, or any array: its bytes; a multiple of 4) to
        tile (x, y)'s memory at addr; x = y = ALL_TILES: every tile."""
        b = np.ascontiguousarray(data).tobytes() if not isinstance(data, bytes) else data
        self._call(f"mem_write tile ({x}, {y}) 0x{int(addr):08x} {len(b)} bytes",
                   _library().wse_mem_write, int(x), int(y), int(addr), b, len(b))

    def halt(self, x=ALL_TILES, y=ALL_TILES):
        """Halt tile (x, y) (default every tile)."""
        self._call(f"halt tile ({x}, {y})", _library().wse_tile_halt, int(x), int(y))

    def run(self, x=ALL_TILES, y=ALL_TILES):
        """Start tile (x, y)'s core (default every tile)."""
        self._call(f"run tile ({x}, {y})", _library().wse_tile_run, int(x), int(y))

    def load_elf(self, image, x=ALL_TILES, y=ALL_TILES):
        """Load a RISC-V ELF32 (a path, or its bytes) into tile (x, y)
        (default every tile); halt() the tiles first. The image is checked
        before anything is written (MALFORMED: not a RISC-V ELF32; RANGE: a
        segment outside the tile's memories)."""
        if not isinstance(image, (bytes, bytearray)):
            with open(image, "rb") as f:
                image = f.read()
        b = bytes(image)
        self._call(f"load_elf tile ({x}, {y}), {len(b)} bytes", _library().wse_load_elf,
                   int(x), int(y), b, len(b))
