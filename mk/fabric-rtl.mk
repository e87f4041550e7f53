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
