# Host interface RTL (rtl/host_if): the clock-domain crossing parts, the
# link receiver, their lint and testbenches.
#   make test-host-if       async FIFO at coprime clock periods, both ways;
#                           receiver vs the libwsehost codec, 2 x 10,000 packets;
#                           transmitter decoded by the codec, 3,000 packets
#   make test-full-host-if  receiver 4 x 100,000 packets, transmitter 2 x 30,000
#   make lint-host-if       verilator --lint-only -Wall

# The generic crossing leaves (rtl/prim): asynchronous FIFO, synchronizer.
HIF_RTL  := $(RTL_PRIM_CDC_SRCS)
HIF_RX   := $(RTL_HIF_RX_SRCS)
HIF_TX   := $(RTL_HIF_TX_SRCS)
# Executor parts with a testbench only through wsemu-sim (mk/devserver.mk):
# linted and synthesized here.
# The console buffers' distributed-RAM leaf is listed with the fabric's
# (RTL_PRIM_FABRIC_SRCS, in every device top already).
HIF_EVT  := rtl/prim/prim_ram_1r1w.sv $(RTL_HIF_EVT_SRCS)
# The crossings between the executor (link clock) and the mesh, exercised
# through wsemu-sim: linted and synthesized here.
HIF_CDC_TOPS := $(RTL_HIF_CDC_TOPS)
HIF_CDC  := $(RTL_PKG_SRCS) $(HIF_RTL) $(RTL_HIF_CDC_SRCS)
HIF_TOP  := $(abspath .)
# The wire library (mk/wire.mk): its codec is the receiver's reference.
HIF_HLA  := $(WIRE_A)
HIF_PKG  := $(RTL_HIF_PKGS)
# The executor's parts also take the tile register map (wse_mgmt_pkg) and
# the fabric's constants (wse_pkg).
HIF_EXEC_PKGS := $(RTL_PKG_SRCS) $(RTL_FABRIC_PKGS) $(HIF_PKG)
DEB_PKGS += python3
HIF_DIR  := $(BUILD)/host_if
HIF_VFLAGS := --timing --assert --timescale 1ns/1ps -Wno-fatal -j $(JOBS) $(RTL_PRIM_INC)
# Depths the testbench is built for.
HIF_DEPTHS := 4 16

.PHONY: test-host-if test-full-host-if lint-host-if synth-host-if

# Yosys synthesis of each block, generic cells; reports in $(HIF_DIR)/synth.
synth-host-if: | deps
	@mkdir -p $(HIF_DIR)/synth
	@set -e; for top in prim_fifo_async hif_rx_frame hif_tx_frame; do \
	  yosys -q -l $(HIF_DIR)/synth/$$top.log -p "read_verilog -sv -DSYNTHESIS $(RTL_PRIM_INC) \
	    $(HIF_PKG) $(HIF_RTL) $(HIF_RX) $(HIF_TX); synth -top $$top; \
	    tee -q -o $(HIF_DIR)/synth/$$top.stat stat"; \
	  echo "synth-host-if: $$top: $$(grep -E 'Number of cells' $(HIF_DIR)/synth/$$top.stat | tail -1 | tr -s ' ')"; \
	done
	@yosys -q -l $(HIF_DIR)/synth/hif_tx_arb.log -p "read_verilog -sv -DSYNTHESIS $(RTL_PRIM_INC) \
	  $(HIF_PKG) $(HIF_EVT); synth -top hif_tx_arb; tee -q -o $(HIF_DIR)/synth/hif_tx_arb.stat stat"
	@echo "synth-host-if: hif_tx_arb: $$(grep -E 'Number of cells' $(HIF_DIR)/synth/hif_tx_arb.stat | tail -1 | tr -s ' ')"
	@# The event sender for a 2 x 2 mesh with 32-wavelet outlets: its buffers
	@# become flip-flops in a generic synth, so the board sizes take long.
	@yosys -q -l $(HIF_DIR)/synth/hif_evt.log -p "read_verilog -sv -DSYNTHESIS $(RTL_PRIM_INC) \
	  $(HIF_PKG) $(HIF_EVT); chparam -set NumCols 2 -set NumRows 2 -set OutDepth 32 hif_evt; \
	  synth -top hif_evt; tee -q -o $(HIF_DIR)/synth/hif_evt.stat stat"
	@echo "synth-host-if: hif_evt (2x2, OutDepth 32): $$(grep -E 'Number of cells' $(HIF_DIR)/synth/hif_evt.stat | tail -1 | tr -s ' ')"
	@# The executor at a small size as well (2 x 2 mesh, 256-byte slots,
	@# 32-wavelet outlets: its slots and outlets, prim_ram_sdp block RAMs
	@# on an FPGA, become flip-flops in a generic synth too). -defer:
	@# elaborated once, with these parameters.
	@yosys -q -l $(HIF_DIR)/synth/hif_exec.log -p "read_verilog -defer -sv -DSYNTHESIS $(RTL_PRIM_INC) \
	  $(HIF_EXEC_PKGS) $(RTL_FLASH_PKGS) $(HIF_EVT) $(RTL_FLASH_SRCS) $(RTL_HIF_CRC_SRCS) \
	  $(RTL_HIF_EXEC_SRCS); \
	  chparam -set NumCols 2 -set NumRows 2 -set OutDepth 32 -set MaxPayload 256 hif_exec; \
	  hierarchy -top hif_exec; synth -top hif_exec; check -assert; \
	  tee -q -o $(HIF_DIR)/synth/hif_exec.stat stat"
	@echo "synth-host-if: hif_exec (2x2, MaxPayload 256, OutDepth 32): $$(grep -E 'Number of cells' $(HIF_DIR)/synth/hif_exec.stat | tail -1 | tr -s ' ')"
	@set -e; for top in $(HIF_CDC_TOPS); do \
	  yosys -q -l $(HIF_DIR)/synth/$$top.log -p "read_verilog -sv -DSYNTHESIS $(RTL_PRIM_INC) $(HIF_CDC); \
	    synth -top $$top; check -assert; tee -q -o $(HIF_DIR)/synth/$$top.stat stat"; \
	  echo "synth-host-if: $$top: $$(grep -E 'Number of cells' $(HIF_DIR)/synth/$$top.stat | tail -1 | tr -s ' ')"; \
	done

