# libwsewire, the wire library (wire/, headers in include/wsemu/): the link
# protocol's codec, CRC-32C, the board device-tree rules and expf/logf. It
# depends on nothing but libfdt (the board rules), and every other part
# links it: libwsehost, libwsetrain, wsemu-sim, wse-cfggen, the
# testbenches. The freestanding part (wse_math, CRC-32C) is also built for
# rv32, for the PE firmware.
#   make wire        $(BUILD)/wire/{obj,san,tsan}/libwsewire.a, rv32/libwsewire.a
#   make test-wire   the shared headers against the RTL packages; the
#                    freestanding headers alone, for the host and rv32

WIRE_DIR  := $(BUILD)/wire
WIRE_SRCS := wire/codec.c wire/crc32c.c wire/board.c wire/wse_math.c
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

.PHONY: wire test-wire
wire: $(WIRE_A) $(WIRE_A_SAN) $(WIRE_A_TSAN) $(WIRE_RV_A)

$(BUILD)/tests/wire/check_wire: tests/wire/check_wire.c include/wsemu/wse_wire.h include/wsemu/wse_regs.h | deps
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(CLIB_WARN) -Iinclude -o $@ $<

test-wire: $(BUILD)/tests/wire/check_wire wire
	$< $(RTL_PKG_SRCS) $(RTL_FABRIC_PKGS)
	@echo "--- the freestanding headers alone (host, rv32)"
	$(CC) -std=c11 -ffreestanding -nostdinc $(CLIB_WARN) -pedantic -Iinclude -c -o /dev/null tests/wire/wire_freestanding.c
	riscv64-unknown-elf-gcc -march=rv32imf -mabi=ilp32f -std=c11 -ffreestanding -nostdinc \
		$(CLIB_WARN) -pedantic -Iinclude -c -o /dev/null tests/wire/wire_freestanding.c
	@echo "--- the wire headers as C++"
	@for h in wse_codec.h wse_board.h wse_crc32c.h wse_error.h wse_math.h wse_wire.h; do \
		$${CXX:-g++} -std=c++11 -Wall -Wextra -Werror -fsyntax-only -Iinclude -x c++ include/wsemu/$$h || exit 1; done
	@echo "test-wire: all passed"

TEST_STAGES += test-wire
