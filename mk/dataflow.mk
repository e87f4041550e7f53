# Dataflow PE (rtl/pe/dataflow): fabric interface, tasks, vector engine; the
# firmware runtime and intrinsics for it; tests and benchmark. See
# docs/pe-programming.md.
#   lint-dataflow      verilator --lint-only -Wall on the PE with the unit
#   test-pe-dataflow   C model checks, firmware programs on the PE harness
#   bench-pe           BENCH pe.* figures

# The unit's sources (rtl/pe/dataflow/files.mk) are in the core's lists
# (mk/core.mk), since the PE instantiates it.

DF_BUILD := $(BUILD)/dataflow
DF_TB    := $(DF_BUILD)/tb-$(CORE_BOARD)/tb_df
DF_TB_BENCH := $(DF_BUILD)/tb-$(CORE_BOARD)-bench/tb_df

.PHONY: lint-dataflow
lint-dataflow: lint-core

$(DF_TB): $(CORE_PKGS) $(CORE_PE_SRCS) $(RTL_PRIM_HDRS) $(CORE_VLT) tests/dataflow/tb_df.cpp tests/core/elf32.h | deps
	@mkdir -p $(dir $@)
	verilator --cc --exe --build $(CORE_VFLAGS) -CFLAGS "-O1 -I$(TOP)/tests/core -I$(TOP)/$(CORE_CFG)" \
	  $(CORE_VLT) $(CORE_PKGS) $(CORE_PE_SRCS) --top-module wse_pe \
	  $(TOP)/tests/dataflow/tb_df.cpp -Mdir $(dir $@) -o tb_df >$(dir $@)/build.log 2>&1 || \
	  { cat $(dir $@)/build.log; exit 1; }

$(DF_TB_BENCH): $(CORE_PKGS) $(CORE_PE_SRCS) $(RTL_PRIM_HDRS) $(CORE_VLT) tests/dataflow/tb_df.cpp tests/core/elf32.h | deps
	@mkdir -p $(dir $@)
	verilator --cc --exe --build $(CORE_VFLAGS_BENCH) -CFLAGS "-I$(TOP)/tests/core -I$(TOP)/$(CORE_CFG)" \
	  $(CORE_VLT) $(CORE_PKGS) $(CORE_PE_SRCS) --top-module wse_pe \
	  $(TOP)/tests/dataflow/tb_df.cpp -Mdir $(dir $@) -o tb_df >$(dir $@)/build.log 2>&1 || \
	  { cat $(dir $@)/build.log; exit 1; }

# ---- Firmware ----------------------------------------------------------------------
DF_RV_CFLAGS := -march=rv32imf_zicsr_zifencei -mabi=ilp32f -O2 -g -include wse_cfg.h \
	-ffreestanding -fno-builtin -nostdlib -nostartfiles -ffp-contract=off \
	-Wall -Wextra -Werror -Ifirmware/runtime -I$(CORE_CFG)
DF_RT      := $(CORE_RT) firmware/runtime/wse_df_rt.c
DF_RT_DEPS := $(CORE_RT_DEPS) firmware/runtime/wse_df_rt.c firmware/runtime/wse_df.h

