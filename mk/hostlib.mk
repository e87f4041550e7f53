# libwsehost (host-lib/): device access over the link, on the wire
# library. Shared library (versioned SONAME, hidden visibility, export
# list), static library (internal symbols local), pkg-config file, install,
# and its tests.
#   make hostlib                 build $(BUILD)/host-lib/libwsehost.{so,a}
#   make install PREFIX=DIR      install the libraries, headers, pkg-config files
#                                and the udev rules under PREFIX/lib/udev/rules.d
#                                (install-hostlib: libwsehost alone)
#   make install-udev            the udev rules into $(DESTDIR)$(UDEV_RULES_DIR)
#                                (default /etc/udev/rules.d; root, then reload)
#   make test-hostlib            unit tests, ASan/UBSan, valgrind, fuzz run
#   make fuzz-hostlib FUZZ_TIME=3600   long fuzz run (docs/libwsehost.md)

HL_DIR   := $(BUILD)/host-lib
HL_VMAJ  := $(shell sed -n 's/^\#define WSEHOST_VERSION_MAJOR \([0-9]*\)/\1/p' host-lib/include/wsehost.h)
HL_VMIN  := $(shell sed -n 's/^\#define WSEHOST_VERSION_MINOR \([0-9]*\)/\1/p' host-lib/include/wsehost.h)
HL_VPAT  := $(shell sed -n 's/^\#define WSEHOST_VERSION_PATCH \([0-9]*\)/\1/p' host-lib/include/wsehost.h)
HL_VER   := $(HL_VMAJ).$(HL_VMIN).$(HL_VPAT)
HL_SRCS  := $(sort $(wildcard host-lib/src/*.c))
HL_HDRS  := $(wildcard host-lib/include/*.h host-lib/src/*.h) $(WIRE_HDRS)
HL_INC   := -Ihost-lib/include -Ihost-lib/src -Iinclude
HL_WARN  := $(CLIB_WARN)
HL_SAN   := $(CLIB_FLAGS_san)
HL_TSAN  := $(CLIB_FLAGS_tsan)
# usb: transport (transport_usb.c) on libusb-1.0.
HL_USB_CFLAGS := $(shell pkg-config --cflags libusb-1.0 2>/dev/null || echo -I/usr/include/libusb-1.0)
HL_USB_LIBS   := $(shell pkg-config --libs libusb-1.0 2>/dev/null || echo -lusb-1.0)
CFLAGS_transport_usb := $(HL_USB_CFLAGS)
HL_LIBS  := $(WIRE_LIBS) $(HL_USB_LIBS) -lpthread
# The USB bridges' rule; the PCIe driver's /dev/wseN (docs/driver.md).
HL_UDEV_RULES := packaging/udev/70-wsemu.rules packaging/udev/70-wsemu-pcie.rules
UDEV_RULES_DIR ?= /etc/udev/rules.d
wsehost_CFLAGS := -std=c11 -O2 -g $(HL_WARN) -fPIC -fvisibility=hidden $(HL_INC)
wsehost_DEPS   := $(HL_HDRS)
$(call clib,wsehost,$(HL_DIR),$(HL_SRCS))
$(call clib_public,wsehost,$(HL_DIR),$(WIRE_A),host-lib/libwsehost.map,$(HL_VER),$(HL_LIBS))
HL_A       := $(wsehost_PUB_A)
HL_SO      := $(wsehost_SO)
HL_SONAME  := $(wsehost_SONAME)
# White-box tests link the internal archives and the wire library's.
HL_INT     := $(wsehost_A_obj) $(WIRE_A)
HL_INT_SAN := $(wsehost_A_san) $(WIRE_A_SAN)
HL_INT_TSAN := $(wsehost_A_tsan) $(WIRE_A_TSAN)
HL_T     := $(HL_DIR)/tests
HL_TESTS := test_codec test_dtb test_link test_faults test_threads test_async test_usb test_usb_xport \
            test_flash_update test_pcie_xport
HL_TSAN_TESTS := test_threads test_async test_usb_xport test_pcie_xport
HL_TSRC_COMMON := tests/hostlib/fake_dev.c
HL_BOARD_DTBS := $(foreach b,$(BOARDS),$(BUILD)/boards/$(b)/$(b).dtb)
PREFIX   ?= /usr/local
FUZZ_TIME ?= 600
HL_FUZZ_SHORT ?= 8
# The short run in test-hostlib starts from a fixed seed, so a failure
# there is reproducible; fuzz-hostlib (test-full) draws a new one each run.
HL_FUZZ_SEED ?= 1

DEB_PKGS += libcmocka-dev libfdt-dev libusb-1.0-0-dev valgrind clang libclang-rt-14-dev

.PHONY: hostlib install install-hostlib install-udev test-hostlib fuzz-hostlib

hostlib: $(HL_SO) $(HL_A) $(HL_DIR)/wsehost.pc

$(HL_DIR)/wsehost.pc: host-lib/wsehost.pc.in host-lib/include/wsehost.h
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(abspath $(PREFIX))|' -e 's|@VERSION@|$(HL_VER)|' $< > $@

install: install-hostlib
install-hostlib: hostlib
	sed -e 's|@PREFIX@|$(abspath $(PREFIX))|' -e 's|@VERSION@|$(HL_VER)|' \
		host-lib/wsehost.pc.in > $(HL_DIR)/wsehost-install.pc
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/wsemu
	install -m 0755 $(HL_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libwsehost.so.$(HL_VER) $(DESTDIR)$(PREFIX)/lib/$(HL_SONAME)
	ln -sf $(HL_SONAME) $(DESTDIR)$(PREFIX)/lib/libwsehost.so
	install -m 0644 $(HL_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 0644 host-lib/include/wsehost.h $(DESTDIR)$(PREFIX)/include/
	install -m 0644 include/wsemu/wse_error.h $(DESTDIR)$(PREFIX)/include/wsemu/
	install -m 0644 $(HL_DIR)/wsehost-install.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/wsehost.pc
	install -d $(DESTDIR)$(PREFIX)/lib/udev/rules.d
	install -m 0644 $(HL_UDEV_RULES) $(DESTDIR)$(PREFIX)/lib/udev/rules.d/

# The rules where udev reads them; then: udevadm control --reload, replug.
install-udev:
	install -d $(DESTDIR)$(UDEV_RULES_DIR)
	install -m 0644 $(HL_UDEV_RULES) $(DESTDIR)$(UDEV_RULES_DIR)/

# ---- tests ---------------------------------------------------------------
HL_TCFLAGS := -std=c11 -O1 -g $(HL_WARN) $(HL_INC) -Itests/hostlib

# $(1) output folder, $(2) sanitizer flags, $(3) archives
define HL_TEST_RULE
$(1)/%: tests/hostlib/%.c $(HL_TSRC_COMMON) tests/hostlib/fake_dev.h $(3)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(HL_TCFLAGS) $(2) -o $$@ $$< $(HL_TSRC_COMMON) $(3) -lcmocka $$(HL_LIBS)
endef
# test_usb_xport: the usb: transport built over tests/hostlib/fake_libusb.c
# (simulated devices) instead of libusb-1.0.
HL_USBX_SRCS := tests/hostlib/fake_libusb.c host-lib/src/transport_usb.c
define HL_USBX_RULE
$(1)/test_usb_xport: tests/hostlib/test_usb_xport.c $(HL_USBX_SRCS) tests/hostlib/fake_libusb.h $(HL_HDRS) $(3)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(HL_TCFLAGS) $(2) $$(HL_USB_CFLAGS) -o $$@ $$< $(HL_USBX_SRCS) $(3) -lcmocka $$(WIRE_LIBS) -lpthread
endef
# test_pcie_xport: the pcie: transport with open(), ioctl() and write() of
# the device node wrapped, a socket pair standing in for /dev/wseN.
define HL_PCIEX_RULE
$(1)/test_pcie_xport: tests/hostlib/test_pcie_xport.c $(HL_TSRC_COMMON) tests/hostlib/fake_dev.h \
		include/uapi/linux/wse.h $(HL_HDRS) $(3)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(HL_TCFLAGS) $(2) -o $$@ $$< $(HL_TSRC_COMMON) $(3) -lcmocka $$(HL_LIBS) \
		-Wl,--wrap=open,--wrap=ioctl,--wrap=write
endef
$(eval $(call HL_PCIEX_RULE,$(HL_T),,$(HL_INT)))
$(eval $(call HL_PCIEX_RULE,$(HL_T)/san,$(HL_SAN),$(HL_INT_SAN)))
$(eval $(call HL_PCIEX_RULE,$(HL_T)/tsan,$(HL_TSAN),$(HL_INT_TSAN)))
$(eval $(call HL_USBX_RULE,$(HL_T),,$(HL_INT)))
$(eval $(call HL_USBX_RULE,$(HL_T)/san,$(HL_SAN),$(HL_INT_SAN)))
$(eval $(call HL_USBX_RULE,$(HL_T)/tsan,$(HL_TSAN),$(HL_INT_TSAN)))
$(eval $(call HL_TEST_RULE,$(HL_T),,$(HL_INT)))
$(eval $(call HL_TEST_RULE,$(HL_T)/san,$(HL_SAN),$(HL_INT_SAN)))
$(eval $(call HL_TEST_RULE,$(HL_T)/tsan,$(HL_TSAN),$(HL_INT_TSAN)))

$(HL_T)/fake-wsemu-sim: tests/hostlib/fake_wsemu_sim.c $(HL_TSRC_COMMON) tests/hostlib/fake_dev.h $(HL_INT)
	@mkdir -p $(dir $@)
	$(CC) $(HL_TCFLAGS) -o $@ $< $(HL_TSRC_COMMON) $(HL_INT) $(HL_LIBS)

HL_FUZZ_SRCS := tests/hostlib/fuzz_link.c wire/codec.c wire/crc32c.c wire/board.c wire/errorf.c host-lib/src/dtb.c host-lib/src/misc.c
$(HL_T)/fuzz_link: $(HL_FUZZ_SRCS) $(HL_HDRS) | deps
	@mkdir -p $(dir $@)
	clang -std=c11 -O1 -g $(HL_WARN) $(HL_INC) -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -o $@ $(HL_FUZZ_SRCS) -lfdt

HL_EX := $(HL_T)/example-install

test-hostlib: $(addprefix $(HL_T)/,$(HL_TESTS)) $(addprefix $(HL_T)/san/,$(HL_TESTS)) \
		$(addprefix $(HL_T)/tsan/,$(HL_TSAN_TESTS)) $(HL_T)/fake-wsemu-sim $(HL_T)/fuzz_link $(HL_SO) $(HL_A) \
		$(HL_BOARD_DTBS)
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
	echo "--- wsehost.h as C++"; \
	$${CXX:-g++} -std=c++11 -Wall -Wextra -Werror -fsyntax-only -Iinclude -x c++ host-lib/include/wsehost.h; \
	echo "--- exports and SONAME"; \
	readelf -d $(HL_SO) | grep -q 'SONAME.*\[$(HL_SONAME)\]'; \
	tests/hostlib/check-exports.sh host-lib/libwsehost.map $(HL_SO) $(HL_A) $(HL_T); \
	echo "--- fuzz_link ($(HL_FUZZ_SHORT) s)"; \
	mkdir -p $(HL_T)/fuzz-corpus; $(HL_T)/test_codec --write-corpus $(HL_T)/fuzz-corpus $(BUILD)/boards/sim-4x4/sim-4x4.dtb; \
	$(HL_T)/fuzz_link -seed=$(HL_FUZZ_SEED) -max_total_time=$(HL_FUZZ_SHORT) -max_len=9000 -print_final_stats=1 \
		$(HL_T)/fuzz-corpus 2> $(HL_T)/fuzz.log || { tail -40 $(HL_T)/fuzz.log; exit 1; }; \
	grep -E 'stat::number_of_executed_units|cov:' $(HL_T)/fuzz.log | tail -2; \
	echo "--- install + pkg-config example"; \
	rm -rf $(HL_T)/prefix; $(MAKE) --no-print-directory install-hostlib PREFIX=$(abspath $(HL_T)/prefix) > /dev/null; \
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
