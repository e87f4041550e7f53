# Fabric RTL: router, management network, tile and mesh; their lint,
# formal proofs and synthesis. Sources for other fragments' builds:
#   $(call FABRIC_RTL_FILES,<board>)  board package + every fabric source,
#                                     in compile order
#   FABRIC_RTL_INC                    include flags (prim_assert.svh)
# docs/fabric.md describes the interfaces.

FABRIC_RTL_SRCS := $(RTL_PKG_SRCS) $(RTL_FABRIC_PKGS) $(RTL_PRIM_FABRIC_SRCS) \
	$(RTL_FABRIC_SRCS) $(RTL_TILE_FABRIC_SRCS) $(RTL_MESH_FABRIC_SRCS)
FABRIC_RTL_INC  := $(RTL_PRIM_INC)
FABRIC_RTL_FILES = $(call RTL_CFG_PKG,$(1)) $(FABRIC_RTL_SRCS)

# ---------------------------------------------------------------------------
# Lint: verilator -Wall on the router (its parameters are the same on every
# board) and on the mesh of every board.
# ---------------------------------------------------------------------------
FABRIC_LINT = verilator --lint-only -Wall $(FABRIC_RTL_INC) rtl/lint.vlt

# The 8x8 mesh (64 routers, about 90 CPU-seconds of lint) is linted by
# make test-full (lint-fabric-full); make lint and make test lint the rest.
LINT_FABRIC_FULL := sim-8x8
LINT_FABRIC_BOARDS := $(filter-out $(LINT_FABRIC_FULL),$(BOARDS))
# $(call LINT_FABRIC_MESH,board): verilator --lint-only of its fabric mesh
define LINT_FABRIC_MESH
	@echo "lint-fabric: wse_fabric_mesh ($(1))"
	@$(FABRIC_LINT) --top-module wse_fabric_mesh $(BUILD)/boards/$(1)/wse_cfg_pkg.sv $(FABRIC_RTL_SRCS)

endef
.PHONY: lint-fabric lint-fabric-full
lint-fabric: $(foreach b,$(LINT_FABRIC_BOARDS),$(BUILD)/boards/$(b)/wse_cfg_pkg.sv)
	@echo "lint-fabric: wse_router (sim-4x4)"
	@$(FABRIC_LINT) --top-module wse_router $(call FABRIC_RTL_FILES,sim-4x4)
	$(foreach b,$(LINT_FABRIC_BOARDS),$(call LINT_FABRIC_MESH,$(b)))
lint-fabric-full: $(foreach b,$(LINT_FABRIC_FULL),$(BUILD)/boards/$(b)/wse_cfg_pkg.sv)
	$(foreach b,$(LINT_FABRIC_FULL),$(call LINT_FABRIC_MESH,$(b)))

LINT_STAGES += lint-fabric
TEST_FULL_STAGES += lint-fabric-full

# ---------------------------------------------------------------------------
# Smoke tests of the RTL itself (hop latency, multicast, drops, management);
# the scoreboard suites live with the fabric verification.
# ---------------------------------------------------------------------------
FABRIC_RTL_OBJ := $(BUILD)/fabric-rtl
FABRIC_VFLAGS  := --cc --exe --build -j $(JOBS) --assert -Wno-fatal -Wno-lint \
	-Wno-style $(FABRIC_RTL_INC) -MAKEFLAGS "OPT_FAST=-O1 OPT_SLOW=-O0"

$(FABRIC_RTL_OBJ)/router/tb_router_smoke: $(call FABRIC_RTL_FILES,sim-4x4) \
		tests/fabric-rtl/tb_router_smoke.cpp tests/fabric-rtl/tb_util.h $(BUILD)/boards/sim-4x4/wse_cfg.h
	@mkdir -p $(dir $@)
	verilator $(FABRIC_VFLAGS) --top-module wse_router -Mdir $(dir $@) \
	  -CFLAGS "-I$(abspath $(BUILD))/boards/sim-4x4" \
	  -o $(notdir $@) $(abspath $(call FABRIC_RTL_FILES,sim-4x4) tests/fabric-rtl/tb_router_smoke.cpp) >/dev/null

$(FABRIC_RTL_OBJ)/mesh/tb_mesh_smoke: $(call FABRIC_RTL_FILES,sim-2x2) \
		tests/fabric-rtl/tb_mesh_smoke.cpp tests/fabric-rtl/tb_util.h
	@mkdir -p $(dir $@)
	verilator $(FABRIC_VFLAGS) --top-module wse_fabric_mesh -Mdir $(dir $@) \
	  -o $(notdir $@) $(abspath $(call FABRIC_RTL_FILES,sim-2x2) tests/fabric-rtl/tb_mesh_smoke.cpp) >/dev/null

