# FPU (rtl/pe/fpu): lint, the C model checked against the host CPU, the
# Verilator testbench against the C model, the C model against QEMU,
# synthesis report and benchmark.
#   lint-fpu       verilator --lint-only -Wall on the FPU
#   test-fpu       host check, module testbench (short), QEMU comparison
#   test-fpu-full  >= 1,000,000 cases per operation per rounding mode
#   synth-fpu      Yosys cells and longest path
#   bench-fpu      BENCH fpu.* figures

FPU_RTL := $(RTL_FPU_PKGS) $(RTL_FPU_SRCS)
FPU_DIR    := $(BUILD)/fpu
FPU_MODEL  := tests/fpu/fpu_model.c tests/fpu/fpu_gen.c
FPU_MODEL_H := tests/fpu/fpu_model.h
FPU_HOSTCC := $(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -ffp-contract=off -frounding-math

# Cases per operation per rounding mode.
FPU_TEST_N      ?= 20000
FPU_FULL_N      ?= 1000000
FPU_HOST_N      ?= 200000
FPU_HOST_FULL_N ?= 2000000
FPU_QEMU_N      ?= 300
FPU_SEED        ?= 1

.PHONY: lint-fpu test-fpu test-fpu-full synth-fpu bench-fpu \
        test-fpu-host test-fpu-tb test-fpu-qemu

lint-fpu: | deps
	verilator --lint-only -Wall $(RTL_PRIM_INC) rtl/lint.vlt $(FPU_RTL) --top-module fpu
	verilator --lint-only -Wall $(RTL_PRIM_INC) rtl/lint.vlt $(FPU_RTL) --top-module fpu \
	  -GRoundStage=1\'b1 -GDivIterPerCycle=1

$(FPU_DIR)/fpu_host_check: tests/fpu/fpu_host_check.c $(FPU_MODEL) $(FPU_MODEL_H) | deps
	@mkdir -p $(dir $@)
	$(FPU_HOSTCC) -o $@ tests/fpu/fpu_host_check.c $(FPU_MODEL) -lm

# Testbench builds: obj/ is the default configuration; obj-alt/ has the
# register before the rounder and one div/sqrt digit per cycle.
FPU_TB_VFLAGS_obj     :=
FPU_TB_VFLAGS_obj-alt := -GRoundStage=1\'b1 -GDivIterPerCycle=1
$(FPU_DIR)/%/tb_fpu: $(FPU_RTL) tests/fpu/tb_fpu.cpp $(FPU_MODEL) $(FPU_MODEL_H) | deps
	@mkdir -p $(FPU_DIR)/$*
	verilator --cc --exe --build -j $(JOBS) --assert --coverage-user \
	  --x-assign unique --x-initial unique -Wno-fatal $(RTL_PRIM_INC) $(FPU_TB_VFLAGS_$*) \
	  -Mdir $(FPU_DIR)/$* --top-module fpu -CFLAGS "-O2 -I$(TOP)/tests/fpu" \
	  -o tb_fpu rtl/lint.vlt $(FPU_RTL) \
	  $(TOP)/tests/fpu/tb_fpu.cpp $(addprefix $(TOP)/,$(FPU_MODEL)) >$(FPU_DIR)/$*/build.log 2>&1 \
	  || { tail -40 $(FPU_DIR)/$*/build.log; false; }

test-fpu-host: $(FPU_DIR)/fpu_host_check
	$(FPU_DIR)/fpu_host_check $(FPU_HOST_N) $(FPU_SEED) > $(FPU_DIR)/host_check.log \
	  || { cat $(FPU_DIR)/host_check.log; false; }
	@tail -2 $(FPU_DIR)/host_check.log

test-fpu-tb: $(FPU_DIR)/obj/tb_fpu
	$(FPU_DIR)/obj/tb_fpu --n $(FPU_TEST_N) --seed $(FPU_SEED) --cov $(FPU_DIR)/cov.dat \
	  > $(FPU_DIR)/tb.log || { cat $(FPU_DIR)/tb.log; false; }
	@sed -n '/^op /,$$p' $(FPU_DIR)/tb.log
	tests/fpu/check-cover.sh $(FPU_DIR)/cov.dat

# Golden model: the same cases as bare-metal rv32imf code on QEMU.
FPU_RVCC := riscv64-unknown-elf-gcc -march=rv32imf -mabi=ilp32f -O2 -Wall -Werror \
            -nostdlib -ffreestanding -static -Wl,--no-warn-rwx-segments \
            -T tests/fpu/qemu/link.ld
FPU_QEMU := qemu-system-riscv32 -M spike -cpu rv32,f=true,d=false -bios none \
            -display none -serial stdio -monitor none

$(FPU_DIR)/fpu_qemu_cases: tests/fpu/fpu_qemu_cases.c $(FPU_MODEL) $(FPU_MODEL_H) | deps
	@mkdir -p $(dir $@)
	$(FPU_HOSTCC) -o $@ tests/fpu/fpu_qemu_cases.c $(FPU_MODEL)

test-fpu-qemu: $(FPU_DIR)/fpu_qemu_cases
	@mkdir -p $(FPU_DIR)/qemu
	$(FPU_DIR)/fpu_qemu_cases gen $(FPU_QEMU_N) $(FPU_SEED) > $(FPU_DIR)/qemu/fpu_cases.h
	$(FPU_RVCC) -I$(FPU_DIR)/qemu -o $(FPU_DIR)/qemu/fpu_cases.elf \
	  tests/fpu/qemu/crt0.S tests/fpu/qemu/fpu_cases_prog.c
	timeout 600 $(FPU_QEMU) -kernel $(FPU_DIR)/qemu/fpu_cases.elf > $(FPU_DIR)/qemu/qemu.out
	$(FPU_DIR)/fpu_qemu_cases check $(FPU_QEMU_N) $(FPU_SEED) $(FPU_DIR)/qemu/qemu.out

test-fpu: test-fpu-host test-fpu-tb test-fpu-qemu

test-fpu-full: $(FPU_DIR)/fpu_host_check $(FPU_DIR)/obj/tb_fpu $(FPU_DIR)/obj-alt/tb_fpu
	$(FPU_DIR)/fpu_host_check $(FPU_HOST_FULL_N) 7 > $(FPU_DIR)/host_check_full.log \
	  || { cat $(FPU_DIR)/host_check_full.log; false; }
	@tail -1 $(FPU_DIR)/host_check_full.log
	$(FPU_DIR)/obj/tb_fpu --n $(FPU_FULL_N) --mixed 1000000 --seed 7 \
	  --cov $(FPU_DIR)/cov_full.dat > $(FPU_DIR)/tb_full.log \
	  || { cat $(FPU_DIR)/tb_full.log; false; }
	@cat $(FPU_DIR)/tb_full.log
	tests/fpu/check-cover.sh $(FPU_DIR)/cov_full.dat
	$(FPU_DIR)/obj-alt/tb_fpu --n 100000 --seed 8 --cov $(FPU_DIR)/cov_alt.dat \
	  > $(FPU_DIR)/tb_alt.log || { cat $(FPU_DIR)/tb_alt.log; false; }
	@grep -E '^(coverage|tb_fpu):' $(FPU_DIR)/tb_alt.log
	tests/fpu/check-cover.sh $(FPU_DIR)/cov_alt.dat
	$(FPU_DIR)/obj-alt/tb_fpu --bench | grep BENCH | sed 's/^BENCH/alt:/'
	$(MAKE) --no-print-directory test-fpu-qemu FPU_QEMU_N=2000 FPU_SEED=7

synth-fpu: | deps
	tests/fpu/fpu-synth.sh $(FPU_DIR)/synth $(FPU_RTL)
	FPU_CHPARAM="-set RoundStage 1" tests/fpu/fpu-synth.sh $(FPU_DIR)/synth-roundstage $(FPU_RTL)

bench-fpu: $(FPU_DIR)/obj/tb_fpu | deps
	@test -s $(FPU_DIR)/synth-roundstage/synth-report.txt || $(MAKE) --no-print-directory synth-fpu >/dev/null
	@$(FPU_DIR)/obj/tb_fpu --bench
	@awk '$$1 == "cells" && $$2 ~ /^[0-9]+$$/ {print "BENCH fpu.cells " $$2} \
	  /^longest path/ {print "BENCH fpu.longest_path_levels " $$3}' \
	  $(FPU_DIR)/synth/synth-report.txt
	@awk '/^longest path/ {print "BENCH fpu.longest_path_levels_roundstage " $$3}' \
	  $(FPU_DIR)/synth-roundstage/synth-report.txt

DEB_PKGS         += qemu-system-misc gcc-riscv64-unknown-elf
LINT_STAGES      += lint-fpu
TEST_STAGES      += test-fpu
TEST_FULL_STAGES += test-fpu-full
SYNTH_STAGES     += synth-fpu
BENCH_STAGES     += bench-fpu

# ---- The F extension in the tile core --------------------------------------
# The PE instantiates fpu_cop: the FPU's sources are in the core's lists
# (mk/core.mk).

# Directed F-extension ISA programs on the tile core, compared with QEMU by
# signature through the core's harness: fcsr.S (CSR forms, flag
# accumulation, dynamic rounding, illegal encodings, flw/fsw, all F
# registers), fkernel.c (compiled float C: fmadd dot products, division,
# square root, conversions), fisa-SEED (every F instruction in every
# rounding mode, static and dynamic, on FPU_ISA_N generated cases per
# operation and mode) and frand-N-SEED (random F instruction streams).
FPU_ISA_DIR   := $(FPU_DIR)/isa
FPU_ISA_N     ?= 6
FPU_ISA_SEEDS      := 1 2 3 4
FPU_ISA_SEEDS_FULL := $(shell seq 100 139)
FPU_RV_CFLAGS := -march=rv32imf_zicsr_zifencei -mabi=ilp32f -O2 -g -include wse_cfg.h \
	-ffreestanding -fno-builtin -nostdlib -nostartfiles -Wall -Wextra -Werror \
	-Ifirmware/runtime -I$(CORE_CFG)
FPU_RAND_N          := 800
FPU_RAND_SEEDS      := 1 2 3 4 5 6
FPU_RAND_SEEDS_FULL := $(shell seq 100 199)
FPU_ISA_ELFS      := $(FPU_ISA_DIR)/fcsr.elf $(FPU_ISA_DIR)/fkernel.elf \
	$(foreach s,$(FPU_ISA_SEEDS),$(FPU_ISA_DIR)/fisa-$(s).elf) \
	$(foreach s,$(FPU_RAND_SEEDS),$(FPU_ISA_DIR)/frand-$(FPU_RAND_N)-$(s).elf)
FPU_ISA_ELFS_FULL := $(foreach s,$(FPU_ISA_SEEDS_FULL),$(FPU_ISA_DIR)/fisa-$(s).elf) \
	$(foreach s,$(FPU_RAND_SEEDS_FULL),$(FPU_ISA_DIR)/frand-1100-$(s).elf)

# Random F instruction streams: frand-N-SEED has N instructions.
$(FPU_DIR)/fpu_rvgen: tests/fpu/fpu_rvgen.c $(FPU_MODEL) $(FPU_MODEL_H) | deps
	@mkdir -p $(dir $@)
	$(FPU_HOSTCC) -o $@ tests/fpu/fpu_rvgen.c $(FPU_MODEL)

$(FPU_ISA_DIR)/frand-%.S: $(FPU_DIR)/fpu_rvgen
	@mkdir -p $(dir $@)
	$(FPU_DIR)/fpu_rvgen $(word 1,$(subst -, ,$*)) $(word 2,$(subst -, ,$*)) > $@

$(FPU_ISA_DIR)/frand-%.elf: $(FPU_ISA_DIR)/frand-%.S $(CORE_RT_DEPS)
	$(RV_CC) $(FPU_RV_CFLAGS) -T $(CORE_LD) -o $@ $< $(CORE_RT) -lgcc

$(FPU_ISA_DIR)/cases-%/fpu_cases.h: $(FPU_DIR)/fpu_qemu_cases
	@mkdir -p $(dir $@)
	$(FPU_DIR)/fpu_qemu_cases gen $(FPU_ISA_N) $* > $@

$(FPU_ISA_DIR)/fisa-%.elf: tests/fpu/isa/fisa_cases.c tests/fpu/qemu/fpu_run_case.h \
		$(FPU_ISA_DIR)/cases-%/fpu_cases.h $(CORE_RT_DEPS)
	$(RV_CC) $(FPU_RV_CFLAGS) -I$(FPU_ISA_DIR)/cases-$* -Itests/fpu/qemu \
	  -T $(CORE_LD) -o $@ tests/fpu/isa/fisa_cases.c $(CORE_RT) -lgcc

$(FPU_ISA_DIR)/fkernel.elf: tests/fpu/isa/fkernel.c $(CORE_RT_DEPS)
	@mkdir -p $(dir $@)
	$(RV_CC) $(FPU_RV_CFLAGS) -T $(CORE_LD) -o $@ $< $(CORE_RT) -lgcc

$(FPU_ISA_DIR)/fcsr.elf: tests/fpu/isa/fcsr.S $(CORE_RT_DEPS)
	@mkdir -p $(dir $@)
	$(RV_CC) $(FPU_RV_CFLAGS) -T $(CORE_LD) -o $@ $< $(CORE_RT) -lgcc

.PHONY: test-fpu-isa test-fpu-isa-full
test-fpu-isa: $(CORE_TB_PE) $(FPU_ISA_ELFS)
	tests/core/compare.sh $(FPU_ISA_DIR)/run $(CORE_TB_PE) $(FPU_ISA_ELFS)

test-fpu-isa-full: $(CORE_TB_PE) $(FPU_ISA_ELFS_FULL)
	tests/core/compare.sh $(FPU_ISA_DIR)/run-full $(CORE_TB_PE) $(FPU_ISA_ELFS_FULL)

.SECONDARY: $(foreach s,$(FPU_ISA_SEEDS) $(FPU_ISA_SEEDS_FULL),$(FPU_ISA_DIR)/cases-$(s)/fpu_cases.h) \
	$(patsubst %.elf,%.S,$(filter $(FPU_ISA_DIR)/frand-%,$(FPU_ISA_ELFS) $(FPU_ISA_ELFS_FULL)))
TEST_STAGES      += test-fpu-isa
TEST_FULL_STAGES += test-fpu-isa-full
