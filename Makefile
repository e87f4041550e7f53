# wsemu: the one entry point. `make help` lists the targets.
#
# Each part of the tree adds its rules in a fragment under mk/ and appends
# its stages to the lists below; this file only wires them together.

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
RUN_STAGE        :=

include $(sort $(wildcard mk/*.mk))

.PHONY: help deps test test-full lint synth formal bench run clean

help:
	@echo "wsemu make targets"
	@echo "  make run         run the default demonstration on the simulated mesh"
	@echo "  make test        all regression tests (installs missing packages)"
	@echo "  make test-full   parameter sweeps and long random runs"
	@echo "  make lint        verilator --lint-only -Wall on every RTL top"
	@echo "  make synth       Yosys synthesis with resource reports"
	@echo "  make formal      BMC and induction proofs (yosys-smtbmc, z3)"
	@echo "  make bench       every benchmark; bench-<part> for one part"
	@echo "  make deps        install missing Debian packages"
	@echo "  make clean       remove $(BUILD)/"
	@echo "  BOARD=<name>     board for run/bench (default $(BOARD); $(BOARDS))"
	@echo "Stages: test=[$(strip $(TEST_STAGES))]"
	@echo "        test-full=[$(strip $(TEST_FULL_STAGES))]"
	@echo "        bench=[$(strip $(BENCH_STAGES))]"

deps:
	@./mk/install-deps.sh $(sort $(DEB_PKGS))

test: deps
	@BUILD=$(BUILD) ./mk/run-stages.sh test lint $(TEST_STAGES)

test-full: deps
	@BUILD=$(BUILD) ./mk/run-stages.sh test-full $(TEST_STAGES) $(TEST_FULL_STAGES)

lint: deps $(LINT_STAGES)
synth: deps $(SYNTH_STAGES)
formal: deps $(FORMAL_STAGES)
bench: deps
	@./mk/run-stages.sh bench $(BENCH_STAGES)

run: deps $(RUN_STAGE)

clean:
	rm -rf $(BUILD)
