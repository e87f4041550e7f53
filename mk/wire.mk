# libwsewire, the wire library (wire/, headers in include/wsemu/): the link
# protocol's codec, CRC-32C, the board device-tree rules and expf/logf. It
# depends on nothing but libfdt (the board rules), and every other part
# links it: libwsehost, libwsetrain, wsemu-sim, wse-cfggen, the
# testbenches. It also holds the firmware image container (wse_image.h,
# docs/firmware-image.md) and its tool wse-mkimage. The freestanding part (wse_math, CRC-32C) is also built for
# rv32, for the PE firmware.
#   make wire        $(BUILD)/wire/{obj,san,tsan}/libwsewire.a, rv32/libwsewire.a,
#                    $(BUILD)/tools/wse-mkimage
#   make test-wire   the shared headers against the RTL packages; the
#                    freestanding headers alone, for the host and rv32; the
#                    image container's tests (plain, ASan+UBSan), wse-mkimage,
#                    a short fuzz run
#   make fuzz-wire FUZZ_TIME=3600   long fuzz run of the image checker

WIRE_DIR  := $(BUILD)/wire
WIRE_SRCS := wire/codec.c wire/crc32c.c wire/board.c wire/errorf.c wire/image.c wire/wse_math.c
WIRE_HDRS := $(wildcard include/wsemu/*.h)
wsewire_CFLAGS := -std=c11 -O2 -g $(CLIB_WARN) -fPIC -fvisibility=hidden -Iinclude
wsewire_DEPS   := $(WIRE_HDRS)
# Every float operation of expf/logf is one IEEE binary32 operation: no
# contraction into FMAs, no builtin replacements; the PEs compute the same.
WSE_FP_EXACT    := -ffp-contract=off -fno-builtin -frounding-math
CFLAGS_wse_math := $(WSE_FP_EXACT)
$(call clib,wsewire,$(WIRE_DIR),$(WIRE_SRCS))
WIRE_A      := $(wsewire_A_obj)
WIRE_A_SAN  := $(wsewire_A_san)
WIRE_A_TSAN := $(wsewire_A_tsan)
WIRE_LIBS   := -lfdt

# rv32imf, freestanding: the code generation flags of the PE firmware that
# links it (mk/dataflow.mk DF_RV_CFLAGS).
WIRE_RV_SRCS := wire/crc32c.c wire/wse_math.c
WIRE_RV_A    := $(WIRE_DIR)/rv32/libwsewire.a
WIRE_RV_CC   := riscv64-unknown-elf-gcc -march=rv32imf_zicsr_zifencei -mabi=ilp32f -O2 -g \
	-ffreestanding -nostdlib -ffp-contract=off -fno-builtin -Wall -Wextra -Werror -Iinclude
$(WIRE_DIR)/rv32/%.o: wire/%.c $(WIRE_HDRS) | deps
	@mkdir -p $(dir $@)
	$(WIRE_RV_CC) -c -o $@ $<
$(WIRE_RV_A): $(patsubst wire/%.c,$(WIRE_DIR)/rv32/%.o,$(WIRE_RV_SRCS))
	@rm -f $@
	riscv64-unknown-elf-ar rcs $@ $^

MKIMAGE := $(BUILD)/tools/wse-mkimage
$(MKIMAGE): wire/tools/wse-mkimage.c $(WIRE_HDRS) $(WIRE_A) | deps
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 $(CLIB_WARN) -Iinclude -o $@ $< $(WIRE_A) $(WIRE_LIBS)

.PHONY: wire test-wire fuzz-wire
wire: $(WIRE_A) $(WIRE_A_SAN) $(WIRE_A_TSAN) $(WIRE_RV_A) $(MKIMAGE)

$(BUILD)/tests/wire/check_wire: tests/wire/check_wire.c include/wsemu/wse_wire.h include/wsemu/wse_regs.h \
		include/wsemu/wse_pcie.h | deps
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(CLIB_WARN) -Iinclude -o $@ $<

# The image container's unit tests, plain and ASan+UBSan, and its fuzz
# target (libFuzzer, ASan+UBSan).
WIRE_T := $(BUILD)/tests/wire
$(WIRE_T)/test_image: tests/wire/test_image.c $(WIRE_HDRS) $(WIRE_A) | deps
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O1 -g $(CLIB_WARN) -Iinclude -o $@ $< $(WIRE_A) -lcmocka $(WIRE_LIBS)
$(WIRE_T)/san/test_image: tests/wire/test_image.c $(WIRE_HDRS) $(WIRE_A_SAN) | deps
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O1 -g $(CLIB_WARN) $(CLIB_FLAGS_san) -Iinclude -o $@ $< $(WIRE_A_SAN) -lcmocka $(WIRE_LIBS)
WIRE_FUZZ_SRCS := tests/wire/fuzz_image.c wire/image.c wire/errorf.c wire/crc32c.c
$(WIRE_T)/fuzz_image: $(WIRE_FUZZ_SRCS) $(WIRE_HDRS) | deps
	@mkdir -p $(dir $@)
	clang -std=c11 -O1 -g $(CLIB_WARN) -Iinclude -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -o $@ $(WIRE_FUZZ_SRCS)
WIRE_FUZZ_SHORT ?= 5
# A fixed seed for the short run in test-wire, so a failure is reproducible;
# the long run (test-full) draws a new one.
WIRE_FUZZ_SEED ?= 1
FUZZ_TIME ?= 600

test-wire: $(BUILD)/tests/wire/check_wire wire $(WIRE_T)/test_image $(WIRE_T)/san/test_image $(WIRE_T)/fuzz_image
	$< $(RTL_PKG_SRCS) $(RTL_FABRIC_PKGS) $(RTL_HIF_PCIE_PKGS)
	@echo "--- the freestanding headers alone (host, rv32)"
	$(CC) -std=c11 -ffreestanding -nostdinc $(CLIB_WARN) -pedantic -Iinclude -c -o /dev/null tests/wire/wire_freestanding.c
	riscv64-unknown-elf-gcc -march=rv32imf -mabi=ilp32f -std=c11 -ffreestanding -nostdinc \
		$(CLIB_WARN) -pedantic -Iinclude -c -o /dev/null tests/wire/wire_freestanding.c
	@echo "--- the wire headers as C++"
	@for h in wse_codec.h wse_board.h wse_crc32c.h wse_error.h wse_image.h wse_math.h wse_pcie.h wse_wire.h wse_wirelib.h; do \
		$${CXX:-g++} -std=c++11 -Wall -Wextra -Werror -fsyntax-only -Iinclude -x c++ include/wsemu/$$h || exit 1; done
	@echo "--- test_image"
	$(WIRE_T)/test_image
	@echo "--- test_image (ASan+UBSan)"
	ASAN_OPTIONS=detect_leaks=1 $(WIRE_T)/san/test_image
	@echo "--- wse-mkimage"
	tests/wire/test-mkimage.sh $(MKIMAGE) $(WIRE_T)/mkimage
	@echo "--- fuzz_image ($(WIRE_FUZZ_SHORT) s)"
	@rm -rf $(WIRE_T)/fuzz-corpus; mkdir -p $(WIRE_T)/fuzz-corpus; \
	$(WIRE_T)/test_image --write-corpus $(WIRE_T)/fuzz-corpus; \
	$(WIRE_T)/fuzz_image -seed=$(WIRE_FUZZ_SEED) -max_total_time=$(WIRE_FUZZ_SHORT) -max_len=4096 -print_final_stats=1 \
		$(WIRE_T)/fuzz-corpus 2> $(WIRE_T)/fuzz.log || { tail -40 $(WIRE_T)/fuzz.log; exit 1; }; \
	grep -E 'stat::number_of_executed_units|cov:' $(WIRE_T)/fuzz.log | tail -2
	@echo "test-wire: all passed"

fuzz-wire: $(WIRE_T)/fuzz_image $(WIRE_T)/test_image
	mkdir -p $(WIRE_T)/fuzz-corpus && $(WIRE_T)/test_image --write-corpus $(WIRE_T)/fuzz-corpus
	$(WIRE_T)/fuzz_image -max_total_time=$(FUZZ_TIME) -max_len=4096 -jobs=1 $(WIRE_T)/fuzz-corpus

TEST_STAGES += test-wire
TEST_FULL_STAGES += fuzz-wire
