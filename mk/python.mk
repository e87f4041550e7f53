# The Python package python/wsehost: ctypes over libwsetrain.so (no compiler
# at install time, numpy only), its pytest tests and the examples. Runs in
# a virtual environment under $(BUILD) made from Debian's python3 that sees
# Debian's numpy, pytest and scikit-learn (the digits data set of the
# tests and examples/train_digits.py). docs/python.md.
#   make test-python         pytest tests/python: host-reference backend,
#                            the mesh backend and Device on wsemu-fast
#                            (sim-2x2), 64-32-10 on the digits
#   make run-python-example  examples/train_numpy.py
#   make run-python-digits   examples/train_digits.py

DEB_PKGS += python3-venv python3-numpy python3-pytest python3-sklearn
PY_VENV  := $(BUILD)/pyvenv
PY       := $(PY_VENV)/bin/python
PY_SRCS  := $(wildcard python/wsehost/*.py)
# The package of the tree and the library just built.
PY_ENV    = PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$(abspath python) WSEMU_LIBWSETRAIN=$(abspath $(TR_SO)) \
	WSEMU_FAST=$(abspath $(FAST_SERVER)) WSEHOST_TEST_ELF=$(abspath $(TM_KERNEL)) \
	TMPDIR=$${TMPDIR:-/tmp}

$(PY_VENV)/.stamp: mk/python.mk | deps
	rm -rf $(PY_VENV)
	/usr/bin/python3 -m venv --system-site-packages $(PY_VENV)
	$(PY) -c 'import numpy, pytest, sklearn'
	touch $@

.PHONY: test-python run-python-example run-python-digits
test-python: $(PY_VENV)/.stamp $(PY_SRCS) $(TR_SO) $(FAST_SERVER) $(FAST_BOARD_DTBS) $(TM_KERNEL)
	$(PY_ENV) $(PY) -m pytest -q -rs -p no:cacheprovider tests/python

run-python-example: $(PY_VENV)/.stamp $(PY_SRCS) $(TR_SO)
	$(PY_ENV) $(PY) examples/train_numpy.py

run-python-digits: $(PY_VENV)/.stamp $(PY_SRCS) $(TR_SO)
	$(PY_ENV) $(PY) examples/train_digits.py

TEST_STAGES += test-python
