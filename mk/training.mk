# libwsetrain (train/): the training API of wsehost_train.h, on
# libwsehost. MemoryX and its .npz files, the reference trainer, the
# Fashion-MNIST loader, the IDX, .npy and CSV loaders, the mesh backend
# with its route planner (train/route) and the MLP kernel image (built by
# mk/train-mesh.mk), wsetrain, and the host-side tests.
#   make trainlib          $(BUILD)/train/libwsetrain.{so,a}, wsetrain.pc
#   make wsetrain          build $(BUILD)/train/bin/wsetrain
#   make test-train-host   cmocka tests (the API's mesh backend on wsemu-fast
#                          among them), QEMU check of wse_math, wsetrain runs,
#                          a short soak
#   make test-train-soak   the soak of test-full: 10,000 steps under ASan,
#                          200 under valgrind
#   make run-train-host    train the default model on the host-reference backend

TR_DIR   := $(BUILD)/train
TR_FM    := /usr/share/datasets/fashion-mnist
TR_INC   := -Itrain/include -Itrain/src -Itrain/route -Ihost-lib/include -Iinclude
TR_LIBS  := $(HL_LIBS) -lz -lm

DEB_PKGS += dataset-fashion-mnist zlib1g-dev qemu-system-misc gcc-riscv64-unknown-elf

