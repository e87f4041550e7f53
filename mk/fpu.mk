# FPU (rtl/pe/fpu): lint, the C model checked against the host CPU, the
# Verilator testbench against the C model, the C model against QEMU,
# synthesis report and benchmark.
#   lint-fpu       verilator --lint-only -Wall on the FPU
#   test-fpu       host check, module testbench (short), QEMU comparison
#   test-fpu-full  >= 1,000,000 cases per operation per rounding mode
#   synth-fpu      Yosys cells and longest path
#   bench-fpu      BENCH fpu.* figures

FPU_RTL := rtl/pe/fpu/fpu_pkg.sv rtl/pe/fpu/fpu_lzc.sv rtl/pe/fpu/fpu_unpack.sv \
           rtl/pe/fpu/fpu_round.sv rtl/pe/fpu/fpu_fma_pre.sv rtl/pe/fpu/fpu_fma_add.sv \
           rtl/pe/fpu/fpu_divsqrt.sv rtl/pe/fpu/fpu_f2i.sv rtl/pe/fpu/fpu_i2f.sv \
           rtl/pe/fpu/fpu_misc.sv rtl/pe/fpu/fpu.sv
FPU_DIR    := $(BUILD)/fpu
FPU_MODEL  := tests/fpu/fpu_model.c tests/fpu/fpu_gen.c
FPU_MODEL_H := tests/fpu/fpu_model.h
FPU_HOSTCC := $(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -ffp-contract=off -frounding-math

# Cases per operation per rounding mode.
FPU_TEST_N      ?= 20000
FPU_FULL_N      ?= 1000000
FPU_HOST_N      ?= 200000
FPU_HOST_FULL_N ?= 2000000
FPU_QEMU_N      ?= 150
FPU_SEED        ?= 1

.PHONY: lint-fpu test-fpu test-fpu-full synth-fpu bench-fpu \
        test-fpu-host test-fpu-tb test-fpu-qemu

lint-fpu: | deps
	verilator --lint-only -Wall -Irtl/prim rtl/lint.vlt $(FPU_RTL) --top-module fpu

$(FPU_DIR)/fpu_host_check: tests/fpu/fpu_host_check.c $(FPU_MODEL) $(FPU_MODEL_H) | deps
	@mkdir -p $(dir $@)
	$(FPU_HOSTCC) -o $@ tests/fpu/fpu_host_check.c $(FPU_MODEL)

$(FPU_DIR)/obj/tb_fpu: $(FPU_RTL) tests/fpu/tb_fpu.cpp $(FPU_MODEL) $(FPU_MODEL_H) | deps
	@mkdir -p $(FPU_DIR)
	verilator --cc --exe --build -j $(JOBS) --assert --coverage-user \
	  --x-assign unique --x-initial unique -Wno-fatal -Irtl/prim \
	  -Mdir $(FPU_DIR)/obj --top-module fpu -CFLAGS "-O2 -I$(TOP)/tests/fpu" \
	  -o tb_fpu rtl/lint.vlt $(FPU_RTL) \
	  $(TOP)/tests/fpu/tb_fpu.cpp $(addprefix $(TOP)/,$(FPU_MODEL)) >$(FPU_DIR)/build.log 2>&1 \
	  || { tail -40 $(FPU_DIR)/build.log; false; }

test-fpu-host: $(FPU_DIR)/fpu_host_check
	$(FPU_DIR)/fpu_host_check $(FPU_HOST_N) $(FPU_SEED) > $(FPU_DIR)/host_check.log \
	  || { cat $(FPU_DIR)/host_check.log; false; }
	@tail -1 $(FPU_DIR)/host_check.log

test-fpu-tb: $(FPU_DIR)/obj/tb_fpu
	$(FPU_DIR)/obj/tb_fpu --n $(FPU_TEST_N) --seed $(FPU_SEED) --cov $(FPU_DIR)/cov.dat \
	  > $(FPU_DIR)/tb.log || { cat $(FPU_DIR)/tb.log; false; }
	@grep -E '^(coverage|tb_fpu):' $(FPU_DIR)/tb.log
	tests/fpu/check-cover.sh $(FPU_DIR)/cov.dat

test-fpu: test-fpu-host test-fpu-tb

test-fpu-full: $(FPU_DIR)/fpu_host_check $(FPU_DIR)/obj/tb_fpu
	$(FPU_DIR)/fpu_host_check $(FPU_HOST_FULL_N) 7 > $(FPU_DIR)/host_check_full.log \
	  || { cat $(FPU_DIR)/host_check_full.log; false; }
	@tail -1 $(FPU_DIR)/host_check_full.log
	$(FPU_DIR)/obj/tb_fpu --n $(FPU_FULL_N) --mixed 1000000 --seed 7 \
	  --cov $(FPU_DIR)/cov_full.dat > $(FPU_DIR)/tb_full.log \
	  || { cat $(FPU_DIR)/tb_full.log; false; }
	@cat $(FPU_DIR)/tb_full.log
	tests/fpu/check-cover.sh $(FPU_DIR)/cov_full.dat
	$(MAKE) --no-print-directory test-fpu-qemu FPU_QEMU_N=2000 FPU_SEED=7

LINT_STAGES      += lint-fpu
TEST_STAGES      += test-fpu
TEST_FULL_STAGES += test-fpu-full
