# wsemu-fast: the functional model of the board, in C (docs/wsemu-fast.md).
# The tile core's instruction-set model (sim/fast/), its library
# libwsefast.a, and tb_fast, a one-tile harness with tb_pe's command line;
# the dataflow unit and the board's fabric (libwsefast-df.a) and
# tb_fast_df, the harness of tb_df and tb_mesh_df's command lines.
#   test-fast-iss  the API test; every program of test-core and
#                  test-fpu-isa on tb_fast against QEMU (compare.sh) and
#                  against the RTL tile (tests/fast/compare-rtl.sh), and
#                  random-word programs against the RTL tile
#   test-fast-iss-full  the same on test-full's long random sets
#   test-fast-df   the dataflow programs of test-pe-dataflow on tb_df and
#                  tb_fast_df, compared (tests/fast/compare-df.sh); the
#                  tiles and mesh programs on the model's 4x4 board
#   test-fast-df-full  the same with the RTL mesh and the long random
#                  vector programs
#   bench-fast     BENCH fast.iss_mips, fast.iss_cycles_per_second_4x4,
#                  fast.df_mesh_cycles_per_second_4x4
# Uses mk/core.mk (the ELFs, the RTL harness, the board's wse_cfg.h) and
# mk/fpu.mk (the F ELFs, the FPU C model and its compiler flags), and
# mk/clib.mk's sanitizer flags.

FAST_BUILD := $(BUILD)/fast
FAST_CC    := $(CC) -std=c11 -O2 -g -Wall -Wextra -Werror -Iinclude -Isim/fast -Isim/common
FAST_LIB   := $(FAST_BUILD)/libwsefast.a
FAST_TB    := $(FAST_BUILD)/tb_fast
FAST_HDRS  := sim/fast/wse_fast_tile.h include/wsemu/wse_error.h

# The FP results are the FPU C model's own code, compiled as mk/fpu.mk does.
$(FAST_BUILD)/fpu_model.o: tests/fpu/fpu_model.c $(FPU_MODEL_H)
	@mkdir -p $(dir $@)
	$(FPU_HOSTCC) -c -o $@ $<

# The interpreter at -O3: 1.4 times the instructions per second of -O2.
$(FAST_BUILD)/wsf_tile.o: sim/fast/wsf_tile.c $(FAST_HDRS) $(FPU_MODEL_H) mk/fast.mk
	@mkdir -p $(dir $@)
	$(FAST_CC) -O3 -Itests/fpu -c -o $@ $<

$(FAST_BUILD)/wsf_elf.o: sim/fast/wsf_elf.c sim/fast/wsf_elf.h include/wsemu/wse_error.h
	@mkdir -p $(dir $@)
	$(FAST_CC) -c -o $@ $<

$(FAST_LIB): $(FAST_BUILD)/wsf_tile.o $(FAST_BUILD)/fpu_model.o
	rm -f $@
	ar rcs $@ $^

# The harness takes the memory sizes of CORE_BOARD, as tb_pe does.
$(FAST_TB): sim/fast/tb_fast.c sim/fast/wsf_elf.h $(FAST_HDRS) $(FAST_BUILD)/wsf_elf.o $(FAST_LIB) \
	    $(CORE_CFG)/wse_cfg.h
	$(FAST_CC) -include $(CORE_CFG)/wse_cfg.h -o $@ $< $(FAST_BUILD)/wsf_elf.o $(FAST_LIB)

# The same harness and API test built with ASan+UBSan (mk/clib.mk's flags):
# the QEMU comparison and the API test run on it, the RTL comparison on the
# optimized build.
FAST_SAN_SRCS := sim/fast/tb_fast.c sim/fast/wsf_tile.c sim/fast/wsf_elf.c tests/fpu/fpu_model.c
FAST_TB_SAN   := $(FAST_BUILD)/san/tb_fast
FAST_TEST_SAN := $(FAST_BUILD)/san/test_fast_tile
$(FAST_TB_SAN): $(FAST_SAN_SRCS) sim/fast/wsf_elf.h $(FAST_HDRS) $(FPU_MODEL_H) $(CORE_CFG)/wse_cfg.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror $(CLIB_FLAGS_san) -Iinclude -Isim/fast -Itests/fpu \
	  -include $(CORE_CFG)/wse_cfg.h -o $@ $(FAST_SAN_SRCS)