# The kernel image, generated from the ELF by mk/train-mesh.mk.
TM_GEN   := $(TR_DIR)/gen/wse_mlp_kernel.c
TR_SRCS  := $(sort $(filter-out train/src/train_mpi.c,$(wildcard train/src/*.c))) train/route/wse_route.c train/route/wse_route_write.c $(TM_GEN)
wsetrain_CFLAGS := -std=c11 -O2 -g $(HL_WARN) -fPIC -fvisibility=hidden $(TR_INC)
wsetrain_DEPS   := $(wildcard train/include/*.h train/src/*.h train/route/*.h) $(HL_HDRS)
# The reference trainer and the optimizers compute what the PEs do, one
# IEEE binary32 operation at a time (as wse_math, mk/wire.mk).
CFLAGS_train_ref := $(WSE_FP_EXACT)
CFLAGS_memoryx   := $(WSE_FP_EXACT)
$(call clib,wsetrain,$(TR_DIR),$(TR_SRCS))
$(call clib_public,wsetrain,$(TR_DIR),$(WIRE_A),train/libwsetrain.map,$(HL_VER),-L$(HL_DIR) -lwsehost $(TR_LIBS))
$(wsetrain_SO): $(HL_SO)
TR_A        := $(wsetrain_PUB_A)
TR_SO       := $(wsetrain_SO)
# White-box tests: the internal archives of both libraries and the wire's.
TR_INT      := $(wsetrain_A_obj) $(HL_INT)
TR_INT_SAN  := $(wsetrain_A_san) $(HL_INT_SAN)
TR_INT_TSAN := $(wsetrain_A_tsan) $(HL_INT_TSAN)
WSETRAIN := $(TR_DIR)/bin/wsetrain

.PHONY: trainlib wsetrain test-train-host run-train-host

trainlib: $(TR_SO) $(TR_A) $(TR_DIR)/wsetrain.pc

$(TR_DIR)/wsetrain.pc: train/wsetrain.pc.in host-lib/include/wsehost.h
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(abspath $(PREFIX))|' -e 's|@VERSION@|$(HL_VER)|' $< > $@

# Training across processes on Open MPI (docs/training.md, "Across
# processes: Open MPI") is an optional feature: when mpicc is found (Debian's
# openmpi-bin and libopenmpi-dev, in DEB_PKGS), or WSE_MPI=1, wsetrain is
# built with mpicc and train/src/train_mpi.c; WSE_MPI=0 builds it without.
# The library itself never links MPI.
DEB_PKGS += openmpi-bin libopenmpi-dev
MPICC    ?= mpicc
WSE_MPI  ?= $(if $(shell command -v $(MPICC) 2>/dev/null),1,0)
TR_MPI_O := $(TR_DIR)/mpi/train_mpi.o
# What WSE_MPI was at the last build: wsetrain and bench_swarm are rebuilt
# when it changes (MPI installed or WSE_MPI given).
TR_MPI_FLAG := $(TR_DIR)/wse-mpi.flag
$(shell mkdir -p $(TR_DIR) && [ "$$(cat $(TR_MPI_FLAG) 2>/dev/null)" = "$(WSE_MPI)" ] || \
	echo $(WSE_MPI) > $(TR_MPI_FLAG))

$(TR_MPI_O): train/src/train_mpi.c train/src/train_mpi.h $(wsetrain_DEPS)
	@mkdir -p $(dir $@)
	$(MPICC) $(filter-out -fvisibility=hidden,$(wsetrain_CFLAGS)) -c -o $@ $<

ifeq ($(WSE_MPI),1)
# With MPI, wsetrain also reaches the library's device table (train_backend.h):
# the internal archive, beside train_mpi.o.
$(WSETRAIN): train/tools/wsetrain.c train/include/wsehost_train.h $(TR_MPI_O) $(wsetrain_A_obj) $(HL_INT) \
		$(TR_MPI_FLAG)
	@mkdir -p $(dir $@)
	$(MPICC) -std=c11 -O2 -g $(HL_WARN) -DWSETRAIN_MPI -Itrain/include -Itrain/src -Ihost-lib/include \
		-Iinclude -o $@ $< $(TR_MPI_O) $(wsetrain_A_obj) $(HL_INT) $(TR_LIBS)
else
# wsetrain is a user of the installed libraries: public archives only.
$(WSETRAIN): train/tools/wsetrain.c train/include/wsehost_train.h $(TR_A) $(HL_A) $(TR_MPI_FLAG)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -g $(HL_WARN) -Itrain/include -Ihost-lib/include -Iinclude -o $@ $< \
		$(TR_A) $(HL_A) $(TR_LIBS)
endif

wsetrain: $(WSETRAIN)

install: install-trainlib
.PHONY: install-trainlib
install-trainlib: trainlib hostlib
	sed -e 's|@PREFIX@|$(abspath $(PREFIX))|' -e 's|@VERSION@|$(HL_VER)|' \
		train/wsetrain.pc.in > $(TR_DIR)/wsetrain-install.pc
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include
	install -m 0755 $(TR_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf $(notdir $(TR_SO)) $(DESTDIR)$(PREFIX)/lib/$(wsetrain_SONAME)
	ln -sf $(wsetrain_SONAME) $(DESTDIR)$(PREFIX)/lib/libwsetrain.so
	install -m 0644 $(TR_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 0644 train/include/wsehost_train.h train/route/wse_route.h $(DESTDIR)$(PREFIX)/include/
	install -m 0644 $(TR_DIR)/wsetrain-install.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/wsetrain.pc

# ---- tests ---------------------------------------------------------------
TR_TCFLAGS := -std=c11 -O1 -g $(HL_WARN) $(TR_INC) -Ihost-lib/src -Itests/train $(WSE_FP_EXACT)
TR_TESTS   := test_train_ref test_memoryx test_sparse test_fmnist test_dataset test_npz test_train_api test_routes

$(TR_DIR)/%: tests/train/%.c $(TR_INT_SAN) tests/train/tr_test.h
	@mkdir -p $(dir $@)
	$(CC) $(TR_TCFLAGS) $(HL_SAN) -o $@ $< $(TR_INT_SAN) -lcmocka $(TR_LIBS)

# The API test also serves a 9-row tree from the mock device (tests/hostlib)
# to the mesh backend, which must refuse it.
$(TR_DIR)/mesh-2x9.dtb: tests/train/mesh-2x9.dts | deps
	@mkdir -p $(dir $@)
	dtc -q -I dts -O dtb -o $@ $<

# It runs twice: whole with ASan+UBSan, and its tests of several devices
# (one thread per device) with TSan.
TR_API_SRCS := tests/train/test_train_api.c tests/hostlib/fake_dev.c
TR_API_FLAGS = $(TR_TCFLAGS) -Itests/hostlib -DTR_DTB_2X9='"$(abspath $(TR_DIR)/mesh-2x9.dtb)"'
$(TR_DIR)/test_train_api: $(TR_API_SRCS) tests/hostlib/fake_dev.h $(TR_DIR)/mesh-2x9.dtb $(TR_INT_SAN) \
		tests/train/tr_test.h
	@mkdir -p $(dir $@)
	$(CC) $(TR_API_FLAGS) $(HL_SAN) -o $@ $(TR_API_SRCS) $(TR_INT_SAN) -lcmocka $(TR_LIBS)

$(TR_DIR)/tsan/test_train_api: $(TR_API_SRCS) tests/hostlib/fake_dev.h $(TR_DIR)/mesh-2x9.dtb $(TR_INT_TSAN) \
		tests/train/tr_test.h
	@mkdir -p $(dir $@)
	$(CC) $(TR_API_FLAGS) $(HL_TSAN) -o $@ $(TR_API_SRCS) $(TR_INT_TSAN) -lcmocka $(TR_LIBS)

$(TR_DIR)/test_train_ref: tests/train/test_train_ref.c tests/fpu/fpu_model.c tests/fpu/fpu_gen.c tests/fpu/fpu_model.h $(TR_INT_SAN) tests/train/tr_test.h
	@mkdir -p $(dir $@)
	$(CC) $(TR_TCFLAGS) -Itests/fpu $(HL_SAN) -o $@ $< tests/fpu/fpu_model.c tests/fpu/fpu_gen.c \
		$(TR_INT_SAN) -lcmocka $(TR_LIBS)

# expf/logf: accuracy against glibc on the host, and the same bits on QEMU rv32
TR_RVCC := riscv64-unknown-elf-gcc -march=rv32imf -mabi=ilp32f -O2 -Wall -Werror \
           -ffp-contract=off -fno-builtin -nostdlib -ffreestanding -static \
           -Wl,--no-warn-rwx-segments -T tests/fpu/qemu/link.ld -Iinclude
TR_QEMU := qemu-system-riscv32 -M spike -cpu rv32,f=true,d=false -bios none \
           -display none -serial stdio -monitor none

# Both link the wire library as built: the host's and the rv32 one.
$(TR_DIR)/test_wse_math: tests/train/test_wse_math.c tests/train/math_sample.h $(WIRE_A)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 $(HL_WARN) -Iinclude -Itests/train $(WSE_FP_EXACT) -o $@ $< $(WIRE_A) -lm

$(TR_DIR)/math_rv32.elf: tests/train/math_rv32.c tests/train/math_sample.h $(WIRE_RV_A) | deps
	@mkdir -p $(dir $@)
	$(TR_RVCC) -Itests/train -o $@ tests/fpu/qemu/crt0.S $< $(WIRE_RV_A)

TR_TEST_ENV = TR_FM_DIR=$(TR_FM) TMPDIR=$${TMPDIR:-/tmp} WSEMU_FAST=$(abspath $(FAST_SERVER))
test-train-host: $(addprefix $(TR_DIR)/,$(TR_TESTS)) $(TR_DIR)/tsan/test_train_api $(TR_DIR)/test_wse_math \
		$(TR_DIR)/math_rv32.elf $(TR_DIR)/soak_train $(WSETRAIN) $(TR_SO) $(TR_A)
	@set -e; for t in $(TR_TESTS); do echo "--- $$t (ASan+UBSan)"; \
		$(TR_TEST_ENV) $(TR_DIR)/$$t; done
	@echo "--- test_train_api, several devices (TSan)"
	$(TR_TEST_ENV) TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" TR_FILTER='test_devices_*' \
		$(TR_DIR)/tsan/test_train_api
	@echo "--- soak, short: 50 steps on the functional model of sim-2x2 (ASan+UBSan), 2 checkpoints"
	@rm -rf $(TR_DIR)/soak-smoke; mkdir -p $(TR_DIR)/soak-smoke
	$(TR_TEST_ENV) $(TR_SOAK_ASAN) $(TR_DIR)/soak_train 50 25 $(TR_DIR)/soak-smoke
	@echo "--- wse_math: accuracy against glibc"
	$(TR_DIR)/test_wse_math check
	@echo "--- wse_math: host and QEMU rv32imf give the same bits"
	$(TR_DIR)/test_wse_math sample > $(TR_DIR)/math_host.txt
	timeout 300 $(TR_QEMU) -kernel $(TR_DIR)/math_rv32.elf > $(TR_DIR)/math_qemu.txt
	cmp $(TR_DIR)/math_host.txt $(TR_DIR)/math_qemu.txt
	@echo "identical: $$(wc -l < $(TR_DIR)/math_host.txt) expf/logf results"
	@echo "--- wsetrain"
	WSETRAIN=$(abspath $(WSETRAIN)) TR_FM_DIR=$(TR_FM) WORK=$(abspath $(TR_DIR))/wsetrain \
		tests/train/test_wsetrain.sh
	@echo "--- wsehost_train.h as C++"
	$${CXX:-g++} -std=c++11 -Wall -Wextra -Werror -fsyntax-only -Ihost-lib/include -Iinclude -x c++ train/include/wsehost_train.h
	$${CXX:-g++} -std=c++11 -Wall -Wextra -Werror -fsyntax-only -x c++ train/route/wse_route.h
	@echo "--- exports of libwsetrain"
	readelf -d $(TR_SO) | grep -q 'SONAME.*\[$(wsetrain_SONAME)\]'
	tests/hostlib/check-exports.sh train/libwsetrain.map $(TR_SO) $(TR_A) $(TR_DIR)
	@echo "--- API example built against an installed copy through pkg-config"
	@rm -rf $(TR_DIR)/prefix; $(MAKE) --no-print-directory install PREFIX=$(abspath $(TR_DIR)/prefix) > /dev/null
	PKG_CONFIG_PATH=$(abspath $(TR_DIR)/prefix)/lib/pkgconfig; export PKG_CONFIG_PATH; \
	$(CC) -std=c11 $(HL_WARN) $$(pkg-config --cflags wsetrain) -o $(TR_DIR)/train-mini \
		docs/examples/train-mini.c $$(pkg-config --libs wsetrain)
	sed 's|^data.dir = .*|data.dir = $(TR_FM)|' docs/examples/fmnist-196-64-10.params > $(TR_DIR)/mini.params
	LD_LIBRARY_PATH=$(abspath $(TR_DIR)/prefix)/lib $(TR_DIR)/train-mini $(TR_DIR)/mini.params 20 \
		$(TR_DIR)/mini.ckpt | tee $(TR_DIR)/train-mini.out
	grep -q 'backend host-reference' $(TR_DIR)/train-mini.out
	@echo "test-train-host: all passed"

# The soak (docs/training.md, "Soak"): the API on the functional model of
# sim-2x2 (WSEMU_FAST) for many steps, checkpoints saved and loaded back,
# the resident set printed and checked. ASan+UBSan (LeakSanitizer at exit),
# with a quarantine small enough to keep the resident set flat, and a plain
# build for valgrind.
TR_SOAK_ASAN = ASAN_OPTIONS=detect_leaks=1:quarantine_size_mb=16
$(TR_DIR)/plain/soak_train: tests/train/soak_train.c $(TR_INT)
	@mkdir -p $(dir $@)
	$(CC) $(TR_TCFLAGS) -o $@ $< $(TR_INT) $(TR_LIBS)

run-train-host: $(WSETRAIN)
	@mkdir -p $(TR_DIR)/run
	$(WSETRAIN) --params docs/examples/fmnist-196-64-10.params --model-dir $(TR_DIR)/run/model --num-steps 600
	$(WSETRAIN) --params docs/examples/fmnist-196-64-10.params --model-dir $(TR_DIR)/run/model --mode eval

# Long run (test-full): 196-64-10 for two epochs on the host-reference
# backend must reach at least 82% test accuracy (measured: 83.4%).
test-train-host-full: $(WSETRAIN)
	@rm -rf $(TR_DIR)/full; mkdir -p $(TR_DIR)/full
	sed 's|^data.dir = .*|data.dir = $(TR_FM)|' docs/examples/fmnist-196-64-10.params > $(TR_DIR)/full/p.params
	$(WSETRAIN) --params $(TR_DIR)/full/p.params --model-dir $(TR_DIR)/full/m --num-steps 3750
	$(WSETRAIN) --params $(TR_DIR)/full/p.params --model-dir $(TR_DIR)/full/m --mode eval | tee $(TR_DIR)/full/eval.out
	awk '/^eval:/ {for (k = 1; k <= NF; k++) if ($$k == "accuracy") acc = $$(k+1)} \
		END {print "test accuracy", acc; exit !(acc + 0 >= 0.82)}' $(TR_DIR)/full/eval.out

# The soak of test-full: 10,000 steps under ASan+UBSan with a checkpoint
# every 1,000, the resident set at most 4 MiB above its value at step
# 1,000; then 200 steps under valgrind (no leak, no error).
SOAK_STEPS ?= 10000
test-train-soak: $(TR_DIR)/soak_train $(TR_DIR)/plain/soak_train
	@rm -rf $(TR_DIR)/soak; mkdir -p $(TR_DIR)/soak/asan $(TR_DIR)/soak/valgrind
	@echo "--- soak: $(SOAK_STEPS) steps (ASan+UBSan), a checkpoint every 1,000"
	$(TR_TEST_ENV) $(TR_SOAK_ASAN) $(TR_DIR)/soak_train $(SOAK_STEPS) 1000 $(TR_DIR)/soak/asan 4096
	@echo "--- soak: 200 steps under valgrind, a checkpoint every 100"
	$(TR_TEST_ENV) valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--error-exitcode=1 $(TR_DIR)/plain/soak_train 200 100 $(TR_DIR)/soak/valgrind 100000

# Across processes on Open MPI (tests/train/test_wsetrain_mpi.sh): 3
# ranks and more on this machine (--oversubscribe) on the functional model
# of sim-2x2, N = 1, 2 and 4 for 4 steps; test-full runs 10 steps. Without MPI
# (WSE_MPI=0) the stage says so and passes.
TR_MPI_ENV = WSETRAIN=$(abspath $(WSETRAIN)) WSEMU_FAST=$(abspath $(FAST_SERVER)) TR_FM_DIR=$(TR_FM) \
	WORK=$(abspath $(TR_DIR))/mpi-test
.PHONY: test-train-mpi test-train-mpi-full
test-train-mpi test-train-mpi-full: $(WSETRAIN) $(FAST_SERVER) $(FAST_BOARD_DTBS)
ifeq ($(WSE_MPI),1)
test-train-mpi:
	$(TR_MPI_ENV) tests/train/test_wsetrain_mpi.sh
test-train-mpi-full:
	$(TR_MPI_ENV) MPI_STEPS=10 tests/train/test_wsetrain_mpi.sh
else
test-train-mpi test-train-mpi-full:
	@echo "$@: skipped, wsetrain is built without MPI (WSE_MPI=0; it is 1 when $(MPICC) is found)"
endif

# Several devices (tests/bench/bench_swarm.c): one device's cycles per step
# over the most of any of N devices, N = 2 and 4, and the host's part of a
# step with 2 devices in threads and (with MPI) on 3 ranks, on the
# functional model of sim-4x4.
BENCH_SWARM_STEPS ?= 3
TR_BENCH_SWARM := $(TR_DIR)/bench_swarm
TR_MPIRUN := mpirun --oversubscribe $$([ "$$(id -u)" -eq 0 ] && echo --allow-run-as-root)
.PHONY: bench-swarm
bench-swarm: $(TR_BENCH_SWARM) $(FAST_SERVER) $(FAST_BOARD_DTBS)
	WSEMU_FAST=$(abspath $(FAST_SERVER)) TR_FM_DIR=$(TR_FM) TMPDIR=$${TMPDIR:-/tmp} \
		$(TR_BENCH_SWARM) $(BENCH_SWARM_STEPS)
ifeq ($(WSE_MPI),1)
	WSEMU_FAST=$(abspath $(FAST_SERVER)) TR_FM_DIR=$(TR_FM) TMPDIR=$${TMPDIR:-/tmp} \
		timeout -k 10 600 $(TR_MPIRUN) -np 3 $(TR_BENCH_SWARM) --mpi $(BENCH_SWARM_STEPS)
$(TR_BENCH_SWARM): tests/bench/bench_swarm.c $(TR_MPI_O) $(TR_INT) $(TR_MPI_FLAG)
	@mkdir -p $(dir $@)
	$(MPICC) $(TR_TCFLAGS) -DBENCH_MPI -o $@ $< $(TR_MPI_O) $(TR_INT) $(TR_LIBS)
else
	@echo "bench-swarm: swarm.mpi_overhead_ms skipped, built without MPI (WSE_MPI=0)"
$(TR_BENCH_SWARM): tests/bench/bench_swarm.c $(TR_INT) $(TR_MPI_FLAG)
	@mkdir -p $(dir $@)
	$(CC) $(TR_TCFLAGS) -o $@ $< $(TR_INT) $(TR_LIBS)
endif
BENCH_STAGES += bench-swarm

.PHONY: test-train-host-full test-train-soak
TEST_STAGES += test-train-host test-train-mpi
TEST_FULL_STAGES += test-train-host-full test-train-soak test-train-mpi-full
