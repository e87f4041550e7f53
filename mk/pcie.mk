# The board's PCIe device side (rtl/host_if/hif_pcie_*, docs/pcie.md): BAR 0,
# the two descriptor-ring DMA engines, MSI-X requests.
#   make test-pcie       tb_pcie: the engines against a host-memory model with
#                        random latency and back-pressure, H2C feeding the link
#                        receiver with codec-built packets, C2H, the refusals,
#                        bus time-outs and errors, MSI-X (2 seeds)
#   make test-full-pcie  8 longer seeds
#   make lint-pcie       verilator --lint-only -Wall, and synth-pcie
#   make synth-pcie      synth_ecp5 of hif_pcie_ep alone (tests/fpga/synth.sh):
#                        no latch, no loop, its cell counts

PCIE_DIR  := $(BUILD)/pcie
PCIE_RTL  := $(RTL_HIF_PCIE_PKGS) $(RTL_HIF_PCIE_SRCS)
# The testbench puts the link receiver behind the H2C engine.
PCIE_TB_RTL := $(RTL_HIF_PKGS) $(PCIE_RTL) $(RTL_HIF_RX_SRCS) tests/pcie/tb_pcie_top.sv
# A short bus time-out, so that the time-out tests take little time.
PCIE_TB_TIMEOUT := 2000

$(PCIE_DIR)/tb/tb_pcie: tests/pcie/tb_pcie.cpp $(PCIE_TB_RTL) $(WIRE_A) $(RTL_PRIM_HDRS) \
		include/wsemu/wse_pcie.h | deps
	@mkdir -p $(dir $@)
	verilator --cc --exe --build --assert -Wno-fatal -j $(JOBS) $(RTL_PRIM_INC) \
		-GTimeout=$(PCIE_TB_TIMEOUT) --top-module tb_pcie_top -Mdir $(dir $@) -o tb_pcie \
		$(abspath $(PCIE_TB_RTL)) $(abspath $<) $(abspath $(WIRE_A)) \
		-CFLAGS "-std=c++14 -O1 -I$(abspath include)" \
		-LDFLAGS "-lfdt -lpthread" > $(dir $@)build.log 2>&1 || { cat $(dir $@)build.log; exit 1; }

.PHONY: test-pcie test-full-pcie lint-pcie synth-pcie
test-pcie: $(PCIE_DIR)/tb/tb_pcie
	$< 1000 1
	$< 1000 2

test-full-pcie: $(PCIE_DIR)/tb/tb_pcie
	@set -e; for seed in 11 12 13 14 15 16 17 18; do $< 10000 $$seed; done

# synth_ecp5 of the block alone, with tests/fpga/synth.sh's netlist checks
# (Yosys's front end, no latch after proc or after mapping, no loop or
# driver conflict); about 12 CPU-seconds, so it runs with lint.
synth-pcie: | deps
	@tests/fpga/synth.sh $(PCIE_DIR)/synth hif_pcie_ep 600 \
	  "read_verilog -sv -DSYNTHESIS $(RTL_PRIM_INC) $(PCIE_RTL)" -noflatten
	@echo "synth-pcie: hif_pcie_ep: $$(grep -E '^ +(LUT4|TRELLIS_FF|TRELLIS_DPR16X4|CCU2C) ' \
	  $(PCIE_DIR)/synth/stat.txt | tail -4 | tr -s ' ' | paste -sd,)"

lint-pcie: synth-pcie | deps
	verilator --lint-only -Wall $(RTL_PRIM_INC) rtl/lint.vlt --top-module hif_pcie_ep $(PCIE_RTL)

TEST_STAGES += test-pcie
TEST_FULL_STAGES += test-full-pcie
LINT_STAGES += lint-pcie
SYNTH_STAGES += synth-pcie
