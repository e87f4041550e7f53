# Training runtime, host side: the reference trainer, expf/logf of
# firmware/lib/wse_math.c, MemoryX, the Fashion-MNIST loader, the training
# API (wsehost_train.h) and wsetrain. Sources are in host-lib/src (built into
# libwsehost by mk/hostlib.mk), host-lib/tools and firmware/lib.
#   make wsetrain          build $(BUILD)/host-lib/wsetrain
#   make test-train-host   cmocka tests, QEMU check of wse_math, wsetrain runs
#   make run-train-host    train the default model on the host-reference backend

TR_DIR   := $(BUILD)/training
TR_FM    := /usr/share/datasets/fashion-mnist
WSETRAIN := $(HL_DIR)/wsetrain

DEB_PKGS += dataset-fashion-mnist zlib1g-dev qemu-system-misc gcc-riscv64-unknown-elf

# libwsehost needs zlib (gzip IDX files) and libm
HL_LIBS += -lz -lm

# Every float operation of these sources is one IEEE binary32 operation:
# no contraction into FMAs, no builtin replacements of expf/logf/fmaf.
TR_EXACT := -ffp-contract=off -fno-builtin -frounding-math
TR_EXACT_OBJS := $(foreach d,obj san tsan,$(foreach o,train_ref wse_math_host memoryx,$(HL_DIR)/$(d)/$(o).o))
$(TR_EXACT_OBJS): HL_CFLAGS += $(TR_EXACT)
$(TR_EXACT_OBJS): firmware/lib/wse_math.c firmware/lib/wse_math.h

.PHONY: wsetrain test-train-host run-train-host install-train-header

$(WSETRAIN): host-lib/tools/wsetrain.c host-lib/include/wsehost_train.h $(HL_A)
	$(CC) -std=c11 -O2 -g $(HL_WARN) -Ihost-lib/include -o $@ $< $(HL_A) $(HL_LIBS)

wsetrain: $(WSETRAIN)

install: install-train-header
install-train-header:
	install -d $(DESTDIR)$(PREFIX)/include
	install -m 0644 host-lib/include/wsehost_train.h $(DESTDIR)$(PREFIX)/include/

# ---- tests ---------------------------------------------------------------
TR_TCFLAGS := -std=c11 -O1 -g $(HL_WARN) $(HL_INC) -Ifirmware/lib -Itests/train $(TR_EXACT)
TR_TESTS   := test_train_ref test_memoryx test_fmnist test_train_api test_routes

$(TR_DIR)/%: tests/train/%.c $(HL_A_SAN) tests/train/tr_test.h
	@mkdir -p $(dir $@)
	$(CC) $(TR_TCFLAGS) $(HL_SAN) -o $@ $< $(HL_A_SAN) -lcmocka $(HL_LIBS)

# The API test also serves a 9-row tree from the mock device (tests/hostlib)
# to the mesh backend, which must refuse it.
$(TR_DIR)/mesh-2x9.dtb: tests/train/mesh-2x9.dts | deps
	@mkdir -p $(dir $@)
	dtc -q -I dts -O dtb -o $@ $<

$(TR_DIR)/test_train_api: tests/train/test_train_api.c tests/hostlib/fake_dev.c tests/hostlib/fake_dev.h \
		$(TR_DIR)/mesh-2x9.dtb $(HL_A_SAN) tests/train/tr_test.h
	@mkdir -p $(dir $@)
	$(CC) $(TR_TCFLAGS) -Itests/hostlib -DTR_DTB_2X9='"$(abspath $(TR_DIR)/mesh-2x9.dtb)"' $(HL_SAN) \
		-o $@ $< tests/hostlib/fake_dev.c $(HL_A_SAN) -lcmocka $(HL_LIBS)

