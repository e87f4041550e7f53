# libwsehost: shared library (versioned SONAME, hidden visibility, export
# list), static library, pkg-config file, install, and its tests.
#   make hostlib                 build $(BUILD)/host-lib/libwsehost.{so,a}
#   make install PREFIX=DIR      install library, header, pkg-config file
#   make test-hostlib            unit tests, ASan/UBSan, valgrind, fuzz run
#   make fuzz-hostlib FUZZ_TIME=3600   long fuzz run (docs/libwsehost.md)

HL_DIR   := $(BUILD)/host-lib
HL_VMAJ  := $(shell sed -n 's/^\#define WSEHOST_VERSION_MAJOR \([0-9]*\)/\1/p' host-lib/include/wsehost.h)
HL_VMIN  := $(shell sed -n 's/^\#define WSEHOST_VERSION_MINOR \([0-9]*\)/\1/p' host-lib/include/wsehost.h)
HL_VPAT  := $(shell sed -n 's/^\#define WSEHOST_VERSION_PATCH \([0-9]*\)/\1/p' host-lib/include/wsehost.h)
HL_VER   := $(HL_VMAJ).$(HL_VMIN).$(HL_VPAT)
HL_SONAME := libwsehost.so.$(HL_VMAJ)
HL_SRCS  := $(sort $(wildcard host-lib/src/*.c))
HL_HDRS  := $(wildcard host-lib/include/*.h host-lib/src/*.h) include/wsemu/wse_wire.h include/wsemu/wse_regs.h
HL_INC   := -Ihost-lib/include -Ihost-lib/src -Iinclude
HL_WARN  := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
HL_CFLAGS := -std=c11 -O2 -g $(HL_WARN) -fPIC -fvisibility=hidden $(HL_INC)
HL_SAN   := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
HL_LIBS  := -lfdt -lpthread
HL_SO    := $(HL_DIR)/libwsehost.so.$(HL_VER)
HL_A     := $(HL_DIR)/libwsehost.a
HL_A_SAN := $(HL_DIR)/san/libwsehost.a
HL_OBJS  := $(patsubst host-lib/src/%.c,$(HL_DIR)/obj/%.o,$(HL_SRCS))
HL_OBJS_SAN := $(patsubst host-lib/src/%.c,$(HL_DIR)/san/%.o,$(HL_SRCS))
HL_OBJS_TSAN := $(patsubst host-lib/src/%.c,$(HL_DIR)/tsan/%.o,$(HL_SRCS))
HL_A_TSAN := $(HL_DIR)/tsan/libwsehost.a
HL_TSAN  := -fsanitize=thread -fno-omit-frame-pointer
HL_T     := $(HL_DIR)/tests
HL_TESTS := test_codec test_dtb test_link test_faults test_threads test_async
HL_TSAN_TESTS := test_threads test_async
HL_TSRC_COMMON := tests/hostlib/fake_dev.c
HL_BOARD_DTBS := $(foreach b,$(BOARDS),$(BUILD)/boards/$(b)/$(b).dtb)
PREFIX   ?= /usr/local
FUZZ_TIME ?= 600
HL_FUZZ_SHORT ?= 8

DEB_PKGS += libcmocka-dev libfdt-dev valgrind clang

.PHONY: hostlib install test-hostlib fuzz-hostlib

hostlib: $(HL_SO) $(HL_A) $(HL_DIR)/wsehost.pc

$(HL_DIR)/obj/%.o: host-lib/src/%.c $(HL_HDRS) | deps
	@mkdir -p $(dir $@)
	$(CC) $(HL_CFLAGS) -c -o $@ $<

$(HL_DIR)/san/%.o: host-lib/src/%.c $(HL_HDRS) | deps
	@mkdir -p $(dir $@)
	$(CC) $(HL_CFLAGS) $(HL_SAN) -c -o $@ $<

$(HL_DIR)/tsan/%.o: host-lib/src/%.c $(HL_HDRS) | deps
	@mkdir -p $(dir $@)
	$(CC) $(HL_CFLAGS) $(HL_TSAN) -c -o $@ $<

$(HL_A_TSAN): $(HL_OBJS_TSAN)
	@rm -f $@
	ar rcs $@ $^

$(HL_SO): $(HL_OBJS) host-lib/libwsehost.map
	$(CC) -shared -Wl,-soname,$(HL_SONAME) -Wl,--version-script=host-lib/libwsehost.map \
		-Wl,--no-undefined -o $@ $(HL_OBJS) $(HL_LIBS)
	ln -sf $(notdir $@) $(HL_DIR)/$(HL_SONAME)
	ln -sf $(HL_SONAME) $(HL_DIR)/libwsehost.so

$(HL_A): $(HL_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(HL_A_SAN): $(HL_OBJS_SAN)
	@rm -f $@
	ar rcs $@ $^

$(HL_DIR)/wsehost.pc: host-lib/wsehost.pc.in host-lib/include/wsehost.h
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(abspath $(PREFIX))|' -e 's|@VERSION@|$(HL_VER)|' $< > $@

install: hostlib
	sed -e 's|@PREFIX@|$(abspath $(PREFIX))|' -e 's|@VERSION@|$(HL_VER)|' \
		host-lib/wsehost.pc.in > $(HL_DIR)/wsehost-install.pc
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include
	install -m 0755 $(HL_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libwsehost.so.$(HL_VER) $(DESTDIR)$(PREFIX)/lib/$(HL_SONAME)
	ln -sf $(HL_SONAME) $(DESTDIR)$(PREFIX)/lib/libwsehost.so
	install -m 0644 $(HL_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 0644 host-lib/include/wsehost.h $(DESTDIR)$(PREFIX)/include/
	install -m 0644 $(HL_DIR)/wsehost-install.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/wsehost.pc

# ---- tests ---------------------------------------------------------------
HL_TCFLAGS := -std=c11 -O1 -g $(HL_WARN) $(HL_INC) -Itests/hostlib

$(HL_T)/%: tests/hostlib/%.c $(HL_TSRC_COMMON) tests/hostlib/fake_dev.h $(HL_A)
	@mkdir -p $(dir $@)
	$(CC) $(HL_TCFLAGS) -o $@ $< $(HL_TSRC_COMMON) $(HL_A) -lcmocka $(HL_LIBS)

$(HL_T)/san/%: tests/hostlib/%.c $(HL_TSRC_COMMON) tests/hostlib/fake_dev.h $(HL_A_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(HL_TCFLAGS) $(HL_SAN) -o $@ $< $(HL_TSRC_COMMON) $(HL_A_SAN) -lcmocka $(HL_LIBS)

$(HL_T)/tsan/%: tests/hostlib/%.c $(HL_TSRC_COMMON) tests/hostlib/fake_dev.h $(HL_A_TSAN)
	@mkdir -p $(dir $@)
	$(CC) $(HL_TCFLAGS) $(HL_TSAN) -o $@ $< $(HL_TSRC_COMMON) $(HL_A_TSAN) -lcmocka $(HL_LIBS)

$(HL_T)/fake-wsemu-sim: tests/hostlib/fake_wsemu_sim.c $(HL_TSRC_COMMON) tests/hostlib/fake_dev.h $(HL_A)
	@mkdir -p $(dir $@)
	$(CC) $(HL_TCFLAGS) -o $@ $< $(HL_TSRC_COMMON) $(HL_A) $(HL_LIBS)

HL_FUZZ_SRCS := tests/hostlib/fuzz_link.c host-lib/src/codec.c host-lib/src/dtb.c host-lib/src/misc.c
$(HL_T)/fuzz_link: $(HL_FUZZ_SRCS) $(HL_HDRS) | deps
	@mkdir -p $(dir $@)
	clang -std=c11 -O1 -g $(HL_WARN) $(HL_INC) -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -o $@ $(HL_FUZZ_SRCS) -lfdt

HL_EX := $(HL_T)/example-install

test-hostlib: $(addprefix $(HL_T)/,$(HL_TESTS)) $(addprefix $(HL_T)/san/,$(HL_TESTS)) \
		$(addprefix $(HL_T)/tsan/,$(HL_TSAN_TESTS)) $(HL_T)/fake-wsemu-sim $(HL_T)/fuzz_link $(HL_SO) $(HL_BOARD_DTBS)
	@set -e; export WSE_TEST_BOARDS=$(BUILD)/boards WSEMU_SIM=$(abspath $(HL_T)/fake-wsemu-sim) \
		FAKE_DTB_DIR=$(abspath $(BUILD)/boards) TMPDIR=$${TMPDIR:-/tmp}; \
	for t in $(HL_TESTS); do echo "--- $$t"; $(HL_T)/$$t; done; \
	for t in $(HL_TESTS); do echo "--- $$t (ASan+UBSan)"; \
		ASAN_OPTIONS=detect_leaks=1 $(HL_T)/san/$$t; done; \
	for t in $(HL_TSAN_TESTS); do echo "--- $$t (TSan)"; \
		TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" $(HL_T)/tsan/$$t; done; \
	echo "--- test_faults (valgrind)"; \
	valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--error-exitcode=1 $(HL_T)/test_faults > $(HL_T)/valgrind.log 2>&1 || \
		{ cat $(HL_T)/valgrind.log; exit 1; }; tail -3 $(HL_T)/valgrind.log; \
	echo "--- wse_wire.h freestanding (host, rv32), wsehost.h as C++"; \
	$(CC) -std=c11 -ffreestanding -nostdinc $(HL_WARN) -pedantic -Iinclude -c -o /dev/null tests/hostlib/wire_freestanding.c; \
	if command -v riscv64-unknown-elf-gcc > /dev/null; then \
		riscv64-unknown-elf-gcc -march=rv32imf -mabi=ilp32f -std=c11 -ffreestanding -nostdinc \
			$(HL_WARN) -pedantic -Iinclude -c -o /dev/null tests/hostlib/wire_freestanding.c; fi; \
	$${CXX:-g++} -std=c++11 -Wall -Wextra -Werror -fsyntax-only -x c++ host-lib/include/wsehost.h; \
	echo "--- exports and SONAME"; \
	readelf -d $(HL_SO) | grep -q 'SONAME.*\[$(HL_SONAME)\]'; \
	nm -D --defined-only $(HL_SO) | awk '$$2 == "T" {print $$3}' | sed 's/@.*//' | sort > $(HL_T)/exports.txt; \
	sed -n 's/^[[:space:]]*\(wse_[a-z0-9_; ]*\)/\1/p' host-lib/libwsehost.map | tr ';' '\n' | \
		tr -d ' \t' | grep . | sort > $(HL_T)/exports.want; \
	diff -u $(HL_T)/exports.want $(HL_T)/exports.txt; \
	echo "exports: $$(wc -l < $(HL_T)/exports.txt) symbols, all in libwsehost.map; SONAME $(HL_SONAME)"; \
	echo "--- fuzz_link ($(HL_FUZZ_SHORT) s)"; \
	mkdir -p $(HL_T)/fuzz-corpus; $(HL_T)/test_codec --write-corpus $(HL_T)/fuzz-corpus $(BUILD)/boards/sim-4x4/sim-4x4.dtb; \
	$(HL_T)/fuzz_link -max_total_time=$(HL_FUZZ_SHORT) -max_len=9000 -print_final_stats=1 \
		$(HL_T)/fuzz-corpus 2> $(HL_T)/fuzz.log || { tail -40 $(HL_T)/fuzz.log; exit 1; }; \
	grep -E 'stat::number_of_executed_units|cov:' $(HL_T)/fuzz.log | tail -2; \
	echo "--- install + pkg-config example"; \
	rm -rf $(HL_T)/prefix; $(MAKE) --no-print-directory install PREFIX=$(abspath $(HL_T)/prefix) > /dev/null; \
	PKG_CONFIG_PATH=$(abspath $(HL_T)/prefix)/lib/pkgconfig; export PKG_CONFIG_PATH; \
	$(CC) -std=c11 $(HL_WARN) $$(pkg-config --cflags wsehost) -o $(HL_EX) docs/examples/wse-info.c $$(pkg-config --libs wsehost); \
	LD_LIBRARY_PATH=$(abspath $(HL_T)/prefix)/lib $(HL_EX) sim:board=sim-4x4 | tee $(HL_T)/example.out; \
	grep -q 'mesh 4 x 4' $(HL_T)/example.out; \
	LD_LIBRARY_PATH=$(abspath $(HL_T)/prefix)/lib ldd $(HL_EX) | grep -q '$(HL_SONAME) => $(abspath $(HL_T)/prefix)'; \
	echo "test-hostlib: all passed"

fuzz-hostlib: $(HL_T)/fuzz_link $(HL_T)/test_codec $(BUILD)/boards/sim-4x4/sim-4x4.dtb
	mkdir -p $(HL_T)/fuzz-corpus && $(HL_T)/test_codec --write-corpus $(HL_T)/fuzz-corpus $(BUILD)/boards/sim-4x4/sim-4x4.dtb
	$(HL_T)/fuzz_link -max_total_time=$(FUZZ_TIME) -max_len=9000 -jobs=1 $(HL_T)/fuzz-corpus

TEST_STAGES += test-hostlib
TEST_FULL_STAGES += fuzz-hostlib