$(FAST_TEST_SAN): tests/fast/test_fast_tile.c sim/fast/wsf_tile.c tests/fpu/fpu_model.c $(FAST_HDRS) $(FPU_MODEL_H)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror $(CLIB_FLAGS_san) -Iinclude -Isim/fast -Itests/fpu \
	  -o $@ $(filter %.c,$^)

FAST_ISS_ELFS := $(CORE_DIRECTED_ELFS) $(CORE_RAND_ELFS) $(FPU_ISA_ELFS)

# Random instruction words, mostly illegal or trapping (tests/fast/isa_fuzz.c):
# fuzz-N-SEED has N words. Compared with the RTL tile only (QEMU differs from
# the tile by design on what they exercise).
FAST_FUZZ_N          := 1000
FAST_FUZZ_SEEDS      := 1 2 3 4 5 6 7 8
FAST_FUZZ_SEEDS_FULL := $(shell seq 100 199)
FAST_FUZZ_ELFS       := $(foreach s,$(FAST_FUZZ_SEEDS),$(FAST_BUILD)/fuzz/fuzz-$(FAST_FUZZ_N)-$(s).elf)
FAST_FUZZ_ELFS_FULL  := $(foreach s,$(FAST_FUZZ_SEEDS_FULL),$(FAST_BUILD)/fuzz/fuzz-$(FAST_FUZZ_N)-$(s).elf)

$(FAST_BUILD)/isa_fuzz: tests/fast/isa_fuzz.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -o $@ $<

$(FAST_BUILD)/fuzz/fuzz-%.S: $(FAST_BUILD)/isa_fuzz
	@mkdir -p $(dir $@)
	$(FAST_BUILD)/isa_fuzz $(word 1,$(subst -, ,$*)) $(word 2,$(subst -, ,$*)) >$@

$(FAST_BUILD)/fuzz/fuzz-%.elf: $(FAST_BUILD)/fuzz/fuzz-%.S $(CORE_RT_DEPS)
	$(RV_CC) $(FPU_RV_CFLAGS) -T $(CORE_LD) -o $@ $< $(CORE_RT) -lgcc

.SECONDARY: $(patsubst %.elf,%.S,$(FAST_FUZZ_ELFS) $(FAST_FUZZ_ELFS_FULL))

.PHONY: test-fast-iss bench-fast
test-fast-iss: $(FAST_TEST_SAN) $(FAST_TB_SAN) $(FAST_TB) $(CORE_TB_PE) $(FAST_ISS_ELFS) $(FAST_FUZZ_ELFS)
	$(FAST_TEST_SAN)
	@tests/core/compare.sh $(FAST_BUILD)/run-qemu $(FAST_TB_SAN) $(FAST_ISS_ELFS) >$(FAST_BUILD)/qemu.log; \
	  rc=$$?; grep -v '^ok' $(FAST_BUILD)/qemu.log; exit $$rc
	@tests/fast/compare-rtl.sh $(FAST_BUILD)/run-rtl $(CORE_TB_PE) $(FAST_TB) $(FAST_ISS_ELFS) \
	  $(FAST_FUZZ_ELFS) >$(FAST_BUILD)/rtl.log; rc=$$?; grep -v '^ok' $(FAST_BUILD)/rtl.log; exit $$rc
TEST_STAGES += test-fast-iss