DF_HOSTCC := $(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -ffp-contract=off -Itests/fpu -Itests/dataflow
$(DF_BUILD)/vec_gen: tests/dataflow/vec_gen.c tests/dataflow/vec_model.c tests/dataflow/vec_model.h \
		tests/fpu/fpu_model.c tests/fpu/fpu_gen.c tests/fpu/fpu_model.h | deps
	@mkdir -p $(dir $@)
	$(DF_HOSTCC) -o $@ tests/dataflow/vec_gen.c tests/dataflow/vec_model.c tests/fpu/fpu_model.c tests/fpu/fpu_gen.c

# vec_ops-SEED.elf: vec_gen SEED DF_VEC_NOPS cases
DF_VEC_NOPS  ?= 60
DF_VEC_SEEDS := 1 2 3 4 5 6
DF_VEC_SEEDS_FULL := $(shell seq 100 160)
$(DF_BUILD)/gen/vec-%/vec_cases.h: $(DF_BUILD)/vec_gen
	@mkdir -p $(dir $@)
	$(DF_BUILD)/vec_gen $* $(DF_VEC_NOPS) > $@
$(DF_BUILD)/elf/vec_ops-%.elf: tests/dataflow/fw/vec_ops.c $(DF_BUILD)/gen/vec-%/vec_cases.h \
		tests/dataflow/fw/vg_common.h $(DF_RT_DEPS)
	@mkdir -p $(dir $@)
	$(RV_CC) $(DF_RV_CFLAGS) -I$(DF_BUILD)/gen/vec-$* -T $(CORE_LD) -o $@ $< $(DF_RT) -lgcc
$(DF_BUILD)/elf/%.elf: tests/dataflow/fw/%.c $(DF_RT_DEPS)
	@mkdir -p $(dir $@)
	$(RV_CC) $(DF_RV_CFLAGS) -T $(CORE_LD) -o $@ $< $(DF_RT) -lgcc
# vec_move-SEED.elf: the same program with a move of the harness feed on
# color DF_MOVE_COLOR running beside DF_MOVE_NOPS FMACS operations
DF_MOVE_NOPS  := 30
DF_MOVE_COLOR := 20
DF_MOVE_SEEDS := 1 2
$(DF_BUILD)/gen/vecmove-%/vec_cases.h: $(DF_BUILD)/vec_gen
	@mkdir -p $(dir $@)
	$(DF_BUILD)/vec_gen $* $(DF_MOVE_NOPS) move $(DF_MOVE_COLOR) > $@
$(DF_BUILD)/elf/vec_move-%.elf: tests/dataflow/fw/vec_ops.c $(DF_BUILD)/gen/vecmove-%/vec_cases.h \
		tests/dataflow/fw/vg_common.h $(DF_RT_DEPS)
	@mkdir -p $(dir $@)
	$(RV_CC) $(DF_RV_CFLAGS) -I$(DF_BUILD)/gen/vecmove-$* -T $(CORE_LD) -o $@ $< $(DF_RT) -lgcc
# sparse-SEED.elf: DF_SPARSE_NOPS SPMACS operations, each with its sparse
# share sent by the core on DF_SPARSE_COLOR (looped back by the harness).
DF_SPARSE_NOPS  := 40
DF_SPARSE_COLOR := 5
DF_SPARSE_SEEDS := 1 2 3
$(DF_BUILD)/gen/sparse-%/sparse_cases.h: $(DF_BUILD)/vec_gen
	@mkdir -p $(dir $@)
	$(DF_BUILD)/vec_gen $* $(DF_SPARSE_NOPS) sparse $(DF_SPARSE_COLOR) > $@
$(DF_BUILD)/elf/sparse-%.elf: tests/dataflow/fw/sparse.c $(DF_BUILD)/gen/sparse-%/sparse_cases.h \
		tests/dataflow/fw/vg_common.h $(DF_RT_DEPS)
	@mkdir -p $(dir $@)
	$(RV_CC) $(DF_RV_CFLAGS) -I$(DF_BUILD)/gen/sparse-$* -T $(CORE_LD) -o $@ $< $(DF_RT) -lgcc
DF_SPARSE_ELFS := $(foreach s,$(DF_SPARSE_SEEDS),$(DF_BUILD)/elf/sparse-$(s).elf)
# gather-SEED.elf: DF_GATHER_NOPS operations, SPIDX with index-only shares
# sent by the core on DF_GATHER_COLOR and gathered operations over its table.
DF_GATHER_NOPS  := 60
DF_GATHER_COLOR := 5
DF_GATHER_SEEDS := 1 2 3
$(DF_BUILD)/gen/gather-%/gather_cases.h: $(DF_BUILD)/vec_gen
	@mkdir -p $(dir $@)
	$(DF_BUILD)/vec_gen $* $(DF_GATHER_NOPS) gather $(DF_GATHER_COLOR) > $@
$(DF_BUILD)/elf/gather-%.elf: tests/dataflow/fw/gather.c $(DF_BUILD)/gen/gather-%/gather_cases.h \
		tests/dataflow/fw/vg_common.h $(DF_RT_DEPS)
	@mkdir -p $(dir $@)
	$(RV_CC) $(DF_RV_CFLAGS) -I$(DF_BUILD)/gen/gather-$* -T $(CORE_LD) -o $@ $< $(DF_RT) -lgcc
DF_GATHER_ELFS := $(foreach s,$(DF_GATHER_SEEDS),$(DF_BUILD)/elf/gather-$(s).elf)
.SECONDARY: $(foreach s,$(DF_VEC_SEEDS) $(DF_VEC_SEEDS_FULL),$(DF_BUILD)/gen/vec-$(s)/vec_cases.h) \
	$(foreach s,$(DF_MOVE_SEEDS),$(DF_BUILD)/gen/vecmove-$(s)/vec_cases.h) \
	$(foreach s,$(DF_SPARSE_SEEDS),$(DF_BUILD)/gen/sparse-$(s)/sparse_cases.h) \
	$(foreach s,$(DF_GATHER_SEEDS),$(DF_BUILD)/gen/gather-$(s)/gather_cases.h)

# ---- Tests ----------------------------------------------------------------------------
# Each line: ELF name, then harness options.
DF_PROGS := tasks storm move fpu_share
DF_ELFS  := $(addprefix $(DF_BUILD)/elf/,$(addsuffix .elf,$(DF_PROGS))) \
	$(foreach s,$(DF_VEC_SEEDS),$(DF_BUILD)/elf/vec_ops-$(s).elf) \
	$(foreach s,$(DF_MOVE_SEEDS),$(DF_BUILD)/elf/vec_move-$(s).elf) $(DF_SPARSE_ELFS) \
	$(DF_GATHER_ELFS)

.PHONY: test-pe-dataflow test-pe-dataflow-full
test-pe-dataflow: $(DF_TB) $(DF_ELFS)
	tests/dataflow/run.sh $(DF_BUILD)/run $(DF_TB) $(DF_ELFS)
TEST_STAGES += test-pe-dataflow

test-pe-dataflow-full: $(DF_TB) $(foreach s,$(DF_VEC_SEEDS_FULL),$(DF_BUILD)/elf/vec_ops-$(s).elf)
	tests/dataflow/run.sh $(DF_BUILD)/run-full $(DF_TB) $(foreach s,$(DF_VEC_SEEDS_FULL),$(DF_BUILD)/elf/vec_ops-$(s).elf)
TEST_FULL_STAGES += test-pe-dataflow-full

# ---- Benchmark ---------------------------------------------------------------------
# One PE on the harness (memory operands, dispatch), and the 2x2 dataflow
# mesh (same PE parameters as sim-4x4) for the fabric rate: (0,0) streams
# the scalars over a route into its neighbour (1,0), which runs the FMACS
# (fw/bench_fabric.c); its model is built at the end of this file. Mesh
# console lines carry a "[x,y] " prefix.
DF_BENCH_BOARD := sim-2x2
DF_BENCH_MESH_TB := $(DF_BUILD)/mesh-$(DF_BENCH_BOARD)-bench/tb_mesh_df
.PHONY: bench-pe
bench-pe: $(DF_TB_BENCH) $(DF_BUILD)/elf/bench.elf $(DF_BENCH_MESH_TB) $(DF_BUILD)/elf/bench_fabric.elf
	@$(DF_TB_BENCH) $(DF_BUILD)/elf/bench.elf --max-cycles 20000000 \
	  --dispatch-color 12 > $(DF_BUILD)/bench.out 2>&1 || { cat $(DF_BUILD)/bench.out; false; }
	@$(DF_BENCH_MESH_TB) $(DF_BUILD)/elf/bench_fabric.elf tests/dataflow/bench-$(DF_BENCH_BOARD).routes \
	  --max-cycles 2000000 > $(DF_BUILD)/bench-fabric.out 2>&1 || { cat $(DF_BUILD)/bench-fabric.out; false; }
	@awk '{ sub(/^\[[0-9]+,[0-9]+\] /, "") } \
	  $$1 == "R" { e[$$2] += $$3; c[$$2] += $$4; r = $$3 / $$4; \
	    if (!($$2 in m) || r < m[$$2]) m[$$2] = r; n[$$2]++ } \
	  $$1 == "DISPATCH" { d = $$3 } \
	  END { printf "BENCH pe.fmacs_mem_rate %.4f\n", e["mem"] / c["mem"]; \
	        printf "BENCH pe.fmacs_fabric_rate %.4f\n", e["fabric"] / c["fabric"]; \
	        printf "BENCH pe.fmacs_vv_rate %.4f\n", e["vv"] / c["vv"]; \
	        printf "BENCH pe.task_dispatch_cycles %.1f\n", d; \
	        printf "BENCH pe.fmacs_mem_rate_min %.4f\n", m["mem"]; \
	        printf "BENCH pe.fmacs_fabric_rate_min %.4f\n", m["fabric"]; \
	        printf "BENCH pe.fmacs_vv_rate_min %.4f\n", m["vv"]; \
	        printf "BENCH pe.fmacs_vv_streamed_rate %.4f\n", e["vvs"] / c["vvs"]; \
	        printf "BENCH pe.fmacs_fwd_rate %.4f\n", e["fwd"] / c["fwd"]; \
	        printf "BENCH pe.fmacs_bww_rate %.4f\n", e["bww"] / c["bww"]; \
	        printf "BENCH pe.spmacs_rate %.4f\n", e["sparse"] / c["sparse"]; \
	        printf "BENCH pe.gather_rate %.4f\n", e["gather"] / c["gather"]; \
	        printf "BENCH pe.gather_spidx_rate %.4f\n", e["gatheridx"] / c["gatheridx"]; \
	        printf "BENCH pe.gather_rate_odd %.4f\n", e["gather_odd"] / c["gather_odd"]; \
	        printf "BENCH pe.gather_spidx_rate_odd %.4f\n", e["gatheridx_odd"] / c["gatheridx_odd"]; \
	        printf "BENCH pe.fabric_stream_rate %.4f\n", e["stream"] / c["stream"] }' \
	  $(DF_BUILD)/bench.out $(DF_BUILD)/bench-fabric.out
BENCH_STAGES += bench-pe

# ---- Multi-tile programs on the fabric mesh --------------------------------------
DF_MESH_TB   := $(DF_BUILD)/mesh-$(CORE_BOARD)/tb_mesh_df
DF_MESH_SRCS := $(CORE_PKGS) $(RTL_FABRIC_PKGS) $(CORE_PE_SRCS) $(RTL_PRIM_FABRIC_SRCS) \
	$(RTL_FABRIC_SRCS) $(RTL_TILE_FABRIC_SRCS) $(RTL_MESH_FABRIC_SRCS) \
	tests/dataflow/tb_mesh_df.sv

$(DF_MESH_TB): $(DF_MESH_SRCS) $(RTL_PRIM_HDRS) $(CORE_VLT) tests/dataflow/tb_mesh_df.cpp tests/core/elf32.h | deps
	@mkdir -p $(dir $@)
	verilator --cc --exe --build $(CORE_VFLAGS) -MAKEFLAGS "OPT_FAST=-O1 OPT_SLOW=-O0 OPT_GLOBAL=-O1" \
	  -CFLAGS "-I$(TOP)/tests/core -I$(TOP)/$(CORE_CFG)" \
	  $(CORE_VLT) $(DF_MESH_SRCS) --top-module tb_mesh_df \
	  $(TOP)/tests/dataflow/tb_mesh_df.cpp -Mdir $(dir $@) -o tb_mesh_df >$(dir $@)/build.log 2>&1 || \
	  { cat $(dir $@)/build.log; exit 1; }

# The 4x4 mesh's model is the longest build of the dataflow tests: make
# test-full runs it. make test's multi-tile dataflow runs on the RTL are
# the training passes of test-train-mesh and test-e2e on sim-2x2, and this
# same program on wsemu-fast's 4x4 board (test-fast-df).
.PHONY: test-pe-mesh
test-pe-mesh: $(DF_MESH_TB) $(DF_BUILD)/elf/mesh.elf
	$(DF_MESH_TB) $(DF_BUILD)/elf/mesh.elf tests/dataflow/mesh-$(CORE_BOARD).routes --max-cycles 400000
test-pe-dataflow-full: test-pe-mesh

# bench-pe's mesh model (see Benchmark above); after DF_MESH_SRCS.
DF_BENCH_MESH_SRCS := $(call RTL_CFG_PKG,$(DF_BENCH_BOARD)) \
	$(filter-out $(call RTL_CFG_PKG,$(CORE_BOARD)),$(DF_MESH_SRCS))
$(DF_BENCH_MESH_TB): $(DF_BENCH_MESH_SRCS) $(RTL_PRIM_HDRS) $(CORE_VLT) tests/dataflow/tb_mesh_df.cpp tests/core/elf32.h | deps
	@mkdir -p $(dir $@)
	verilator --cc --exe --build $(CORE_VFLAGS_BENCH) \
	  -CFLAGS "-I$(TOP)/tests/core -I$(TOP)/$(BUILD)/boards/$(DF_BENCH_BOARD)" \
	  $(CORE_VLT) $(DF_BENCH_MESH_SRCS) --top-module tb_mesh_df \
	  $(TOP)/tests/dataflow/tb_mesh_df.cpp -Mdir $(dir $@) -o tb_mesh_df >$(dir $@)/build.log 2>&1 || \
	  { cat $(dir $@)/build.log; exit 1; }
