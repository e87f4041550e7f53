# RTL source lists. Each rtl/ folder's files.mk names its sources, packages
# apart from modules so that a user can put every package first (compile
# order); lint, the Verilator builds, the Yosys scripts and the gate-level
# runs all take their sources from these lists. Paths are from the top of
# the tree. The top Makefile includes it before the RTL fragments.

include $(addsuffix /files.mk,$(addprefix rtl/,pkg prim fabric tile mesh pe pe/dataflow pe/fpu host_if flash top board))

# The board package, generated from boards/<board>/<board>.dts (mk/boards.mk).
RTL_CFG_PKG = $(BUILD)/boards/$(1)/wse_cfg_pkg.sv