# Instructions per CPU-second of the model: tests/core/bench/spin.c (ALU,
# multiply, load and store work, endless) for FAST_BENCH_CYCLES model cycles;
# then spin.c on the 16 tile cores of a 4x4 board (no fabric yet), run
# round-robin 1000 cycles at a time, in board cycles per CPU-second; then
# test-pe-mesh's dataflow layer on the whole 4x4 board (cores, dataflow
# units, routers), 20 runs, in board cycles per CPU-second.
FAST_BENCH_CYCLES      ?= 300000000
FAST_BENCH_MESH_CYCLES ?= 10000000
bench-fast: $(FAST_TB) $(CORE_BUILD)/elf/spin.elf
	@$(FAST_TB) $(CORE_BUILD)/elf/spin.elf --max-cycles $(FAST_BENCH_CYCLES) --stats 2>&1 >/dev/null | \
	  sed -n 's/.* \([0-9.]*\) MIPS$$/BENCH fast.iss_mips \1/p' | grep BENCH
	@$(FAST_TB) $(CORE_BUILD)/elf/spin.elf --mesh 4x4 --max-cycles $(FAST_BENCH_MESH_CYCLES) 2>/dev/null | grep BENCH
	@$(MAKE) -s --no-print-directory $(FAST_TB_DF) $(DF_BUILD)/elf/mesh.elf
	@for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do \
	  $(FAST_TB_DF) $(DF_BUILD)/elf/mesh.elf --mesh tests/dataflow/mesh-$(CORE_BOARD).routes 2>&1 >/dev/null | \
	    grep 'tiles passed'; done | \
	  awk '{ c += $$4; s += $$(NF - 2) } END { printf "BENCH fast.df_mesh_cycles_per_second_4x4 %.0f\n", c / s }'
BENCH_STAGES += bench-fast

# The long random programs of test-core-full and test-fpu-isa-full on the
# model, against the RTL tile (and QEMU).
FAST_ISS_ELFS_FULL := $(CORE_RAND_ELFS_FULL) $(FPU_ISA_ELFS_FULL)
.PHONY: test-fast-iss-full
test-fast-iss-full: $(FAST_TB) $(CORE_TB_PE) $(FAST_ISS_ELFS_FULL) $(FAST_FUZZ_ELFS_FULL)
	@tests/core/compare.sh $(FAST_BUILD)/run-qemu-full $(FAST_TB) $(FAST_ISS_ELFS_FULL) \
	  >$(FAST_BUILD)/qemu-full.log; rc=$$?; grep -v '^ok' $(FAST_BUILD)/qemu-full.log; exit $$rc
	@tests/fast/compare-rtl.sh $(FAST_BUILD)/run-rtl-full $(CORE_TB_PE) $(FAST_TB) $(FAST_ISS_ELFS_FULL) \
	  $(FAST_FUZZ_ELFS_FULL) >$(FAST_BUILD)/rtl-full.log; rc=$$?; grep -v '^ok' $(FAST_BUILD)/rtl-full.log; exit $$rc
TEST_FULL_STAGES += test-fast-iss-full

# ---- The dataflow unit, the routers and the board (wse_fast_df.h, wse_fast_board.h) ----
FAST_DF_HDRS := sim/fast/wse_fast_df.h sim/fast/wse_fast_board.h $(FAST_HDRS)
FAST_DF_LIB  := $(FAST_BUILD)/libwsefast-df.a
FAST_TB_DF   := $(FAST_BUILD)/tb_fast_df

# The engine's element arithmetic is the vector engine's C model, unchanged.
$(FAST_BUILD)/vec_model.o: tests/dataflow/vec_model.c tests/dataflow/vec_model.h $(FPU_MODEL_H)
	@mkdir -p $(dir $@)
	$(FPU_HOSTCC) -Itests/dataflow -Itests/fpu -c -o $@ $<
$(FAST_BUILD)/wsf_df.o: sim/fast/wsf_df.c sim/fast/wsf_fp.h $(FAST_DF_HDRS) tests/dataflow/vec_model.h mk/fast.mk
	@mkdir -p $(dir $@)
	$(FAST_CC) -O3 -Itests/dataflow -c -o $@ $<
