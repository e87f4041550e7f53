# Training on the mesh: the MLP kernel that runs on every PE
# (firmware/kernels/mlp), embedded into libwsetrain for its mesh backend
# (train/src/train_mesh.c, with the route planner of train/route),
# its tests on wsemu-sim, and the training benchmark.
#   make mlp-kernel        build the kernel ELF
#   make test-train-mesh   the mesh backend against the reference, bit for bit
#   make bench-train       BENCH train.* figures
#   make bench-train-update BENCH train.host_update_*: the host update beside
#                          the device, on the fast model
# docs/training-dataflow.md, docs/training.md.

TM_DIR    := $(BUILD)/train-mesh
TM_KERNEL := $(TM_DIR)/mlp_train.elf

.PHONY: mlp-kernel
mlp-kernel: $(TM_KERNEL)

# The kernel links the wire library built for rv32 (wse_math).
$(TM_KERNEL): firmware/kernels/mlp/mlp_train.c $(WIRE_RV_A) include/wsemu/wse_math.h \
		include/wsemu/wse_mlp_abi.h include/wsemu/wse_wire.h firmware/runtime/wse_df.h $(CORE_RT_DEPS)
	@mkdir -p $(dir $@)
	$(RV_CC) $(DF_RV_CFLAGS) -Iinclude -T $(CORE_LD) -o $@ $< $(WIRE_RV_A) $(CORE_RT) -lgcc

# The ELF as a C array of libwsetrain (TM_GEN, mk/training.mk).
$(TM_GEN): $(TM_KERNEL)
	@mkdir -p $(dir $@)
	{ echo '/* Generated from $(notdir $<) by mk/train-mesh.mk. */'; \
	  echo '#include <stddef.h>'; \
	  echo 'extern const unsigned char wse_mlp_kernel_elf[];'; \
	  echo 'extern const size_t wse_mlp_kernel_elf_len;'; \
	  echo 'const unsigned char wse_mlp_kernel_elf[] = {'; \
	  od -An -v -tx1 $< | sed -e 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '};'; \
	  echo "const size_t wse_mlp_kernel_elf_len = $$(stat -c %s $<);"; } > $@.tmp && mv $@.tmp $@

# ---- tests -----------------------------------------------------------------------
TM_TEST := $(TM_DIR)/test_train_mesh
TM_ENV   = WSEMU_SIM=$(abspath $(DS_DIR)/bin/wsemu-sim) WSEMU_FAST=$(abspath $(FAST_SERVER)) \
	TR_FM_DIR=$(TR_FM) TMPDIR=$${TMPDIR:-/tmp}
# The cross-check: each pass and step on the RTL also runs on the functional
# model of the same board and must give the RTL's bits.
TM_X4    = WSE_TEST_URI_FAST=sim:board=sim-4x4,model=fast
TM_X2    = WSE_TEST_URI_FAST=sim:board=sim-2x2,model=fast

$(TM_TEST): tests/train/test_train_mesh.c tests/train/tr_test.h include/wsemu/wse_mlp_abi.h $(TR_INT)
	@mkdir -p $(dir $@)
	$(CC) $(TR_TCFLAGS) -o $@ $< $(TR_INT) -lcmocka $(TR_LIBS)

# The runs are independent (each spawns its own simulator), so they go two
# at a time, each run's output printed whole when it ends (make -O), the
# longest first. tm-fast runs the whole suite on the functional model alone.
# make test trains on the RTL model of sim-2x2 (and on the functional model
# of both boards, which test-fast-df checks against the RTL tile); the RTL
# model of sim-4x4, whose build and runs are most of the stage's cost,
# trains in test-full-train-mesh.
TM_RUNS := tm-wsetrain tm-2x2-sgd tm-2x2-link tm-2x2-three tm-2x2-sparse tm-fast
TM_RUNS_FULL := tm-4x4-adam tm-4x4-passes tm-4x4-link tm-4x4-fastlink tm-full-4x4
.PHONY: test-train-mesh test-full-train-mesh $(TM_RUNS) $(TM_RUNS_FULL)
test-train-mesh: $(TM_TEST) $(DS_SIMS_TEST) $(FAST_SERVER) $(FAST_BOARD_DTBS) $(WSETRAIN)
	@$(MAKE) --no-print-directory -j2 -O $(TM_RUNS)
