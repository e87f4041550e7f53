# wsemu: the one entry point. `make help` lists the targets.
#
# Each part of the tree adds its rules in a fragment under mk/ and appends
# its stages to the lists below; this file only wires them together. The
# fragments are included in the order of what they build on (a fragment
# may use, at parse time, only what the ones above it define), which is
# also the order `make test` runs their stages in: the C libraries first,
# seconds each, then the RTL under Verilator.

SHELL := /bin/bash
.DEFAULT_GOAL := help

BOARD  ?= sim-4x4
BOARDS := sim-2x2 sim-4x4 sim-8x8
BUILD  ?= build
TOP    := $(abspath .)
JOBS   ?= 2

# Debian packages the build uses; fragments append their own.
DEB_PKGS := build-essential pkg-config device-tree-compiler libfdt-dev \
            verilator yosys z3 libcmocka-dev libusb-1.0-0-dev zlib1g-dev

# Stage lists filled by the fragments. Each entry is a make target.
TEST_STAGES      :=
TEST_FULL_STAGES :=
LINT_STAGES      :=
SYNTH_STAGES     :=
FORMAL_STAGES    :=
BENCH_STAGES     :=

# ---- C: the shared wire library, the boards, the host libraries ----------
include mk/clib.mk         # the C-library template (plain, ASan+UBSan, TSan)
include mk/wire.mk         # libwsewire: codec, CRC-32C, board rules, wse_math
include mk/boards.mk       # boards/*.dts -> DTB, RTL package, C header
include mk/hostlib.mk      # libwsehost
include mk/route.mk        # route plans and the deadlock checker
include mk/training.mk     # libwsetrain, wsetrain

# ---- RTL: lint, then the parts from the leaves up ---------------------------
TEST_STAGES += lint
include rtl/files.mk       # the RTL source lists, one per rtl/ folder
include mk/rtl-common.mk   # flow settings, the leaves' lint
include mk/core.mk         # the tile core, the mesh of tiles, gate level
include mk/fpu.mk          # the FPU
include mk/fast.mk         # wsemu-fast: the tile core's instruction-set model
include mk/dataflow.mk     # the dataflow unit and vector engine
include mk/fabric-rtl.mk   # the router
include mk/fabric-verif.mk # fabric scoreboards, coverage, gate level
include mk/host_if.mk      # the host interface's framing and crossings
include mk/pcie.mk         # the PCIe device side: BAR 0, the DMA rings, MSI-X
include mk/uart.mk         # the UART link PHY, the ULX3S board files
include mk/flash.mk        # the SPI NOR flash controller
include mk/devserver.mk    # wsemu-sim, wsectl, the end-to-end tests
include mk/vm.mk           # a QEMU guest's USB stack on a board as an FT231X
include mk/driver.mk       # the Linux driver wse.ko, its core, the UAPI header
include mk/train-mesh.mk   # the MLP kernel, training on the simulated mesh
include mk/python.mk       # the Python package over libwsetrain

# ---- FPGA: the open ECP5 flow for the ULX3S ---------------------------------
include mk/fpga.mk         # synth_ecp5, nextpnr-ecp5: resources and Fmax
include mk/bitstream.mk    # FPGA boards: the board top, bitstream, flash

# Every fragment is included above, once.
MK_UNLISTED := $(filter-out $(MAKEFILE_LIST),$(wildcard mk/*.mk))
ifneq ($(MK_UNLISTED),)
$(error mk fragments not included by the Makefile: $(MK_UNLISTED))
endif

.PHONY: help deps test test-full lint synth formal bench run clean

help:
	@echo "wsemu make targets"
	@echo "  make run         train Fashion-MNIST for 3 epochs on the simulated mesh (RUN_STEPS=)"
	@echo "  make test        all regression tests (installs missing packages)"
	@echo "  make test-full   parameter sweeps and long random runs"
	@echo "  make lint        verilator --lint-only -Wall on every RTL top"
	@echo "  make synth       Yosys synthesis with resource reports"
	@echo "  make formal      BMC and induction proofs (yosys-smtbmc, z3)"
	@echo "  make bench       every benchmark; bench-<part> for one part"
	@echo "  make deps        install missing Debian packages"
	@echo "  make clean       remove $(BUILD)/"
	@echo "  BOARD=<name>     board for run/bench (default $(BOARD); $(BOARDS))"
	@echo "  MODEL=fast|rtl   model for run: wsemu-fast (default) or the RTL's wsemu-sim"
	@echo "Stages: test=[$(strip $(TEST_STAGES))]"
	@echo "        test-full=[$(strip $(TEST_FULL_STAGES))]"
	@echo "        bench=[$(strip $(BENCH_STAGES))]"

deps:
	@./mk/install-deps.sh $(sort $(DEB_PKGS))

test: deps
	@BUILD=$(BUILD) ./mk/run-stages.sh test $(TEST_STAGES)

test-full: deps
	@BUILD=$(BUILD) ./mk/run-stages.sh test-full $(TEST_STAGES) $(TEST_FULL_STAGES)

lint: deps $(LINT_STAGES)
synth: deps $(SYNTH_STAGES)
formal: deps $(FORMAL_STAGES)
bench: deps
	@./mk/run-stages.sh bench $(BENCH_STAGES)

# make run: train the Fashion-MNIST MLP on the simulated 4x4 mesh, on wsemu-fast by
# default (mk/train-mesh.mk)
run: deps run-train

clean:
	rm -rf $(BUILD)