$(HIF_DIR)/rx/tb_rx_frame: tests/host_if/tb_rx_frame.cpp $(HIF_PKG) $(HIF_RX) $(HIF_HLA) $(RTL_PRIM_HDRS) | deps
	@mkdir -p $(dir $@)
	verilator --cc --exe --build --assert -Wno-fatal -j $(JOBS) $(RTL_PRIM_INC) --top-module hif_rx_frame \
		-Mdir $(dir $@) -o tb_rx_frame $(HIF_PKG) $(HIF_RX) $(HIF_TOP)/$< $(abspath $(HIF_HLA)) \
		-CFLAGS "-std=c++14 -O1 -I$(HIF_TOP)/include" \
		-LDFLAGS "-lfdt -lpthread" > $(dir $@)build.log 2>&1 || { cat $(dir $@)build.log; exit 1; }

$(HIF_DIR)/tb_fifo_d%/tb: tests/host_if/tb_fifo_async.sv $(HIF_RTL) $(RTL_PRIM_RST_SRCS) $(RTL_PRIM_HDRS) | deps
	@mkdir -p $(dir $@)
	verilator --binary $(HIF_VFLAGS) -GDepth=$* --top-module tb_fifo_async \
		-Mdir $(dir $@) -o tb $(RTL_PRIM_RST_SRCS) $(HIF_RTL) $< > $(dir $@)build.log 2>&1 || \
		{ cat $(dir $@)build.log; exit 1; }

# Clock pairs (half periods in ps): 7 ns / 11 ns and 11 ns / 7 ns (coprime),
# and a 1.3 ns / 8.9 ns pair far apart; random valid/ready at several duties.
# Then the protocol constants of hif_pkg.sv against wse_wire.h.
HIF_RUNS := "3500 5500 90 60" "5500 3500 60 90" "3500 5500 100 100" \
	    "650 4450 30 100" "4450 650 100 20"
$(HIF_DIR)/tx/tb_tx_frame: tests/host_if/tb_tx_frame.cpp $(HIF_PKG) $(RTL_HIF_CRC_SRCS) $(HIF_TX) $(HIF_HLA) $(RTL_PRIM_HDRS) | deps
	@mkdir -p $(dir $@)
	verilator --cc --exe --build --assert -Wno-fatal -j $(JOBS) $(RTL_PRIM_INC) --top-module hif_tx_frame \
		-Mdir $(dir $@) -o tb_tx_frame $(HIF_PKG) $(RTL_HIF_CRC_SRCS) $(HIF_TX) $(HIF_TOP)/$< $(abspath $(HIF_HLA)) \
		-CFLAGS "-std=c++14 -O1 -I$(HIF_TOP)/include" \
		-LDFLAGS "-lfdt -lpthread" > $(dir $@)build.log 2>&1 || { cat $(dir $@)build.log; exit 1; }