.PHONY: test-fabric-rtl-smoke test-fabric-rtl-mesh-smoke
test-fabric-rtl-smoke: $(FABRIC_RTL_OBJ)/router/tb_router_smoke
	$<

test-fabric-rtl-mesh-smoke: $(FABRIC_RTL_OBJ)/mesh/tb_mesh_smoke
	$<

TEST_STAGES      += test-fabric-rtl-smoke
TEST_FULL_STAGES += test-fabric-rtl-mesh-smoke

# ---------------------------------------------------------------------------
# Formal: FIFO, credit counter and arbiter by BMC and k-induction
# (yosys-smtbmc, z3); every bug-injection define must be caught.
# ---------------------------------------------------------------------------
.PHONY: formal-fabric
formal-fabric:
	tests/fabric-rtl/formal/run-formal.sh $(BUILD)/formal-fabric

FORMAL_STAGES += formal-fabric
TEST_STAGES   += formal-fabric

# ---------------------------------------------------------------------------
# Synthesis (Yosys 0.23). SYNTHESIS is defined: no assertions.
#   synth-fabric: generic synthesis of the 4x4 mesh (hierarchy kept) and an
#     iCE40 mapping of the router; resource use printed; no latches, no
#     combinational loops (check -assert).
#   fabric-netlists: gate-level netlists for gate-level simulation,
#     $(BUILD)/synth/wse_router.v          (flat, module wse_router)
#     $(BUILD)/synth/wse_fabric_mesh_2x2.v (hierarchical, top wse_fabric_mesh)
#     from one generic synthesis of the sim-2x2 mesh (the router parameters
#     are the same on every board).
# ---------------------------------------------------------------------------
FABRIC_SYN     := $(BUILD)/synth
FABRIC_YOSYS    = yosys -q -l $(1) -p
FABRIC_YREAD    = read_verilog -sv -DSYNTHESIS $(FABRIC_RTL_INC) $(call FABRIC_RTL_FILES,$(1))
FABRIC_YCHECK  := select -assert-none t:*latch* t:*LATCH*; check -assert

$(FABRIC_SYN)/wse_router.v $(FABRIC_SYN)/wse_fabric_mesh_2x2.v &: $(call FABRIC_RTL_FILES,sim-2x2)
	@mkdir -p $(FABRIC_SYN)
	$(call FABRIC_YOSYS,$(FABRIC_SYN)/netlists.log) "$(call FABRIC_YREAD,sim-2x2); \
	  hierarchy -check -top wse_fabric_mesh; synth -top wse_fabric_mesh; $(FABRIC_YCHECK); \
	  write_verilog -noattr -noexpr $(FABRIC_SYN)/wse_fabric_mesh_2x2.v; \
	  delete wse_fabric_mesh wse_mgmt_port wse_mgmt_node prim_rst_sync *wse_fabric_tile; \
	  hierarchy -auto-top; rename -top wse_router; flatten; opt_clean; $(FABRIC_YCHECK); \
	  write_verilog -noattr -noexpr $(FABRIC_SYN)/wse_router.v"

.PHONY: fabric-netlists synth-fabric
fabric-netlists: $(FABRIC_SYN)/wse_router.v $(FABRIC_SYN)/wse_fabric_mesh_2x2.v

synth-fabric: $(call FABRIC_RTL_FILES,sim-4x4) fabric-netlists
	@mkdir -p $(FABRIC_SYN)
	$(call FABRIC_YOSYS,$(FABRIC_SYN)/mesh_4x4_generic.log) "$(call FABRIC_YREAD,sim-4x4); \
	  hierarchy -check -top wse_fabric_mesh; synth -top wse_fabric_mesh; $(FABRIC_YCHECK); \
	  tee -q -o $(FABRIC_SYN)/mesh_4x4_generic.stat stat -top wse_fabric_mesh"
	$(call FABRIC_YOSYS,$(FABRIC_SYN)/router_ice40.log) "$(call FABRIC_YREAD,sim-4x4); \
	  hierarchy -check -top wse_router; synth_ice40 -top wse_router; $(FABRIC_YCHECK); \
	  tee -q -o $(FABRIC_SYN)/router_ice40.stat stat"
	@echo "== generic synthesis, 4x4 mesh (whole design, hierarchy kept)"
	@sed -n '/=== design hierarchy ===/,$$p' $(FABRIC_SYN)/mesh_4x4_generic.stat
	@echo "== iCE40 mapping, router"
	@sed -n '/Number of cells/,$$p' $(FABRIC_SYN)/router_ice40.stat

SYNTH_STAGES     += synth-fabric
TEST_FULL_STAGES += synth-fabric