$(FAST_BUILD)/wsf_board.o: sim/fast/wsf_board.c $(FAST_DF_HDRS) mk/fast.mk
	@mkdir -p $(dir $@)
	$(FAST_CC) -O3 -c -o $@ $<
$(FAST_DF_LIB): $(FAST_BUILD)/wsf_board.o $(FAST_BUILD)/wsf_df.o $(FAST_BUILD)/vec_model.o
	rm -f $@
	ar rcs $@ $^
$(FAST_TB_DF): sim/fast/tb_fast_df.c sim/fast/wsf_elf.h $(FAST_DF_HDRS) $(FAST_BUILD)/wsf_elf.o \
	    $(FAST_DF_LIB) $(FAST_LIB) $(CORE_CFG)/wse_cfg.h
	$(FAST_CC) -include $(CORE_CFG)/wse_cfg.h -o $@ $< $(FAST_BUILD)/wsf_elf.o $(FAST_DF_LIB) $(FAST_LIB) -lm

# The dataflow programs of test-pe-dataflow on the RTL PE harness and on
# tb_fast_df, compared: exit status, console, wavelets sent per color, and
# the DMEM words of data and bss (tests/fast/compare-df.sh). mk/dataflow.mk
# is read after this file: its programs and harness are made in the recipe.
# The API test of the dataflow unit and the board, with ASan+UBSan.
FAST_DF_SAN_SRCS := tests/fast/test_fast_df.c sim/fast/wsf_board.c sim/fast/wsf_df.c sim/fast/wsf_tile.c \
	tests/dataflow/vec_model.c tests/fpu/fpu_model.c
FAST_DF_TEST_SAN := $(FAST_BUILD)/san/test_fast_df
$(FAST_DF_TEST_SAN): $(FAST_DF_SAN_SRCS) sim/fast/wsf_fp.h $(FAST_DF_HDRS) tests/dataflow/vec_model.h $(FPU_MODEL_H)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror $(CLIB_FLAGS_san) -Iinclude -Isim/fast -Itests/fpu \
	  -Itests/dataflow -o $@ $(FAST_DF_SAN_SRCS) -lm

# Then the board: test-core-mesh's program on the 16 tiles of the model
# (signatures against QEMU) and test-pe-mesh's dataflow layer on the model
# (every tile passes its checks; the same DMEM at other round lengths),
# tests/fast/compare-mesh.sh. test-fast-df-full compares that layer with
# the RTL mesh too (a minute of CPU on the RTL) and the long random vector
# programs of test-pe-dataflow-full with the RTL PE.
.PHONY: test-fast-df test-fast-df-full
test-fast-df: $(FAST_TB_DF) $(FAST_DF_TEST_SAN) $(CORE_BUILD)/elf/tiles.elf
	$(FAST_DF_TEST_SAN)
	@$(MAKE) -s --no-print-directory $(DF_TB) $(DF_ELFS) $(DF_BUILD)/elf/mesh.elf
	@tests/fast/compare-df.sh $(FAST_BUILD)/df-run $(DF_TB) $(FAST_TB_DF) $(DF_ELFS) \
	  >$(FAST_BUILD)/df.log; rc=$$?; grep -v '^ok' $(FAST_BUILD)/df.log; exit $$rc
	@tests/fast/compare-mesh.sh $(FAST_BUILD)/mesh-run $(FAST_TB_DF) $(CORE_BUILD)/elf/tiles.elf \
	  - $(DF_BUILD)/elf/mesh.elf tests/dataflow/mesh-$(CORE_BOARD).routes