# An edge port's two crossings around a model router, clocks as above.
$(HIF_DIR)/tb_edge_cdc/tb: tests/host_if/tb_edge_cdc.sv $(HIF_CDC) $(RTL_PRIM_RST_SRCS) $(RTL_PRIM_HDRS) | deps
	@mkdir -p $(dir $@)
	verilator --binary $(HIF_VFLAGS) --top-module tb_edge_cdc -Mdir $(dir $@) -o tb \
		$(RTL_PRIM_RST_SRCS) $(HIF_CDC) $< > $(dir $@)build.log 2>&1 || \
		{ cat $(dir $@)build.log; exit 1; }
HIF_EDGE_RUNS := "3500 5500 70" "5500 3500 70" "650 4450 100" "4450 650 30" "3500 5500 100"

test-host-if: $(foreach d,$(HIF_DEPTHS),$(HIF_DIR)/tb_fifo_d$(d)/tb) $(HIF_DIR)/rx/tb_rx_frame \
		$(HIF_DIR)/tx/tb_tx_frame $(HIF_DIR)/tb_edge_cdc/tb
	@set -e; seed=1; for d in $(HIF_DEPTHS); do for run in $(HIF_RUNS); do \
	  set -- $$run; log=$(HIF_DIR)/tb_fifo_d$$d/run$$seed.log; \
	  $(HIF_DIR)/tb_fifo_d$$d/tb +whalf=$$1 +rhalf=$$2 +wbusy=$$3 +rbusy=$$4 \
	    +seed=$$seed > $$log 2>&1 || { cat $$log; exit 1; }; \
	  grep PASS $$log || { cat $$log; exit 1; }; seed=$$((seed + 1)); \
	done; done
	@set -e; seed=1; for run in $(HIF_EDGE_RUNS); do set -- $$run; \
	  $(HIF_DIR)/tb_edge_cdc/tb +lhalf=$$1 +mhalf=$$2 +busy=$$3 +words=10000 +seed=$$seed \
	    > $(HIF_DIR)/tb_edge_cdc/run$$seed.log 2>&1 || { cat $(HIF_DIR)/tb_edge_cdc/run$$seed.log; exit 1; }; \
	  grep '^PASS' $(HIF_DIR)/tb_edge_cdc/run$$seed.log; seed=$$((seed + 1)); done
	python3 tests/host_if/check_wire.py include/wsemu/wse_wire.h $(HIF_PKG)
	$(HIF_DIR)/rx/tb_rx_frame 10000 1
	$(HIF_DIR)/rx/tb_rx_frame 10000 2
	$(HIF_DIR)/tx/tb_tx_frame 3000 1

test-full-host-if: $(HIF_DIR)/rx/tb_rx_frame $(HIF_DIR)/tx/tb_tx_frame
	@set -e; for seed in 11 12 13 14; do $(HIF_DIR)/rx/tb_rx_frame 100000 $$seed; done
	@set -e; for seed in 11 12; do $(HIF_DIR)/tx/tb_tx_frame 30000 $$seed; done

lint-host-if: | deps
	@set -e; for d in $(HIF_DEPTHS); do \
	  verilator --lint-only -Wall $(RTL_PRIM_INC) rtl/lint.vlt -GDepth=$$d \
	    --top-module prim_fifo_async $(HIF_RTL); done
	verilator --lint-only -Wall $(RTL_PRIM_INC) rtl/lint.vlt --top-module hif_rx_frame $(HIF_PKG) $(HIF_RX)
	verilator --lint-only -Wall $(RTL_PRIM_INC) rtl/lint.vlt --top-module hif_tx_frame $(HIF_PKG) $(RTL_HIF_CRC_SRCS) $(HIF_TX)
	verilator --lint-only -Wall $(RTL_PRIM_INC) rtl/lint.vlt --top-module hif_tx_arb $(HIF_PKG) $(HIF_EVT)
	verilator --lint-only -Wall $(RTL_PRIM_INC) rtl/lint.vlt --top-module hif_evt $(HIF_PKG) $(HIF_EVT)
	@# The executor's leaves; the executor itself is linted in its top (lint-top).
	@set -e; for top in hif_slot_ram hif_req_check hif_mgmt_seq hif_si_lanes; do \
	  verilator --lint-only -Wall $(RTL_PRIM_INC) rtl/lint.vlt --top-module $$top \
	    $(HIF_EXEC_PKGS) $(RTL_PRIM_SDP_SRCS) rtl/host_if/$$top.sv; done
	@set -e; for top in $(HIF_CDC_TOPS); do \
	  verilator --lint-only -Wall $(RTL_PRIM_INC) rtl/lint.vlt --top-module $$top $(HIF_CDC); done
	@echo "lint-host-if: clean"

TEST_STAGES += test-host-if
TEST_FULL_STAGES += test-full-host-if
LINT_STAGES += lint-host-if
SYNTH_STAGES += synth-host-if
