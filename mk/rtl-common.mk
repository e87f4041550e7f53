# Shared RTL flow settings and the lint of the common leaves (rtl/prim,
# rtl/pkg). Part fragments reuse VERILATOR_LINT and RTL_INC.

VERILATOR      ?= verilator
RTL_INC        := -Irtl/prim
VERILATOR_LINT := $(VERILATOR) --lint-only -Wall rtl/lint.vlt $(RTL_INC)

.PHONY: lint-prim
lint-prim: $(BUILD)/boards/$(BOARD)/wse_cfg_pkg.sv | deps
	$(VERILATOR_LINT) --top-module prim_ram_1p rtl/prim/prim_ram_1p.sv
	$(VERILATOR_LINT) --top-module prim_ram_2p rtl/prim/prim_ram_2p.sv
	$(VERILATOR_LINT) --top-module prim_rst_sync rtl/prim/prim_rst_sync.sv
	$(VERILATOR_LINT) -Wno-UNUSEDPARAM rtl/pkg/wse_pkg.sv $(BUILD)/boards/$(BOARD)/wse_cfg_pkg.sv --top-module prim_rst_sync rtl/prim/prim_rst_sync.sv

LINT_STAGES += lint-prim
