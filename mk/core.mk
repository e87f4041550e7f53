# Tile core (RV32IM): RTL under rtl/pe, the firmware runtime, the Verilator
# PE harness and the comparison against QEMU. See docs/core.md.

CORE_BOARD   ?= sim-4x4
CORE_CFG     := $(BUILD)/boards/$(CORE_BOARD)
CORE_BUILD   := $(BUILD)/core
DEB_PKGS     += qemu-system-misc gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf

# ---- RTL ---------------------------------------------------------------------
# The PE: the core, the dataflow unit and the FPU (rtl/*/files.mk).
CORE_PE_PKGS := $(RTL_PE_PKGS) $(RTL_DF_PKGS) $(RTL_FPU_PKGS)
CORE_PKGS    := $(call RTL_CFG_PKG,$(CORE_BOARD)) $(RTL_PKG_SRCS) $(CORE_PE_PKGS)
CORE_PE_MODS := $(RTL_PE_SRCS) $(RTL_DF_SRCS) $(RTL_FPU_SRCS) $(RTL_FPU_COP_SRCS)
CORE_PE_SRCS := $(RTL_PRIM_RAM_SRCS) $(RTL_PRIM_LUTRAM_SRCS) $(RTL_PRIM_LOGIC_SRCS) $(CORE_PE_MODS)
CORE_VLT := rtl/lint.vlt

# Regression builds: assertions on, X values unique (not optimistic).
CORE_VFLAGS := --assert --x-assign unique --x-initial unique -Wno-fatal \
	$(RTL_PRIM_INC) -j $(JOBS)
# Benchmark builds: speed first (docs/core.md lists what each option buys).
CORE_VFLAGS_BENCH := -O3 --x-assign fast --x-initial fast -Wno-fatal $(RTL_PRIM_INC) \
	-j $(JOBS) -CFLAGS -O2

CORE_TB_PE := $(CORE_BUILD)/pe-$(CORE_BOARD)/tb_pe

$(CORE_TB_PE): $(CORE_PKGS) $(CORE_PE_SRCS) $(RTL_PRIM_HDRS) $(CORE_VLT) tests/core/tb_pe.cpp tests/core/elf32.h | deps
	@mkdir -p $(dir $@)
	verilator --cc --exe --build $(CORE_VFLAGS) -CFLAGS "-O1 -I$(TOP)/tests/core" \
	  $(CORE_VLT) $(CORE_PKGS) $(CORE_PE_SRCS) --top-module wse_pe \
	  $(TOP)/tests/core/tb_pe.cpp -Mdir $(dir $@) -o tb_pe >$(dir $@)/build.log 2>&1 || \
	  { cat $(dir $@)/build.log; exit 1; }

.PHONY: lint-core
lint-core: $(CORE_PKGS)
	verilator --lint-only -Wall $(CORE_VLT) $(RTL_PRIM_INC) $(CORE_PKGS) $(CORE_PE_SRCS) --top-module wse_pe
LINT_STAGES += lint-core

# ---- Firmware ------------------------------------------------------------------
RV_CC     := riscv64-unknown-elf-gcc
RV_ARCH   := -march=rv32im_zicsr_zifencei -mabi=ilp32
RV_CFLAGS := $(RV_ARCH) -O2 -g -include wse_cfg.h -ffreestanding -fno-builtin -nostdlib -nostartfiles \
	-Wall -Wextra -Ifirmware/runtime -I$(CORE_CFG)
CORE_LD   := $(CORE_BUILD)/fw/wse.ld
CORE_RT   := firmware/runtime/crt0.S firmware/runtime/wse_rt.c
CORE_RT_DEPS := $(CORE_RT) firmware/runtime/wse_rt.h $(CORE_LD)