test-full-train-mesh: $(TM_TEST) $(DS_SIMS) $(FAST_SERVER) $(FAST_BOARD_DTBS) $(WSETRAIN)
	@$(MAKE) --no-print-directory -j2 -O $(TM_RUNS_FULL)

tm-4x4-passes:
	@echo "--- mesh backend vs reference on sim-4x4"
	$(TM_ENV) $(TM_X4) WSE_TEST_URI=sim:board=sim-4x4 WSE_TEST_MESH=4x4 TM_FILTER='test_*' $(TM_TEST)
tm-4x4-adam:
	@echo "--- 10 steps with AdamW through the API on sim-4x4"
	$(TM_ENV) $(TM_X4) WSE_TEST_URI=sim:board=sim-4x4 WSE_TEST_MESH=4x4 TM_FILTER='api_steps_adam' $(TM_TEST)
tm-4x4-link:
	@echo "--- the same bits at another link bandwidth, with random link back-pressure"
	$(TM_ENV) WSEMU_SIM_OPTS="--link-bytes-per-cycle 2 --link-stall 7" WSE_TEST_URI=sim:board=sim-4x4 \
		TM_FILTER='test_64*' $(TM_TEST)
tm-4x4-fastlink:
	@echo "--- the same bits with the link clocked five times the mesh (40 bytes per cycle), back-pressure"
	$(TM_ENV) WSEMU_SIM_OPTS="--link-bytes-per-cycle 40 --link-stall 9" WSE_TEST_URI=sim:board=sim-4x4 \
		TM_FILTER='test_64*' $(TM_TEST)
tm-2x2-link:
	@echo "--- sim-2x2's bits at another link bandwidth, with random link back-pressure"
	$(TM_ENV) WSEMU_SIM_OPTS="--link-bytes-per-cycle 2 --link-stall 7" WSE_TEST_URI=sim:board=sim-2x2 \
		WSE_TEST_MESH=2x2 TM_FILTER='test_64*' $(TM_TEST)
tm-2x2-three:
	@echo "--- mesh backend vs reference on sim-2x2"
	$(TM_ENV) $(TM_X2) WSE_TEST_URI=sim:board=sim-2x2 WSE_TEST_MESH=2x2 TM_FILTER='test_three*' $(TM_TEST)
tm-2x2-sparse:
	@echo "--- sparse weight streams on sim-2x2's RTL: crafted masks, a refused share"
	$(TM_ENV) WSE_TEST_URI=sim:board=sim-2x2 WSE_TEST_MESH=2x2 TM_FILTER='sparse_small_*' $(TM_TEST)
tm-2x2-sgd:
	@echo "--- 10 steps with SGD through the API on sim-2x2"
	$(TM_ENV) $(TM_X2) WSE_TEST_URI=sim:board=sim-2x2 WSE_TEST_MESH=2x2 TM_FILTER='api_steps_sgd' $(TM_TEST)
tm-fast:
	@echo "--- the whole suite on the functional model (wsemu-fast): sim-4x4, sim-2x2; sparse streams on the 1x1 ulx3s-85f"
	$(TM_ENV) WSE_TEST_URI=sim:board=sim-4x4,model=fast WSE_TEST_MESH=4x4 $(TM_TEST)
	$(TM_ENV) WSE_TEST_URI=sim:board=sim-2x2,model=fast WSE_TEST_MESH=2x2 TM_SKIP='full_*' $(TM_TEST)
	$(TM_ENV) WSE_TEST_URI=sim:board=ulx3s-85f,model=fast WSE_TEST_MESH=1x1 TM_FILTER='sparse_small_*' $(TM_TEST)
	$(TM_ENV) WSETRAIN=$(abspath $(WSETRAIN)) WORK=$(abspath $(TM_DIR))/wsetrain-fast \
		WSE_TEST_DEVICE=sim:board=sim-2x2,model=fast tests/train/test_wsetrain_mesh.sh
tm-wsetrain:
	@echo "--- wsetrain on the mesh: kill and resume, bad inputs"
	$(TM_ENV) WSETRAIN=$(abspath $(WSETRAIN)) WORK=$(abspath $(TM_DIR))/wsetrain \
		tests/train/test_wsetrain_mesh.sh