test-fast-df-full: $(FAST_TB_DF) $(CORE_BUILD)/elf/tiles.elf
	@$(MAKE) -s --no-print-directory $(DF_TB) $(DF_MESH_TB) $(DF_BUILD)/elf/mesh.elf \
	  $(foreach s,$(DF_VEC_SEEDS_FULL),$(DF_BUILD)/elf/vec_ops-$(s).elf)
	@tests/fast/compare-df.sh $(FAST_BUILD)/df-run-full $(DF_TB) $(FAST_TB_DF) \
	  $(foreach s,$(DF_VEC_SEEDS_FULL),$(DF_BUILD)/elf/vec_ops-$(s).elf) \
	  >$(FAST_BUILD)/df-full.log; rc=$$?; grep -v '^ok' $(FAST_BUILD)/df-full.log; exit $$rc
	@tests/fast/compare-mesh.sh $(FAST_BUILD)/mesh-run-full $(FAST_TB_DF) $(CORE_BUILD)/elf/tiles.elf \
	  $(DF_MESH_TB) $(DF_BUILD)/elf/mesh.elf tests/dataflow/mesh-$(CORE_BOARD).routes
TEST_FULL_STAGES += test-fast-df-full
TEST_STAGES += test-fast-df

# ---- The device server: wsemu-fast (sim/fast/wsemu_fast.c, wsf_host.c) ---------------
# The board model behind the link protocol on a Unix socket, as wsemu-sim
# serves the RTL. It reads the board's DTB at start (build/boards/NAME/NAME.dtb
# unless --dtb says otherwise) and links only libwsewire besides the model.
FAST_SERVER      := $(FAST_BUILD)/bin/wsemu-fast
FAST_SERVER_SRCS := sim/fast/wsemu_fast.c sim/fast/wsf_host.c sim/fast/wsf_pcie.c sim/common/pcie_shm.c
FAST_SERVER_HDRS := sim/fast/wsf_host.h sim/fast/wsf_pcie.h sim/common/pcie_shm.h include/wsemu/wse_pcie.h $(FAST_DF_HDRS) include/wsemu/wse_codec.h include/wsemu/wse_board.h \
                    include/wsemu/wse_image.h
FAST_REV         := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
FAST_BOARD_DTBS   = $(foreach b,$(BOARDS),$(BUILD)/boards/$(b)/$(b).dtb)
$(FAST_SERVER): $(FAST_SERVER_SRCS) $(FAST_SERVER_HDRS) $(FAST_DF_LIB) $(FAST_LIB) $(WIRE_A) | deps
	@mkdir -p $(dir $@)
	$(FAST_CC) -O2 -DWSF_BOARDS_DIR='"$(abspath $(BUILD)/boards)"' \
	  -DWSF_BUILD_ID='"wsemu-fast $(FAST_REV)"' -o $@ $(FAST_SERVER_SRCS) \
	  $(FAST_DF_LIB) $(FAST_LIB) $(WIRE_A) $(WIRE_LIBS) -lm
.PHONY: wsemu-fast
wsemu-fast: $(FAST_SERVER) $(FAST_BOARD_DTBS)

# The PCIe device side (sim/fast/wsf_pcie.c) against a driver model in the
# test's own memory (tests/fast/test_fast_pcie.c), with ASan+UBSan.
FAST_PCIE_TEST := $(FAST_BUILD)/san/test_fast_pcie
$(FAST_PCIE_TEST): tests/fast/test_fast_pcie.c sim/fast/wsf_pcie.c sim/fast/wsf_host.c sim/common/pcie_shm.c \
  $(FAST_SERVER_HDRS) \
  $(FAST_DF_LIB) $(FAST_LIB) $(WIRE_A) | deps
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror $(CLIB_FLAGS_san) -Iinclude -Isim/fast -Isim/common -o $@ \
	  tests/fast/test_fast_pcie.c sim/fast/wsf_pcie.c sim/fast/wsf_host.c sim/common/pcie_shm.c \
	  $(FAST_DF_LIB) $(FAST_LIB) $(WIRE_A) $(WIRE_LIBS) -lm
.PHONY: test-fast-pcie
test-fast-pcie: $(FAST_PCIE_TEST) $(BUILD)/boards/sim-2x2/sim-2x2.dtb
	$(FAST_PCIE_TEST) $(BUILD)/boards/sim-2x2/sim-2x2.dtb
TEST_STAGES += test-fast-pcie