# The link script takes the memory sizes from the board's wse_cfg.h.
$(CORE_LD): firmware/runtime/wse.ld.in $(CORE_CFG)/wse_cfg.h | deps
	@mkdir -p $(dir $@)
	$(RV_CC) -E -P -undef -x c \
	  -DWSE_CFG_IMEM_BYTES=$$(sed -n 's/^#define WSE_CFG_IMEM_BYTES \([0-9]*\)u$$/\1/p' $(CORE_CFG)/wse_cfg.h) \
	  -DWSE_CFG_DMEM_BYTES=$$(sed -n 's/^#define WSE_CFG_DMEM_BYTES \([0-9]*\)u$$/\1/p' $(CORE_CFG)/wse_cfg.h) \
	  $< -o $@

CORE_RVGEN := $(CORE_BUILD)/tools/rvgen
$(CORE_RVGEN): tests/core/gen/rvgen.c | deps
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -o $@ $<

$(CORE_BUILD)/gen/isa-rr%.S: $(CORE_RVGEN)
	@mkdir -p $(dir $@)
	$(CORE_RVGEN) rr $* >$@
$(CORE_BUILD)/gen/isa-imm%.S: $(CORE_RVGEN)
	@mkdir -p $(dir $@)
	$(CORE_RVGEN) imm $* >$@
$(CORE_BUILD)/gen/isa-%.S: $(CORE_RVGEN)
	@mkdir -p $(dir $@)
	$(CORE_RVGEN) $* >$@
# Random programs: rand-N-SEED.S has N instructions from seed SEED.
$(CORE_BUILD)/gen/rand-%.S: $(CORE_RVGEN)
	@mkdir -p $(dir $@)
	$(CORE_RVGEN) rand $(word 2,$(subst -, ,$*)) $(word 1,$(subst -, ,$*)) >$@

$(CORE_BUILD)/elf/%.elf: $(CORE_BUILD)/gen/%.S $(CORE_RT_DEPS)
	@mkdir -p $(dir $@)
	$(RV_CC) $(RV_CFLAGS) -T $(CORE_LD) -o $@ $< $(CORE_RT) -lgcc
$(CORE_BUILD)/elf/%.elf: tests/core/asm/%.S $(CORE_RT_DEPS)
	@mkdir -p $(dir $@)
	$(RV_CC) $(RV_CFLAGS) -T $(CORE_LD) -o $@ $< $(CORE_RT) -lgcc
$(CORE_BUILD)/elf/%.elf: tests/core/c/%.c $(CORE_RT_DEPS)
	@mkdir -p $(dir $@)
	$(RV_CC) $(RV_CFLAGS) -T $(CORE_LD) -o $@ $< $(CORE_RT) -lgcc

