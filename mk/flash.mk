# The SPI NOR flash controller (rtl/flash), docs/flash.md.
#   make test-flash   flash_ctrl against the behavioural SPI flash
#                     (sim/spi_flash_model.h) at SCK = clk/2 and
#                     clk/6: directed requests, refusals, time-outs, a part
#                     that ignores WREN, 300 random requests each
#   make lint-flash   verilator --lint-only -Wall
#   make synth-flash  Yosys generic synthesis (check -assert) and synth_ecp5
#   make bench-flash  BENCH fpga.flash_lut4, fpga.flash_ff: synth_ecp5 at the
#                     default parameters

FLASH_RTL := $(RTL_FLASH_PKGS) $(RTL_FLASH_SRCS)
FLASH_DIR := $(BUILD)/flash
# SCK half periods the testbench is built for, in clocks.
FLASH_DIVS := 1 3
# The testbench's controller: a 128 KiB part and short time-outs (cycles),
# so the stuck-busy runs take milliseconds. The same values go to the C++
# side as TB_* defines.
FLASH_TB_CS_HIGH := 2
FLASH_TB_BYTES   := 131072
FLASH_TB_ERASE   := 20000
FLASH_TB_PROGRAM := 3000
FLASH_TB_G = -GDiv=$(1) -GCsHigh=$(FLASH_TB_CS_HIGH) -GFlashBytes=$(FLASH_TB_BYTES) \
	-GEraseTimeout=$(FLASH_TB_ERASE) -GProgramTimeout=$(FLASH_TB_PROGRAM)
FLASH_TB_D = -DTB_DIV=$(1) -DTB_CS_HIGH=$(FLASH_TB_CS_HIGH) -DTB_FLASH_BYTES=$(FLASH_TB_BYTES) \
	-DTB_ERASE_TMO=$(FLASH_TB_ERASE) -DTB_PROGRAM_TMO=$(FLASH_TB_PROGRAM)
FLASH_RUNS := 300
FLASH_READ := read_verilog -sv -DSYNTHESIS $(RTL_INC) $(FLASH_RTL)

.PHONY: test-flash lint-flash synth-flash bench-flash

$(FLASH_DIR)/div%/tb_flash: tests/flash/tb_flash.cpp sim/spi_flash_model.h $(FLASH_RTL) \
		$(RTL_PRIM_HDRS) | deps
	@mkdir -p $(dir $@)
	verilator --cc --exe --build --assert -Wno-fatal -j $(JOBS) $(RTL_INC) --top-module flash_ctrl \
		$(call FLASH_TB_G,$*) -Mdir $(dir $@) -o tb_flash $(FLASH_RTL) $(TOP)/tests/flash/tb_flash.cpp \
		-CFLAGS "-std=c++14 -O1 -I$(TOP)/sim $(call FLASH_TB_D,$*)" \
		> $(dir $@)build.log 2>&1 || { cat $(dir $@)build.log; exit 1; }

test-flash: $(foreach d,$(FLASH_DIVS),$(FLASH_DIR)/div$(d)/tb_flash)
	@set -e; seed=1; for d in $(FLASH_DIVS); do \
	  $(FLASH_DIR)/div$$d/tb_flash $(FLASH_RUNS) $$seed; seed=$$((seed + 1)); done

lint-flash: | deps
	@set -e; for top in flash_spi flash_ctrl; do \
	  $(VERILATOR_LINT) --top-module $$top $(FLASH_RTL); done
	$(VERILATOR_LINT) --top-module flash_ctrl $(call FLASH_TB_G,1) $(FLASH_RTL)
	@echo "lint-flash: clean"

synth-flash: | deps
	@mkdir -p $(FLASH_DIR)/synth
	@yosys -q -l $(FLASH_DIR)/synth/generic.log -p "$(FLASH_READ); synth -top flash_ctrl; \
	  check -assert; tee -q -o $(FLASH_DIR)/synth/generic.stat stat"
	@echo "synth-flash: flash_ctrl: $$(grep -E 'Number of cells' $(FLASH_DIR)/synth/generic.stat | tail -1 | tr -s ' ')"
	@yosys -q -l $(FLASH_DIR)/synth/ecp5.log -p "$(FLASH_READ); synth_ecp5 -top flash_ctrl; \
	  check -assert; tee -q -o $(FLASH_DIR)/synth/ecp5.stat stat"
	@echo "synth-flash: flash_ctrl (synth_ecp5): $$(grep -E 'LUT4|TRELLIS_FF' $(FLASH_DIR)/synth/ecp5.stat | tr -s ' ' | paste -sd,)"

bench-flash: synth-flash
	@echo "BENCH fpga.flash_lut4 $$(awk '$$1 == "LUT4" {print $$2}' $(FLASH_DIR)/synth/ecp5.stat | tail -1) LUT4"
	@echo "BENCH fpga.flash_ff $$(awk '$$1 == "TRELLIS_FF" {print $$2}' $(FLASH_DIR)/synth/ecp5.stat | tail -1) FF"

TEST_STAGES  += test-flash
LINT_STAGES  += lint-flash
SYNTH_STAGES += synth-flash
BENCH_STAGES += bench-flash
