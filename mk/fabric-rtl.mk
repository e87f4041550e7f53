# Fabric RTL: router, management network, tile and mesh; their lint,
# formal proofs and synthesis. Sources for other fragments' builds:
#   $(call FABRIC_RTL_FILES,<board>)  board package + every fabric source,
#                                     in compile order
#   FABRIC_RTL_INC                    include flags (prim_assert.svh)
# docs/fabric.md describes the interfaces.

FABRIC_RTL_SRCS := rtl/pkg/wse_pkg.sv rtl/fabric/wse_mgmt_pkg.sv \
	rtl/prim/prim_rst_sync.sv rtl/prim/prim_fifo_sync.sv \
	rtl/prim/prim_credit_cnt.sv rtl/prim/prim_arb_rr.sv \
	rtl/fabric/wse_router.sv rtl/fabric/wse_mgmt_node.sv \
	rtl/fabric/wse_mgmt_port.sv rtl/tile/wse_fabric_tile.sv \
	rtl/mesh/wse_fabric_mesh.sv
FABRIC_RTL_INC  := -Irtl/prim
FABRIC_RTL_FILES = $(BUILD)/boards/$(1)/wse_cfg_pkg.sv $(FABRIC_RTL_SRCS)

# ---------------------------------------------------------------------------
# Lint: verilator -Wall on the router and on the mesh of every board.
# ---------------------------------------------------------------------------
FABRIC_LINT = verilator --lint-only -Wall $(FABRIC_RTL_INC) rtl/lint.vlt

.PHONY: lint-fabric
lint-fabric: $(foreach b,$(BOARDS),$(BUILD)/boards/$(b)/wse_cfg_pkg.sv)
	@set -e; for b in $(BOARDS); do \
	  for top in wse_router wse_fabric_mesh; do \
	    echo "lint-fabric: $$top ($$b)"; \
	    $(FABRIC_LINT) --top-module $$top $(BUILD)/boards/$$b/wse_cfg_pkg.sv $(FABRIC_RTL_SRCS); \
	  done; \
	done

LINT_STAGES += lint-fabric

# ---------------------------------------------------------------------------
# Smoke tests of the RTL itself (hop latency, multicast, drops, management);
# the scoreboard suites live with the fabric verification.
# ---------------------------------------------------------------------------
FABRIC_RTL_OBJ := $(BUILD)/fabric-rtl
FABRIC_VFLAGS  := --cc --exe --build -j $(JOBS) --assert -Wno-fatal -Wno-lint \
	-Wno-style $(FABRIC_RTL_INC) -MAKEFLAGS "OPT_FAST=-O1 OPT_SLOW=-O0"

$(FABRIC_RTL_OBJ)/router/tb_router_smoke: $(call FABRIC_RTL_FILES,sim-4x4) \
		tests/fabric-rtl/tb_router_smoke.cpp tests/fabric-rtl/tb_util.h
	@mkdir -p $(dir $@)
	verilator $(FABRIC_VFLAGS) --top-module wse_router -Mdir $(dir $@) \
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