# ---- Tests -----------------------------------------------------------------------
CORE_DIRECTED := isa-rr0 isa-rr1 isa-rr2 isa-imm0 isa-imm1 isa-ctl isa-mem \
	$(basename $(notdir $(wildcard tests/core/asm/*.S))) \
	$(basename $(notdir $(wildcard tests/core/c/*.c)))
CORE_RAND_N          := 800
CORE_RAND_SEEDS      := 1 2 3 4 5 6 7 8 9 10 11 12
CORE_RAND_SEEDS_FULL := $(shell seq 100 399)
CORE_DIRECTED_ELFS   := $(addprefix $(CORE_BUILD)/elf/,$(addsuffix .elf,$(CORE_DIRECTED)))
CORE_RAND_ELFS       := $(foreach s,$(CORE_RAND_SEEDS),$(CORE_BUILD)/elf/rand-$(CORE_RAND_N)-$(s).elf)
CORE_RAND_ELFS_FULL  := $(foreach s,$(CORE_RAND_SEEDS_FULL),$(CORE_BUILD)/elf/rand-$(CORE_RAND_N)-$(s).elf)

.PHONY: test-core test-core-full core-elfs
core-elfs: $(CORE_DIRECTED_ELFS) $(CORE_RAND_ELFS)

test-core: $(CORE_TB_PE) $(CORE_DIRECTED_ELFS) $(CORE_RAND_ELFS)
	tests/core/compare.sh $(CORE_BUILD)/run $(CORE_TB_PE) $(CORE_DIRECTED_ELFS) $(CORE_RAND_ELFS)
TEST_STAGES += test-core

test-core-full: $(CORE_TB_PE) $(CORE_RAND_ELFS_FULL)
	tests/core/compare.sh $(CORE_BUILD)/run-full $(CORE_TB_PE) $(CORE_RAND_ELFS_FULL)
TEST_FULL_STAGES += test-core-full

.SECONDARY: $(patsubst $(CORE_BUILD)/elf/%.elf,$(CORE_BUILD)/gen/%.S,$(CORE_RAND_ELFS) $(CORE_RAND_ELFS_FULL)) \
	$(addprefix $(CORE_BUILD)/gen/,$(addsuffix .S,$(filter isa-%,$(CORE_DIRECTED))))

# ---- Benchmarks --------------------------------------------------------------------
CORE_TB_PE_BENCH := $(CORE_BUILD)/pe-$(CORE_BOARD)-bench/tb_pe

$(CORE_TB_PE_BENCH): $(CORE_PKGS) $(CORE_PE_SRCS) $(RTL_PRIM_HDRS) $(CORE_VLT) tests/core/tb_pe.cpp tests/core/elf32.h | deps
	@mkdir -p $(dir $@)
	verilator --cc --exe --build $(CORE_VFLAGS_BENCH) -CFLAGS "-I$(TOP)/tests/core" \
	  $(CORE_VLT) $(CORE_PKGS) $(CORE_PE_SRCS) --top-module wse_pe \
	  $(TOP)/tests/core/tb_pe.cpp -Mdir $(dir $@) -o tb_pe >$(dir $@)/build.log 2>&1 || \
	  { cat $(dir $@)/build.log; exit 1; }



# ---- Tile and mesh ---------------------------------------------------------------------
# The mesh of tiles, without the board package (packages first). A function
# of the board for its users (mk/devserver.mk); the sources are the same on
# every board.
CORE_MESH_RTL := $(RTL_PKG_SRCS) $(RTL_FABRIC_PKGS) $(CORE_PE_PKGS) \
	$(RTL_PRIM_FABRIC_SRCS) $(RTL_PRIM_RAM_SRCS) $(RTL_PRIM_LUTRAM_SRCS) $(RTL_PRIM_LOGIC_SRCS) $(RTL_FABRIC_SRCS) \
	$(RTL_TILE_FABRIC_SRCS) $(CORE_PE_MODS) $(RTL_TILE_SRCS) $(RTL_MESH_SRCS)
CORE_MESH_SRCS = $(CORE_MESH_RTL)
CORE_MESH_DEPS = $(call RTL_CFG_PKG,$(1)) $(CORE_VLT) $(CORE_MESH_RTL) $(RTL_PRIM_HDRS) \
	tests/core/backdoor.vlt tests/core/tb_mesh.cpp tests/core/elf32.h

# $(call CORE_MESH_BUILD,board,flags): verilate wse_mesh with tb_mesh into
# $(dir $@); build_cpu_seconds gets the CPU time of the build (Verilator and
# the C++ compiles).
define CORE_MESH_BUILD
	@mkdir -p $(dir $@)
	verilator --cc --exe --build $(2) -CFLAGS "-I$(TOP)/tests/core -I$(TOP)/$(BUILD)/boards/$(1)" \
	  $(CORE_VLT) tests/core/backdoor.vlt $(call RTL_CFG_PKG,$(1)) $(CORE_MESH_RTL) \
	  --top-module wse_mesh $(TOP)/tests/core/tb_mesh.cpp -Mdir $(dir $@) -o tb_mesh \
	  >$(dir $@)/build.log 2>&1 || { cat $(dir $@)/build.log; exit 1; }; \
	  times >$(dir $@)/build_times; \
	  awk 'NR == 2 { gsub(/[ms]/, " "); printf "%.1f\n", $$1 * 60 + $$2 + $$3 * 60 + $$4 }' \
	    $(dir $@)/build_times >$(dir $@)/build_cpu_seconds
endef
# $(call CORE_MESH_BUILD_TIMED,board,flags): the same, and build_seconds gets
# the wall time of the build.
define CORE_MESH_BUILD_TIMED
	@mkdir -p $(dir $@); date +%s.%N >$(dir $@)/build_start
	$(call CORE_MESH_BUILD,$(1),$(2))
	@awk -v s=$$(cat $(dir $@)/build_start) -v e=$$(date +%s.%N) 'BEGIN { printf "%.1f\n", e - s }' >$(dir $@)/build_seconds
endef

# C++ optimization of the mesh models (Verilator's OPT_* make variables):
# the regression model takes -O1 for the code that runs every cycle and -O0
# for the rest, so the build stays short; the benchmark models -O2 and -O1.
CORE_MESH_CXX_REGRESSION := -MAKEFLAGS "OPT_FAST=-O1 OPT_SLOW=-O0 OPT_GLOBAL=-O1"
CORE_MESH_CXX_BENCH      := -MAKEFLAGS "OPT_FAST=-O2 OPT_SLOW=-O1 OPT_GLOBAL=-O2"

CORE_TB_MESH := $(CORE_BUILD)/mesh-sim-4x4/tb_mesh
$(CORE_TB_MESH): $(call CORE_MESH_DEPS,sim-4x4) | deps
	$(call CORE_MESH_BUILD,sim-4x4,$(CORE_VFLAGS) $(CORE_MESH_CXX_REGRESSION))

# Benchmark models of the 4x4 and 8x8 meshes; the build time is recorded.
CORE_VFLAGS_BENCH_MESH := -O3 --x-assign fast --x-initial fast -Wno-fatal $(RTL_PRIM_INC) -j $(JOBS) \
	$(CORE_MESH_CXX_BENCH)
CORE_TB_MESH_BENCH := $(CORE_BUILD)/mesh-sim-4x4-bench/tb_mesh
$(CORE_TB_MESH_BENCH): $(call CORE_MESH_DEPS,sim-4x4) | deps
	$(call CORE_MESH_BUILD_TIMED,sim-4x4,$(CORE_VFLAGS_BENCH_MESH))
$(CORE_BUILD)/mesh-sim-8x8-bench/tb_mesh: $(call CORE_MESH_DEPS,sim-8x8) | deps
	$(call CORE_MESH_BUILD_TIMED,sim-8x8,$(CORE_VFLAGS_BENCH_MESH))

.PHONY: lint-mesh
lint-mesh: $(call RTL_CFG_PKG,sim-4x4)
	verilator --lint-only -Wall $(CORE_VLT) $(RTL_PRIM_INC) $(call RTL_CFG_PKG,sim-4x4) \
	  $(CORE_MESH_RTL) --top-module wse_mesh
LINT_STAGES += lint-mesh

# Yosys 0.23 reads and elaborates the whole tile (hierarchy -check, proc):
# it rejects constructs Verilator accepts (`return`, `int'()` casts, import in
# a module header), so this fails at lint time rather than at synthesis.
.PHONY: lint-yosys-tile
CORE_TILE_SYNTH_SRCS := $(call RTL_CFG_PKG,sim-4x4) $(filter-out $(RTL_MESH_SRCS),$(CORE_MESH_RTL))
lint-yosys-tile: $(call RTL_CFG_PKG,sim-4x4)
	@echo "yosys: read and elaborate wse_tile"
	@yosys -q -p 'read_verilog -sv -DSYNTHESIS $(RTL_PRIM_INC) $(CORE_TILE_SYNTH_SRCS); hierarchy -check -top wse_tile; proc' \
	  2>&1 | { grep -v '^Warning: Replacing memory' || true; }; test $${PIPESTATUS[0]} -eq 0
LINT_STAGES += lint-yosys-tile
$(CORE_BUILD)/elf/%.elf: tests/core/bench/%.c $(CORE_RT_DEPS)
	@mkdir -p $(dir $@)
	$(RV_CC) $(RV_CFLAGS) -T $(CORE_LD) -o $@ $< $(CORE_RT) -lgcc
$(CORE_BUILD)/elf/%.elf: tests/core/mesh/%.c $(CORE_RT_DEPS)
	@mkdir -p $(dir $@)
	$(RV_CC) $(RV_CFLAGS) -T $(CORE_LD) -o $@ $< $(CORE_RT) -lgcc

# ---- bench-core --------------------------------------------------------------------------
.PHONY: bench-core
bench-core: $(CORE_TB_PE_BENCH) $(CORE_BUILD)/elf/mix.elf $(CORE_BUILD)/elf/spin.elf \
	    $(CORE_TB_MESH_BENCH) $(CORE_BUILD)/mesh-sim-8x8-bench/tb_mesh
	@echo "verilator options (PE bench model): $(CORE_VFLAGS_BENCH)"
	@echo "verilator options (mesh bench models): $(CORE_VFLAGS_BENCH_MESH)"
	@echo "verilator options (regression models): $(CORE_VFLAGS)"
	@$(CORE_TB_PE_BENCH) $(CORE_BUILD)/elf/mix.elf --stats 2>&1 >/dev/null | \
	  sed -n 's/.*CPI \([0-9.]*\).*/BENCH core.cpi \1/p' | grep BENCH
	@$(CORE_TB_MESH_BENCH) $(CORE_BUILD)/elf/spin.elf --load backdoor --run-cycles 20000 | grep BENCH
	@$(CORE_BUILD)/mesh-sim-8x8-bench/tb_mesh $(CORE_BUILD)/elf/spin.elf --load backdoor --run-cycles 5000 | grep BENCH
	@printf 'BENCH sim.build_seconds_4x4 %.0f\n' $$(cat $(dir $(CORE_TB_MESH_BENCH))build_seconds)
BENCH_STAGES += bench-core

# ---- bench-core-options --------------------------------------------------------------------
# The 4x4 benchmark model (all 16 tiles running spin.c) built with the
# Verilator options added one at a time, from the regression model's to the
# benchmark model's, then the benchmark model with --threads 2 and without
# Verilator's -O3 (the C++ still at -O2). Each rung
# prints its rate in cycles per CPU-second, in cycles per wall-second, and
# its build time; the best of CORE_OPT_RUNS runs of CORE_OPT_CYCLES cycles.
# (The threaded model runs on as many threads as it was built for: Verilator's
# context takes one per hardware thread unless told otherwise.)
# Six extra builds of the 4x4 model: not in make bench (docs/core.md).
CORE_OPT_RUNGS  := regression no-assert x-fast verilator-O3 bench threads2 bench-no-O3
CORE_OPT_CYCLES ?= 20000
CORE_OPT_RUNS   ?= 3
CORE_OPT_FLAGS_regression   := $(CORE_VFLAGS) $(CORE_MESH_CXX_REGRESSION)
CORE_OPT_FLAGS_no-assert    := $(filter-out --assert,$(CORE_OPT_FLAGS_regression))
CORE_OPT_FLAGS_x-fast       := $(subst --x-assign unique --x-initial unique,--x-assign fast --x-initial fast,$(CORE_OPT_FLAGS_no-assert))
CORE_OPT_FLAGS_verilator-O3 := -O3 $(CORE_OPT_FLAGS_x-fast)
CORE_OPT_FLAGS_bench        := $(CORE_VFLAGS_BENCH_MESH)
CORE_OPT_FLAGS_threads2     := $(CORE_VFLAGS_BENCH_MESH) --threads 2
CORE_OPT_FLAGS_bench-no-O3  := $(filter-out -O3,$(CORE_VFLAGS_BENCH_MESH))
# The bench rung is bench-core's model itself.
CORE_OPT_MODEL = $(if $(filter bench,$(1)),$(CORE_TB_MESH_BENCH),$(CORE_BUILD)/mesh-sim-4x4-opt-$(1)/tb_mesh)

$(CORE_BUILD)/mesh-sim-4x4-opt-%/tb_mesh: $(call CORE_MESH_DEPS,sim-4x4) | deps
	$(call CORE_MESH_BUILD_TIMED,sim-4x4,$(CORE_OPT_FLAGS_$*))

.PHONY: bench-core-options
bench-core-options: $(foreach r,$(CORE_OPT_RUNGS),$(call CORE_OPT_MODEL,$(r))) $(CORE_BUILD)/elf/spin.elf
	@set -e; $(foreach r,$(CORE_OPT_RUNGS),m=$(call CORE_OPT_MODEL,$(r)); d=$$(dirname $$m); \
	  echo 'rung $(r): $(CORE_OPT_FLAGS_$(r))'; \
	  cpu_best=0; wall_best=0; for i in $$(seq $(CORE_OPT_RUNS)); do \
	    $$m $(CORE_BUILD)/elf/spin.elf --load backdoor --run-cycles $(CORE_OPT_CYCLES) \
	      >$$d/run.out 2>&1 || { cat $$d/run.out; exit 1; }; \
	    cpu=$$(sed -n 's/^BENCH sim.cycles_per_second_4x4 //p' $$d/run.out); \
	    wall=$$(sed -n 's/.* s wall, \([0-9]*\) cycles\/s wall.*/\1/p' $$d/run.out); \
	    [ $$cpu -gt $$cpu_best ] && cpu_best=$$cpu; [ $$wall -gt $$wall_best ] && wall_best=$$wall; true; \
	  done; \
	  echo "BENCH sim.options_4x4.$(r).cycles_per_cpu_second $$cpu_best"; \
	  echo "BENCH sim.options_4x4.$(r).cycles_per_wall_second $$wall_best"; \
	  echo "BENCH sim.options_4x4.$(r).build_seconds $$(cat $$d/build_seconds)"; \
	  echo "BENCH sim.options_4x4.$(r).build_cpu_seconds $$(cat $$d/build_cpu_seconds)";) \
	  n=$$(grep -c UNOPTFLAT $(dir $(CORE_TB_MESH_BENCH))build.log || true); \
	  echo "UNOPTFLAT warnings in the benchmark model's build: $$n"; [ $$n -eq 0 ]

# make test runs the mesh checks on the 2x2 mesh (4 tiles: its model builds
# in a quarter of the 4x4's CPU); make test-full on the 4x4 as well.
CORE_TB_MESH_2X2 := $(CORE_BUILD)/mesh-sim-2x2/tb_mesh
$(CORE_TB_MESH_2X2): $(call CORE_MESH_DEPS,sim-2x2) | deps
	$(call CORE_MESH_BUILD,sim-2x2,$(CORE_VFLAGS) $(CORE_MESH_CXX_REGRESSION))

.PHONY: test-core-mesh test-core-mesh-full
test-core-mesh: $(CORE_TB_MESH_2X2) $(CORE_BUILD)/elf/tiles.elf
	WSE_TILES=4 tests/core/mesh-check.sh $(CORE_TB_MESH_2X2) $(CORE_BUILD)/elf/tiles.elf $(CORE_BUILD)/run-mesh-2x2
test-core-mesh-full: $(CORE_TB_MESH) $(CORE_BUILD)/elf/tiles.elf
	tests/core/mesh-check.sh $(CORE_TB_MESH) $(CORE_BUILD)/elf/tiles.elf $(CORE_BUILD)/run-mesh
TEST_STAGES += test-core-mesh
TEST_FULL_STAGES += test-core-mesh-full
# Gate level. make test's netlist is the router's (fv-gate in test-fabric:
# Yosys's generic netlist of wse_router on the router scoreboard). The
# 2x2 fabric mesh's netlist with one +verilator+seed (fv-gate-mesh-smoke,
# mk/fabric-verif.mk; about 12 CPU-minutes, its -O0 model's build most of
# them) is make test-gate-level, and make test-full's with both seeds
# (test-fabric-full). make test-full adds the generic synthesis of the
# whole 4x4 mesh of tiles (synth-mesh) and one tile's iCE40 netlist on the
# smoke programs (gl-core), which need the ELFs of test-core and
# test-core-mesh and the boards' generated packages.
.PHONY: test-gate-level test-gate-level-full
test-gate-level: fv-gate-mesh-smoke
test-gate-level-full: gl-core synth-mesh
TEST_FULL_STAGES += test-gate-level-full

# ---- Synthesis ------------------------------------------------------------------------------
# Lint (lint-core, lint-mesh) and Yosys synthesis of one tile with iCE40
# mapping, module hierarchy kept; cell counts in $(CORE_BUILD)/synth.
.PHONY: synth-core
synth-core: lint-core lint-mesh $(call RTL_CFG_PKG,sim-4x4)
	@mkdir -p $(CORE_BUILD)/synth
	sed -e 's#@FILES@#$(CORE_TILE_SYNTH_SRCS)#' \
	    -e 's#@OUT@#$(CORE_BUILD)/synth#g' tests/core/synth-tile.ys.in >$(CORE_BUILD)/synth/tile.ys
	yosys -q -l $(CORE_BUILD)/synth/tile.log $(CORE_BUILD)/synth/tile.ys
	@sed -n '/=== design hierarchy ===/,$$p' $(CORE_BUILD)/synth/tile-stat.txt
SYNTH_STAGES += synth-core

# Generic Yosys synthesis of the whole sim-4x4 mesh of tiles, hierarchy kept
# (one wse_tile module, 16 instances), the SRAM leaves as black boxes (RAM
# macros); no latches, no loops. Cell counts in $(CORE_BUILD)/synth/mesh-stat.txt.
CORE_MESH_SYNTH_SRCS := $(call RTL_CFG_PKG,sim-4x4) $(filter-out $(RTL_PRIM_RAM_SRCS),$(CORE_MESH_RTL))
.PHONY: synth-mesh
CORE_MESH_YS = read_verilog -sv -DSYNTHESIS $(RTL_PRIM_INC) $(CORE_MESH_SYNTH_SRCS); read_verilog -sv -lib $(RTL_PRIM_RAM_SRCS); hierarchy -check -top wse_mesh; proc; select -assert-none t:*latch* t:*LATCH*; synth -top wse_mesh; check -assert; tee -o $(CORE_BUILD)/synth/mesh-stat.txt stat
synth-mesh: $(call RTL_CFG_PKG,sim-4x4)
	@mkdir -p $(CORE_BUILD)/synth
	yosys -q -l $(CORE_BUILD)/synth/mesh.log -p '$(CORE_MESH_YS)' >/dev/null
	@sed -n '/=== design hierarchy ===/,/wse_pe /p' $(CORE_BUILD)/synth/mesh-stat.txt; grep 'Number of cells' $(CORE_BUILD)/synth/mesh-stat.txt | tail -1
SYNTH_STAGES += synth-mesh


# ---- Gate-level simulation of one tile ---------------------------------------------------
# The iCE40 netlist of wse_tile from synth-core (with Yosys's cell models),
# wrapped in a 1x1 wse_mesh (RTL management port and reset synchronizer),
# runs a named smoke subset through tb_mesh, loaded through the management
# port, and each program's signature must equal QEMU's. The netlist's C++
# is compiled at -O0: on an idle 2-core machine 3.7 CPU minutes instead of
# 5.6 at -O1, for about 20 s more of simulation over the four programs.
CORE_GL        := $(CORE_BUILD)/gl
CORE_GL_SMOKE  := tiles traps csr isa-mem
CORE_GL_CELLS  := $(shell yosys-config --datdir 2>/dev/null || echo /usr/share/yosys)/ice40/cells_sim.v

# The RTL around the netlist: the packages, the management port, the reset
# synchronizer and the mesh.
CORE_GL_RTL := $(call RTL_CFG_PKG,sim-4x4) $(RTL_PKG_SRCS) $(RTL_FABRIC_PKGS) \
	$(RTL_PRIM_RST_SRCS) $(filter %/wse_mgmt_port.sv,$(RTL_FABRIC_SRCS))
$(CORE_GL)/tb_mesh: $(CORE_BUILD)/synth/wse_tile_ice40.v $(CORE_GL_RTL) $(RTL_MESH_SRCS) tests/core/tb_mesh.cpp | deps
	@mkdir -p $(CORE_GL)/cfg
	sed -e 's/^#define WSE_CFG_NUM_COLS .*/#define WSE_CFG_NUM_COLS 1u/' \
	    -e 's/^#define WSE_CFG_NUM_ROWS .*/#define WSE_CFG_NUM_ROWS 1u/' \
	    $(BUILD)/boards/sim-4x4/wse_cfg.h >$(CORE_GL)/cfg/wse_cfg.h
	perl -0pe 's/wse_tile #\(.*?\) u_tile/wse_tile u_tile/s; s/module wse_mesh/module wse_mesh/' \
	    $(RTL_MESH_SRCS) >$(CORE_GL)/wse_mesh_gl.sv
	verilator --cc --exe --build -O3 --x-assign fast --x-initial fast -Wno-fatal -Wno-lint -Wno-style \
	  -DNO_ICE40_DEFAULT_ASSIGNMENTS $(RTL_PRIM_INC) -j $(JOBS) -GNumCols=1 -GNumRows=1 \
	  -MAKEFLAGS "OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0" \
	  -CFLAGS "-I$(TOP)/tests/core -I$(TOP)/$(CORE_GL)/cfg" \
	  $(CORE_GL_RTL) $(CORE_GL)/wse_mesh_gl.sv \
	  $(CORE_BUILD)/synth/wse_tile_ice40.v $(CORE_GL_CELLS) \
	  --top-module wse_mesh $(TOP)/tests/core/tb_mesh.cpp -Mdir $(CORE_GL)/obj -o ../tb_mesh \
	  >$(CORE_GL)/build.log 2>&1 || { tail -30 $(CORE_GL)/build.log; exit 1; }

$(CORE_BUILD)/synth/wse_tile_ice40.v: $(CORE_TILE_SYNTH_SRCS) tests/core/synth-tile.ys.in
	$(MAKE) --no-print-directory synth-core

.PHONY: gl-core
gl-core: $(CORE_GL)/tb_mesh $(addprefix $(CORE_BUILD)/elf/,$(addsuffix .elf,$(CORE_GL_SMOKE)))
	@set -e; for p in $(CORE_GL_SMOKE); do \
	  $(CORE_GL)/tb_mesh $(CORE_BUILD)/elf/$$p.elf --load mgmt --max-cycles 400000 \
	    --sig-dir $(CORE_GL) >$(CORE_GL)/$$p.out 2>$(CORE_GL)/$$p.err || \
	    { echo "FAIL gate-level $$p"; cat $(CORE_GL)/$$p.err; exit 1; }; \
	  qemu-system-riscv32 -M spike -cpu rv32,f=true,d=false -bios none -kernel $(CORE_BUILD)/elf/$$p.elf \
	    -display none -serial stdio -monitor none </dev/null | grep '^S:' >$(CORE_GL)/$$p.qemu.sig; \
	  cmp -s $(CORE_GL)/tile-0-0.sig $(CORE_GL)/$$p.qemu.sig || \
	    { echo "FAIL gate-level $$p: signature differs from QEMU"; exit 1; }; \
	  echo "ok   gate-level $$p"; \
	done
SYNTH_STAGES += gl-core
