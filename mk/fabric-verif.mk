# Fabric verification (docs/fabric-verification.md): Verilator testbenches
# of the router, the mesh and the management network with scoreboards,
# coverage, X-propagation, injected bugs and gate-level netlists, and the
# fabric benchmark.
#
#   make test-fabric        short runs (part of make test)
#   make test-fabric-full   8x8 mesh, many seeds, long random runs
#   make bench-fabric       BENCH lines and accepted-vs-offered tables
#   SEED=n                  reproduce a run (every testbench prints its seed)
#
# Every model is built once and reused by all stages; the RTL models are
# built with --assert --x-assign unique --x-initial unique, and each run is
# repeated with two +verilator+seed values whose RESULT lines must agree.

FV_DIR  := $(BUILD)/fabric-verif
FV_ABS  := $(abspath $(FV_DIR))
FV_TB   := tests/fabric
FV_TBH  := $(wildcard $(FV_TB)/*.h) $(FV_TB)/tb_common.cpp
FV_COV  := $(FV_TB)/cov/wse_router_cov.sv
FV_VL   := verilator --cc --exe --build -j $(JOBS) --assert -Wno-fatal -Wno-lint -Wno-style \
           -MAKEFLAGS "OPT_FAST=-O1 OPT_SLOW=-O0 OPT_GLOBAL=-O1"
FV_X    := --x-assign unique --x-initial unique
FV_CF    = -CFLAGS "-std=c++17 -I$(TOP)/include -I$(abspath $(BUILD))/boards/$(1) -I$(TOP)/$(FV_TB)"
FV_RUN  := $(FV_TB)/run-tb.sh
FV_BUG  := $(FV_TB)/run-bug.sh
# make test runs every test on the 2x2 mesh; test-fabric-full runs all of
# them on 4x4 and 8x8 too (the 4x4 model's build is about 8 CPU-minutes).
FV_YOSYS_DAT := $(shell yosys-config --datdir 2>/dev/null || echo /usr/share/yosys)

# ---- Models ------------------------------------------------------------------
# Router (sim-4x4 parameters), with coverage and the testbench cover points.
$(FV_DIR)/router/tb_router: $(call FABRIC_RTL_FILES,sim-4x4) $(FV_COV) $(FV_TB)/tb_router.cpp $(FV_TBH) $(BUILD)/boards/sim-4x4/wse_cfg.h
	@mkdir -p $(dir $@)
	$(FV_VL) $(FV_X) --coverage-user --top-module wse_router $(FABRIC_RTL_INC) -Mdir $(dir $@) -o tb_router \
	  $(call FV_CF,sim-4x4) $(call FABRIC_RTL_FILES,sim-4x4) $(FV_COV) \
	  $(TOP)/$(FV_TB)/tb_router.cpp $(TOP)/$(FV_TB)/tb_common.cpp > $(dir $@)build.log 2>&1 || { tail -30 $(dir $@)build.log; exit 1; }

# Mesh per board; coverage on the 2x2 only (the points are per module).
FV_MESH_SRC := $(FV_TB)/tb_mesh.cpp $(FV_TB)/tb_mgmt.cpp $(FV_TB)/tb_common.cpp
define FV_MESH_RULE
$(FV_DIR)/mesh-$(1)/tb_mesh: $(call FABRIC_RTL_FILES,$(1)) $(FV_COV) $(FV_MESH_SRC) $(FV_TBH) $(BUILD)/boards/$(1)/wse_cfg.h
	@mkdir -p $$(dir $$@)
	$(FV_VL) $(FV_X) $(2) --top-module wse_fabric_mesh $(FABRIC_RTL_INC) -Mdir $$(dir $$@) -o tb_mesh \
	  $(call FV_CF,$(1)) $(call FABRIC_RTL_FILES,$(1)) $(3) $(addprefix $(TOP)/,$(FV_MESH_SRC)) > $$(dir $$@)build.log 2>&1 \
	  || { tail -30 $$(dir $$@)build.log; exit 1; }
endef
$(eval $(call FV_MESH_RULE,sim-2x2,--coverage-user,$(FV_COV)))
$(eval $(call FV_MESH_RULE,sim-4x4,,))
# 8x8: Verilator 5.006 turns the copy of the sampled 2048-bit
# ramp_out_credit_i (read by the credit counters' assertions) into a loop
# (its "reloop" optimization) whose counter __Vilp it declares after the
# use, and the C++ does not compile (verilator issue 4057, fixed in 5.010).
# -fno-reloop keeps the copy as straight-line word assignments.
# Its C++ (about 285 files) is compiled at -O0: at -O1 the build takes over
# an hour of CPU, and what the 8x8 runs measure is cycles, not speed.
$(eval $(call FV_MESH_RULE,sim-8x8,-fno-reloop -MAKEFLAGS "OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0",))

# Router builds with one injected bug each: the prim is replaced by its
# mutant (tests/fabric-rtl/mutants/mutate.sh; docs/fabric.md lists the
# mutants and the assertion each must trip).
FV_BUGS := FIFO CREDIT ARB
# The mutants make test builds (a router model each); test-fabric-full
# builds and runs them all.
FV_BUGS_RUN ?= CREDIT
FV_BUG_ASSERT_FIFO   := FifoNoPushWhenFull
FV_BUG_ASSERT_CREDIT := Credit(NeverAboveDepth|NoGiveWhenFull)|FifoNoPushWhenFull
FV_BUG_ASSERT_ARB    := ArbGnt
FV_MUTATE := tests/fabric-rtl/mutants/mutate.sh
# $(call FV_BUG_PRIM,bug): the prim the mutant replaces.
FV_BUG_PRIM = $(shell $(FV_MUTATE) --prim $(1))
# $(call FV_BUG_SRCS,bug): the router's sources with the mutant in place.
FV_BUG_SRCS = $(patsubst $(call FV_BUG_PRIM,$(1)),$(FV_DIR)/bug-$(1)/$(notdir $(call FV_BUG_PRIM,$(1))),$(call FABRIC_RTL_FILES,sim-4x4))
define FV_BUG_RULE
$(FV_DIR)/bug-$(1)/$(notdir $(call FV_BUG_PRIM,$(1))): $(call FV_BUG_PRIM,$(1)) $(FV_MUTATE)
	$(FV_MUTATE) $(1) $$@
$(FV_DIR)/bug-$(1)/tb_router: $(call FV_BUG_SRCS,$(1)) $(FV_TB)/tb_router.cpp $(FV_TBH)
	@mkdir -p $$(dir $$@)
	$(FV_VL) --top-module wse_router $(FABRIC_RTL_INC) -Mdir $$(dir $$@) -o tb_router \
	  $(call FV_CF,sim-4x4) $(call FV_BUG_SRCS,$(1)) \
	  $(TOP)/$(FV_TB)/tb_router.cpp $(TOP)/$(FV_TB)/tb_common.cpp > $$(dir $$@)build.log 2>&1 \
	  || { tail -30 $$(dir $$@)build.log; exit 1; }
endef
$(foreach b,$(FV_BUGS),$(eval $(call FV_BUG_RULE,$(b))))

$(FV_DIR)/covcheck: $(FV_TB)/covcheck.cpp
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O1 -Wall -o $@ $<

# ---- Stages ------------------------------------------------------------------
.PHONY: test-fabric test-fabric-full bench-fabric fv-router fv-mesh fv-coverage fv-bugs fv-gate

FV_LOG := $(FV_DIR)/logs

fv-router: $(FV_DIR)/router/tb_router
	@rm -f $(FV_LOG)/router.*.dat
	COVERAGE=1 $(FV_RUN) router $< $(FV_LOG)

fv-mesh: $(FV_DIR)/mesh-sim-2x2/tb_mesh
	@rm -f $(FV_LOG)/mesh2x2.*.dat
	COVERAGE=1 $(FV_RUN) mesh2x2 $(FV_DIR)/mesh-sim-2x2/tb_mesh $(FV_LOG)

fv-coverage: $(FV_DIR)/covcheck fv-router fv-mesh
	verilator_coverage -write $(FV_LOG)/coverage.dat $(FV_LOG)/router.*.dat $(FV_LOG)/mesh2x2.*.dat
	$(FV_DIR)/covcheck $(FV_LOG)/coverage.dat $(FV_TB)/cov/required.txt | tee $(FV_LOG)/coverage.txt

fv-bugs: $(foreach b,$(FV_BUGS_RUN),$(FV_DIR)/bug-$(b)/tb_router)
	@set -e; for b in $(FV_BUGS_RUN); do \
	  case $$b in FIFO) a='$(FV_BUG_ASSERT_FIFO)';; CREDIT) a='$(FV_BUG_ASSERT_CREDIT)';; *) a='$(FV_BUG_ASSERT_ARB)';; esac; \
	  $(FV_BUG) bug-$$b $(FV_DIR)/bug-$$b/tb_router $(FV_LOG)/bug-$$b.log "$$a"; \
	done

test-fabric: fv-router fv-mesh fv-coverage fv-bugs fv-gate

# Long runs: many seeds, long random phases, the 8x8 mesh.
FV_FULL_SEEDS ?= 11 22 33 44 55
test-fabric-full: $(FV_DIR)/router/tb_router $(FV_DIR)/mesh-sim-2x2/tb_mesh $(FV_DIR)/mesh-sim-4x4/tb_mesh $(FV_DIR)/mesh-sim-8x8/tb_mesh
	@set -e; for s in $(or $(SEED),$(FV_FULL_SEEDS)); do \
	  SEED=$$s CYCLES=40000 $(FV_RUN) router-full $(FV_DIR)/router/tb_router $(FV_LOG)/full; \
	  SEED=$$s CYCLES=20000 $(FV_RUN) mesh2x2-full $(FV_DIR)/mesh-sim-2x2/tb_mesh $(FV_LOG)/full; \
	  SEED=$$s CYCLES=10000 $(FV_RUN) mesh4x4-full $(FV_DIR)/mesh-sim-4x4/tb_mesh $(FV_LOG)/full; \
	done
	CYCLES=3000 $(FV_RUN) mesh8x8 $(FV_DIR)/mesh-sim-8x8/tb_mesh $(FV_LOG)/full
	$(MAKE) --no-print-directory fv-gate-mesh
	$(MAKE) --no-print-directory fv-bugs FV_BUGS_RUN="$(FV_BUGS)"

bench-fabric: $(FV_DIR)/mesh-sim-4x4/tb_mesh $(FV_DIR)/mesh-sim-8x8/tb_mesh
	@mkdir -p $(FV_LOG)
	@SEED=$${SEED:-1} $(FV_DIR)/mesh-sim-4x4/tb_mesh bench-basic bench-uniform bench-pattern | grep -v '^RESULT\|SEED=\|PASS' ; \
	  test $${PIPESTATUS[0]} -eq 0
	@SEED=$${SEED:-1} $(FV_DIR)/mesh-sim-8x8/tb_mesh bench-pattern | grep -v '^RESULT\|SEED=\|PASS' ; \
	  test $${PIPESTATUS[0]} -eq 0

TEST_STAGES      += test-fabric
TEST_FULL_STAGES += test-fabric-full
BENCH_STAGES     += bench-fabric

# ---- Gate level ------------------------------------------------------------
# Netlists of the router and of the 2x2 mesh: generic Yosys synthesis,
# `write_verilog -noattr` (SRAM-free: the FIFOs are flops), driven by the
# same testbenches. A netlist has no SVA; the scoreboards, the protocol
# checks of the link ends and the counter checks still apply.
FV_GL := $(FV_DIR)/gl
FV_GL_VFLAGS ?= -O0
FV_YS = yosys -q -l $@.log -p "read_verilog -sv -DSYNTHESIS $(FABRIC_RTL_INC) $(call FABRIC_RTL_FILES,$(1)); \
        synth -top $(2); check -assert; write_verilog -noattr $@"

$(FV_GL)/wse_router.v: $(call FABRIC_RTL_FILES,sim-4x4)
	@mkdir -p $(dir $@)
	$(call FV_YS,sim-4x4,wse_router)
$(FV_GL)/wse_fabric_mesh_2x2.v: $(call FABRIC_RTL_FILES,sim-2x2)
	@mkdir -p $(dir $@)
	$(call FV_YS,sim-2x2,wse_fabric_mesh)

$(FV_GL)/router/tb_router: $(FV_GL)/wse_router.v $(FV_TB)/tb_router.cpp $(FV_TBH)
	@mkdir -p $(dir $@)
	$(FV_VL) $(FV_X) $(FV_GL_VFLAGS) --top-module wse_router -Mdir $(dir $@) -o tb_router $(call FV_CF,sim-4x4) $< \
	  $(TOP)/$(FV_TB)/tb_router.cpp $(TOP)/$(FV_TB)/tb_common.cpp > $(dir $@)build.log 2>&1 \
	  || { tail -30 $(dir $@)build.log; exit 1; }
$(FV_GL)/mesh-sim-2x2/tb_mesh: $(FV_GL)/wse_fabric_mesh_2x2.v $(FV_MESH_SRC) $(FV_TBH)
	@mkdir -p $(dir $@)
	$(FV_VL) $(FV_X) $(FV_GL_VFLAGS) --top-module wse_fabric_mesh -Mdir $(dir $@) -o tb_mesh $(call FV_CF,sim-2x2) $< \
	  $(addprefix $(TOP)/,$(FV_MESH_SRC)) > $(dir $@)build.log 2>&1 || { tail -30 $(dir $@)build.log; exit 1; }

# The router netlist runs in test-fabric; the 2x2 mesh netlist (a -O0
# model, slow to build) with one +verilator+seed in make test's background
# stage test-gate-level (mk/core.mk), with both in test-fabric-full.
.PHONY: fv-gate-mesh fv-gate-mesh-smoke
fv-gate: $(FV_GL)/router/tb_router
	CYCLES=4000 $(FV_RUN) gl-router $(FV_GL)/router/tb_router $(FV_LOG)
fv-gate-mesh: $(FV_GL)/mesh-sim-2x2/tb_mesh
	CYCLES=1000 $(FV_RUN) gl-mesh2x2 $(FV_GL)/mesh-sim-2x2/tb_mesh $(FV_LOG)
fv-gate-mesh-smoke: $(FV_GL)/mesh-sim-2x2/tb_mesh
	XSEEDS=1 CYCLES=1000 $(FV_RUN) gl-mesh2x2 $(FV_GL)/mesh-sim-2x2/tb_mesh $(FV_LOG)

# Tests that fail on the current RTL (see docs/fabric-verification.md).
.PHONY: fv-known-bugs
fv-known-bugs: $(FV_DIR)/router/tb_router
	$(FV_RUN) router-ramp-same-vc $< $(FV_LOG) ramp-same-vc