# test-full: the make-run model's pass on the regression model too
tm-full-4x4:
	$(TM_ENV) WSE_TEST_URI=sim:board=sim-4x4 WSE_TEST_MESH=4x4 TM_FILTER='full_*' $(TM_TEST)

TEST_STAGES += test-train-mesh

# test_train_api and the soak (mk/training.mk) run the API's mesh backend
# on the functional model of sim-2x2 (WSEMU_FAST), defined after that
# fragment.
test-train-host test-train-soak: $(FAST_SERVER) $(FAST_BOARD_DTBS)
TEST_FULL_STAGES += test-full-train-mesh

# ---- make run: train on a simulated mesh -------------------------------------------
# Three epochs of 196-64-10 (Adam, batch 32: 5,625 steps) on the functional
# model of the board (wsemu-fast), then the whole test set. MODEL=rtl trains
# on the RTL instead (the Verilator benchmark model of sim-4x4, about 15 s a
# step: set RUN_STEPS), BOARD= another simulated board, RUN_STEPS= fewer steps.
MODEL      ?= fast
RUN_STEPS  ?= 5625
RUN_EVAL   ?= 0
TM_PARAMS  := docs/examples/fmnist-196-64-10-mesh.params
TM_RUN_ENV  = WSEMU_SIM=$(abspath $(DS_DIR)/bin/wsemu-sim) WSEMU_SIM_DIR=$(abspath $(DS_FAST_DIR)) \
	WSEMU_FAST=$(abspath $(FAST_SERVER))
# the board's mesh from its name (sim-CxR)
TM_RUN_MESH = $(patsubst sim-%,%,$(BOARD))
ifeq ($(MODEL),fast)
TM_RUN_URI  = sim:board=$(BOARD),model=fast
TM_RUN_DEPS = $(FAST_SERVER) $(BUILD)/boards/$(BOARD)/$(BOARD).dtb
else ifeq ($(MODEL),rtl)
ifeq ($(filter $(BOARD),$(DS_BOARDS)),)
$(if $(filter run run-train,$(MAKECMDGOALS)),$(error MODEL=rtl: wsemu-sim is built for $(DS_BOARDS), not $(BOARD)))
endif
TM_RUN_URI  = sim:board=$(BOARD)
TM_RUN_DEPS = $(if $(filter sim-4x4,$(BOARD)),$(DS_FAST_SIM),$(DS_DIR)/$(BOARD)/wsemu-sim) $(DS_DIR)/bin/wsemu-sim
else
$(error MODEL=$(MODEL): the models are fast and rtl)
endif

.PHONY: run-train
run-train: $(TM_RUN_DEPS) $(WSETRAIN)
	@rm -rf $(TM_DIR)/run; mkdir -p $(TM_DIR)/run
	sed -e 's|^data.dir = .*|data.dir = $(TR_FM)|' -e 's|^runtime.device = .*|runtime.device = $(TM_RUN_URI)|' \
	  -e 's|^runtime.mesh = .*|runtime.mesh = $(TM_RUN_MESH)|' \
	  -e 's|^run.eval_examples = .*|run.eval_examples = $(RUN_EVAL)|' $(TM_PARAMS) > $(TM_DIR)/run/run.params
	$(TM_RUN_ENV) $(WSETRAIN) --params $(TM_DIR)/run/run.params --model-dir $(TM_DIR)/run/model \
		--num-steps $(RUN_STEPS)
	$(TM_RUN_ENV) $(WSETRAIN) --params $(TM_DIR)/run/run.params --model-dir $(TM_DIR)/run/model \
		--mode eval
	@echo "make run: loss and accuracy curve in $(TM_DIR)/run/model/curves.svg"

# ---- benchmark ----------------------------------------------------------------------
# On the fast model of sim-4x4. BENCH_TRAIN_STEPS / BENCH_TRAIN_EVAL size the
# accuracy run (the figure of docs/training.md: 300 steps, 2,000 images).
BENCH_TRAIN_GEMM_STEPS ?= 2
BENCH_TRAIN_STEPS ?= 300
BENCH_TRAIN_EVAL  ?= 2000
TM_BENCH := $(TM_DIR)/bench_train