$(TR_DIR)/test_train_ref: tests/train/test_train_ref.c tests/fpu/fpu_model.c tests/fpu/fpu_gen.c tests/fpu/fpu_model.h $(HL_A_SAN) tests/train/tr_test.h
	@mkdir -p $(dir $@)
	$(CC) $(TR_TCFLAGS) -Itests/fpu $(HL_SAN) -o $@ $< tests/fpu/fpu_model.c tests/fpu/fpu_gen.c \
		$(HL_A_SAN) -lcmocka $(HL_LIBS)

$(TR_DIR)/test_routes: tests/train/test_routes.c host-lib/route/wse_route.h tests/train/tr_test.h $(HL_A_SAN)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O1 -g $(HL_WARN) -Iinclude -Ihost-lib/route -Ihost-lib/src -Itests/train $(HL_SAN) \
		-o $@ $< $(HL_A_SAN) -lcmocka $(HL_LIBS)

# expf/logf: accuracy against glibc on the host, and the same bits on QEMU rv32
TR_RVCC := riscv64-unknown-elf-gcc -march=rv32imf -mabi=ilp32f -O2 -Wall -Werror \
           -ffp-contract=off -fno-builtin -nostdlib -ffreestanding -static \
           -Wl,--no-warn-rwx-segments -T tests/fpu/qemu/link.ld -Ifirmware/lib
TR_QEMU := qemu-system-riscv32 -M spike -cpu rv32,f=true,d=false -bios none \
           -display none -serial stdio -monitor none

$(TR_DIR)/test_wse_math: tests/train/test_wse_math.c tests/train/math_sample.h firmware/lib/wse_math.c firmware/lib/wse_math.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 $(HL_WARN) -Ifirmware/lib -Itests/train -ffp-contract=off -fno-builtin \
		-o $@ $< firmware/lib/wse_math.c -lm

$(TR_DIR)/math_rv32.elf: tests/train/math_rv32.c tests/train/math_sample.h firmware/lib/wse_math.c firmware/lib/wse_math.h | deps
	@mkdir -p $(dir $@)
	$(TR_RVCC) -Itests/train -o $@ tests/fpu/qemu/crt0.S $< firmware/lib/wse_math.c

test-train-host: $(addprefix $(TR_DIR)/,$(TR_TESTS)) $(TR_DIR)/test_wse_math $(TR_DIR)/math_rv32.elf $(WSETRAIN)
	@set -e; for t in $(TR_TESTS); do echo "--- $$t (ASan+UBSan)"; \
		TR_FM_DIR=$(TR_FM) TMPDIR=$${TMPDIR:-/tmp} $(TR_DIR)/$$t; done
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
	$${CXX:-g++} -std=c++11 -Wall -Wextra -Werror -fsyntax-only -Ihost-lib/include -x c++ host-lib/include/wsehost_train.h
	@echo "--- API example built against an installed copy through pkg-config"
	@rm -rf $(TR_DIR)/prefix; $(MAKE) --no-print-directory install PREFIX=$(abspath $(TR_DIR)/prefix) > /dev/null
	PKG_CONFIG_PATH=$(abspath $(TR_DIR)/prefix)/lib/pkgconfig; export PKG_CONFIG_PATH; \
	$(CC) -std=c11 $(HL_WARN) $$(pkg-config --cflags wsehost) -o $(TR_DIR)/train-mini \
		docs/examples/train-mini.c $$(pkg-config --libs wsehost)
	sed 's|^data.dir = .*|data.dir = $(TR_FM)|' docs/examples/fmnist-196-64-10.params > $(TR_DIR)/mini.params
	LD_LIBRARY_PATH=$(abspath $(TR_DIR)/prefix)/lib $(TR_DIR)/train-mini $(TR_DIR)/mini.params 20 \
		$(TR_DIR)/mini.ckpt | tee $(TR_DIR)/train-mini.out
	grep -q 'backend host-reference' $(TR_DIR)/train-mini.out
	@echo "test-train-host: all passed"

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

.PHONY: test-train-host-full
TEST_STAGES += test-train-host
TEST_FULL_STAGES += test-train-host-full
