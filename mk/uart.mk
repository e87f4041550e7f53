# The UART link PHY (rtl/host_if/hif_uart*.sv) and the ULX3S board files
# (boards/ulx3s-85f, docs/boards.md).
#   make test-uart       the PHY between two clocks at 4, 8.33 and 16 clocks
#                        per bit, 0 and +-2% apart: random bytes both ways
#                        with line noise, and packets through hif_rx_frame;
#                        the ULX3S .dts through wse-cfggen; its LPF against
#                        the pin table of docs/boards.md
#   make test-full-uart  longer runs, more seeds
#   make lint-uart       verilator --lint-only -Wall
#   make synth-uart      Yosys generic synthesis, check -assert

UART_RTL := $(RTL_PRIM_CDC_SRCS) $(RTL_HIF_UART_SRCS)
UART_TOPS := $(RTL_HIF_UART_TOPS)
UART_DIR := $(BUILD)/uart
UART_TB  := $(UART_DIR)/tb/tb_uart
UART_BOARD := ulx3s-85f

.PHONY: test-uart test-full-uart lint-uart synth-uart

lint-uart: | deps
	@set -e; for top in $(UART_TOPS); do \
	  $(VERILATOR_LINT) --top-module $$top $(UART_RTL); done
	@echo "lint-uart: clean"

synth-uart: | deps
	@mkdir -p $(UART_DIR)/synth
	@yosys -q -l $(UART_DIR)/synth/hif_uart.log -p "read_verilog -sv -DSYNTHESIS $(RTL_INC) $(UART_RTL); \
	  synth -top hif_uart; check -assert; tee -q -o $(UART_DIR)/synth/hif_uart.stat stat"
	@echo "synth-uart: hif_uart: $$(grep -E 'Number of cells' $(UART_DIR)/synth/hif_uart.stat | tail -1 | tr -s ' ')"

$(UART_TB): tests/host_if/tb_uart.cpp tests/host_if/tb_uart.sv $(UART_RTL) rtl/host_if/hif_pkg.sv \
		$(RTL_HIF_RX_SRCS) rtl/prim/prim_assert.svh $(WIRE_A) | deps
	@mkdir -p $(dir $@)
	verilator --cc --exe --build --assert -Wno-fatal -j $(JOBS) $(RTL_INC) --top-module tb_uart \
		-Mdir $(dir $@) -o tb_uart rtl/host_if/hif_pkg.sv $(RTL_HIF_RX_SRCS) $(UART_RTL) \
		tests/host_if/tb_uart.sv $(TOP)/tests/host_if/tb_uart.cpp $(abspath $(WIRE_A)) \
		-CFLAGS "-std=c++14 -O2 -I$(TOP)/include" \
		-LDFLAGS "$(WIRE_LIBS) -lpthread" > $(dir $@)build.log 2>&1 || { cat $(dir $@)build.log; exit 1; }

# The ULX3S's .dts through wse-cfggen: the rules of mk/boards.mk, unless the
# board is in BOARDS already.
ifeq ($(filter $(UART_BOARD),$(BOARDS)),)
$(eval $(call BOARD_RULES,$(UART_BOARD)))
endif

# Runs: "test clocks-per-bit mismatch-% count seed". A count is bytes each
# way, or episodes of packets (about three packets each).
UART_RUNS := "bytes 4 0 12000 1" "bytes 4 2 12000 2" "bytes 4 -2 12000 3" \
             "bytes 8.3333 0 12000 4" "bytes 8.3333 2 12000 5" "bytes 8.3333 -2 12000 6" \
             "bytes 16 2 12000 7" "bytes 16 -2 12000 8" \
             "packets 8.3333 2 100 9" "packets 8.3333 -2 100 10" \
             "packets 4 0 100 11" "packets 16 -2 100 12"
UART_FULL_RUNS := "bytes 4 2 300000 21" "bytes 4 -2 300000 22" "bytes 8.3333 1 300000 23" \
             "bytes 8.3333 2 300000 24" "bytes 8.3333 -2 300000 25" "bytes 16 2 300000 26" \
             "bytes 16 -2 300000 27" "bytes 5.5 0.5 300000 28" "bytes 12.75 -1.5 300000 29" \
             "packets 8.3333 2 2000 31" "packets 8.3333 -2 2000 32" "packets 4 2 2000 33" \
             "packets 4 -2 2000 34" "packets 16 2 2000 35" "packets 16 -2 2000 36"

test-uart: $(UART_TB) $(BUILD)/boards/$(UART_BOARD)/wse_cfg_pkg.sv $(BUILD)/boards/$(UART_BOARD)/board.env
	@set -e; for run in $(UART_RUNS); do $(UART_TB) $$run; done
	@./tests/boards/check-lpf.sh boards/$(UART_BOARD)/$(UART_BOARD).lpf docs/boards.md
	@. $(BUILD)/boards/$(UART_BOARD)/board.env && \
	  grep -q "NumCols *= $$BOARD_COLUMNS;" $(BUILD)/boards/$(UART_BOARD)/wse_cfg_pkg.sv
	@echo "test-uart: $(UART_BOARD): wse-cfggen accepts the .dts"

test-full-uart: $(UART_TB)
	@set -e; for run in $(UART_FULL_RUNS); do $(UART_TB) $$run; done

TEST_STAGES      += test-uart
TEST_FULL_STAGES += test-full-uart
LINT_STAGES      += lint-uart
SYNTH_STAGES     += synth-uart