$(TM_BENCH): tests/bench/bench_train.c $(TR_INT)
	@mkdir -p $(dir $@)
	$(CC) $(TR_TCFLAGS) -o $@ $< $(TR_INT) $(TR_LIBS)

.PHONY: bench-train
bench-train: $(TM_BENCH) $(DS_FAST_SIM) $(DS_DIR)/bin/wsemu-sim $(FAST_SERVER) $(FAST_BOARD_DTBS)
	$(TM_RUN_ENV) TR_FM_DIR=$(TR_FM) $(TM_BENCH) gemm $(BENCH_TRAIN_GEMM_STEPS)
	$(TM_RUN_ENV) TR_FM_DIR=$(TR_FM) $(TM_BENCH) accuracy $(BENCH_TRAIN_STEPS) $(BENCH_TRAIN_EVAL)
	$(TM_RUN_ENV) TR_FM_DIR=$(TR_FM) WSE_BENCH_URI=sim:board=sim-4x4,model=fast $(TM_BENCH) epoch

BENCH_STAGES += bench-train

# Sparse weight streams (docs/training-dataflow.md section 13): cycles of a
# 784-128-10 step dense over sparse at 50, 75, 90 and 95% (BENCH_SPARSE_STEPS
# steps each), the format's bound at 90%, and the test accuracy of 196-64-10
# at 90% beside the dense one (BENCH_SPARSE_ACC_STEPS steps, the first
# BENCH_SPARSE_EVAL test images). On wsemu-fast of sim-4x4 (a step of
# 784-128-10 on the RTL's model takes minutes): the model's cycles are its
# cost model's (docs/wsemu-fast.md), not the RTL's.
BENCH_SPARSE_STEPS     ?= 2
BENCH_SPARSE_ACC_STEPS ?= 300
BENCH_SPARSE_EVAL      ?= 2000
.PHONY: bench-sparse
bench-sparse: $(TM_BENCH) $(FAST_SERVER) $(FAST_BOARD_DTBS)
	$(TM_RUN_ENV) TR_FM_DIR=$(TR_FM) WSE_BENCH_URI=sim:board=sim-4x4,model=fast \
		$(TM_BENCH) sparse $(BENCH_SPARSE_STEPS)
	$(TM_RUN_ENV) TR_FM_DIR=$(TR_FM) WSE_BENCH_URI=sim:board=sim-4x4,model=fast \
		$(TM_BENCH) sparse-accuracy $(BENCH_SPARSE_ACC_STEPS) $(BENCH_SPARSE_EVAL)

BENCH_STAGES += bench-sparse

# The host update beside the device (docs/training.md): the fraction of
# the optimizer's host time hidden behind the passes, on the fast model of
# sim-4x4 (BENCH_UPDATE_STEPS steps each way).
BENCH_UPDATE_STEPS ?= 40
TM_BENCH_UPD := $(TM_DIR)/bench_train_update

$(TM_BENCH_UPD): tests/bench/bench_train_update.c $(TR_INT)
	@mkdir -p $(dir $@)
	$(CC) $(TR_TCFLAGS) -o $@ $< $(TR_INT) $(TR_LIBS)

.PHONY: bench-train-update
bench-train-update: $(TM_BENCH_UPD) $(FAST_SERVER) $(FAST_BOARD_DTBS)
	$(TM_RUN_ENV) TR_FM_DIR=$(TR_FM) $(TM_BENCH_UPD) $(BENCH_UPDATE_STEPS)

BENCH_STAGES += bench-train-update

# The functional model against the RTL's benchmark model (tests/bench/bench_sim.sh).
BENCH_SIM_STEPS ?= 10
.PHONY: bench-sim
bench-sim: $(TM_BENCH) $(WSETRAIN) $(DS_FAST_SIM) $(DS_DIR)/bin/wsemu-sim $(FAST_SERVER) $(FAST_BOARD_DTBS)
	$(TM_RUN_ENV) tests/bench/bench_sim.sh $(WSETRAIN) $(TM_BENCH) $(TM_DIR)/bench-sim $(TR_FM) $(BENCH_SIM_STEPS)

BENCH_STAGES += bench-sim
