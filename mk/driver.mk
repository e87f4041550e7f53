# The Linux driver wse.ko (driver/, docs/driver.md): the PCI driver and its
# character device /dev/wseN, the portable core, the UAPI header.
#   make driver        build/driver/kbuild/wse.ko against Debian's headers for
#                      the installed linux-image-amd64
#   make test-driver   the module with W=1 and sparse (C=2) without a
#                      warning; checkpatch --strict on every driver file; the
#                      core's cmocka tests (plain, ASan+UBSan); the UAPI
#                      header alone as C99 and C++; wse.ko loaded and unloaded
#                      in a QEMU guest (tests/vm/vm-run.sh), no warning in
#                      its kernel log; dkms.conf checked against the
#                      driver (tests/driver/dkms-check.sh); the udev rule
#                      for /dev/wseN (tests/driver/udev-check.sh)
#   make test-vm-pcie  the driver end to end in a QEMU guest: wse.ko ivshmem=1
#                      on wsemu-fast's PCIe device side (sim-2x2), insmod/rmmod
#                      cycles, the bad-call matrix, wsemu-fast stopped and
#                      continued under the driver, wsectl, wsetrain and e2e
#                      over pcie: (tests/vm/test-pcie.sh); a boot with the
#                      driver polling (3 cycles, the leak check of
#                      tests/vm/leak-check.sh), one on ivshmem-doorbell's
#                      MSI-X vectors (2 cycles)
#   make test-full-vm-pcie  the same on sim-4x4: 100 cycles with the leak
#                      check polling, 10 on MSI-X
#   make bench-driver  BENCH pcie.* figures: one boot on MSI-X against
#                      wsemu-fast's sim-2x2 (tests/vm/bench_pcie.c)
#   make test-vm-pcie-rtl  the driver in a guest against the RTL: wsemu-sim's
#                      model of sim-2x2 (wse_top with hif_pcie_ep) serving the
#                      ivshmem device; insmod, wsectl info and run, on MSI-X
#                      (tests/vm/test-pcie-rtl.sh)
#   make test-full-vm-pcie-rtl  that, e2e and two wsetrain steps bit-identical
#                      to sim:, polling and on MSI-X
#   make dkms-install  the module's sources and dkms.conf into
#                      $(DESTDIR)/usr/src/wse-VERSION (then, as root:
#                      dkms install wse/VERSION)
# Uses mk/vm.mk (VM_RUN, the gadget), mk/fast.mk (the server VM_RUN needs) and
# mk/devserver.mk (wsemu-sim's model of sim-2x2).

DEB_PKGS += linux-headers-amd64 sparse linux-source-6.1 perl
DRV_DIR    := $(BUILD)/driver
DRV_KBUILD := $(DRV_DIR)/kbuild
DRV_KO     := $(DRV_KBUILD)/wse.ko
DRV_VMAJ   := $(shell sed -n 's/^\#define WSE_DRIVER_MAJOR \([0-9]*\)$$/\1/p' driver/wse_core.h)
DRV_VMIN   := $(shell sed -n 's/^\#define WSE_DRIVER_MINOR \([0-9]*\)$$/\1/p' driver/wse_core.h)
DRV_VER    := $(DRV_VMAJ).$(DRV_VMIN)
DRV_UDEV_RULE := packaging/udev/70-wsemu-pcie.rules
DRV_FILES  := driver/wse_main.c driver/wse_core.c driver/wse_core.h \
              driver/Kbuild driver/Makefile include/uapi/linux/wse.h
DRV_DEPS   := $(DRV_FILES) include/wsemu/wse_wire.h include/wsemu/wse_pcie.h
# The kernel of the installed linux-image-amd64, read when a recipe runs
# (after `make deps` has installed it).
DRV_KVER    = $(shell dpkg-query -W -f='$${Depends}' linux-image-amd64 | \
                sed -E 's/^linux-image-([^ ,]+).*/\1/')
DRV_CC     := $(CC) -g -Wall -Wextra -Wno-unused-parameter -Werror -Wshadow -Idriver -Iinclude/uapi -Iinclude
DRV_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
DRV_CORE_T := tests/driver/test_core.c driver/wse_core.c
DRV_TESTS  := $(DRV_DIR)/test_core $(DRV_DIR)/test_core_san
DRV_UAPI_T := $(DRV_DIR)/uapi_c99 $(DRV_DIR)/uapi_cxx
DRV_CP     := $(DRV_DIR)/checkpatch/scripts/checkpatch.pl
DRV_LINUX_SRC := /usr/src/linux-source-6.1.tar.xz
# The guest loads the module; binds it, by new_id, to QEMU's edu PCI device,
# whose BAR 0 has no wsemu identification: the probe fails and undoes
# every step (the device disabled, its regions free, no /dev/wse*); the
# module unloads. Then QEMU's ivshmem device with a blank BAR 2: not bound
# by default, refused with ivshmem=1 (no wsemu registers in BAR 2). The
# kernel log shows no warning.
DRV_VM_EDU := /sys/bus/pci/devices/0000:00:04.0
DRV_VM_IVSHMEM := /sys/bus/pci/devices/0000:00:05.0
DRV_VM_CMD := insmod /data/wse.ko && grep -q wse /proc/modules && \
  grep -q 0x11e8 $(DRV_VM_EDU)/device && echo 1234 11e8 > /sys/bus/pci/drivers/wse/new_id && \
  dmesg | grep -q 'no wsemu identification in BAR 0' && [ ! -e $(DRV_VM_EDU)/driver ] && \
  [ \$$(cat $(DRV_VM_EDU)/enable) = 0 ] && ! grep -q wse /proc/iomem && ! ls /dev/wse* 2>/dev/null && \
  rmmod wse && ! grep -q wse /proc/modules && \
  grep -q 0x1110 $(DRV_VM_IVSHMEM)/device && insmod /data/wse.ko && [ ! -e $(DRV_VM_IVSHMEM)/driver ] && \
  ! dmesg | grep -q 'ivshmem without' && rmmod wse && \
  insmod /data/wse.ko ivshmem=1 && dmesg | grep -q 'ivshmem without wsemu registers in BAR 2' && \
  [ ! -e $(DRV_VM_IVSHMEM)/driver ] && ! ls /dev/wse* 2>/dev/null && rmmod wse && \
  ! dmesg | grep -E 'WARNING:|Oops|BUG:|Call Trace'
DRV_VM_QEMU := --qemu-opt -device --qemu-opt edu,addr=04.0 \
  --qemu-opt -object --qemu-opt memory-backend-ram,id=blank,size=64K,share=on \
  --qemu-opt -device --qemu-opt ivshmem-plain,memdev=blank,addr=05.0

# Kbuild of this kernel writes its objects beside the sources: a copy.
$(DRV_KO): $(DRV_DEPS) | deps
	rm -rf $(DRV_KBUILD) && mkdir -p $(DRV_KBUILD)
	cp driver/wse_main.c driver/wse_core.c driver/wse_core.h driver/Kbuild $(DRV_KBUILD)/
	$(MAKE) -C /lib/modules/$(DRV_KVER)/build M=$(abspath $(DRV_KBUILD)) \
	  WSE_TOP=$(TOP) W=1 C=2 modules > $(DRV_DIR)/kbuild.log 2>&1 || \
	  { cat $(DRV_DIR)/kbuild.log; exit 1; }
	@if grep -iE 'warning|error' $(DRV_DIR)/kbuild.log; then rm -f $@; exit 1; fi

$(DRV_DIR)/test_core: $(DRV_CORE_T) driver/wse_core.h include/uapi/linux/wse.h include/wsemu/wse_pcie.h | deps
	@mkdir -p $(dir $@)
	$(DRV_CC) -O2 -o $@ $(DRV_CORE_T) -lcmocka -pthread
$(DRV_DIR)/test_core_san: $(DRV_CORE_T) driver/wse_core.h include/uapi/linux/wse.h include/wsemu/wse_pcie.h | deps
	@mkdir -p $(dir $@)
	$(DRV_CC) $(DRV_SAN) -o $@ $(DRV_CORE_T) -lcmocka -pthread

$(DRV_DIR)/uapi_c99: tests/driver/uapi_test.c include/uapi/linux/wse.h | deps
	@mkdir -p $(dir $@)
	$(CC) -std=c99 -pedantic -Wall -Wextra -Werror -Iinclude/uapi -o $@ $<
$(DRV_DIR)/uapi_cxx: tests/driver/uapi_test.c include/uapi/linux/wse.h | deps
	@mkdir -p $(dir $@)
	$(CXX) -x c++ -std=c++11 -pedantic -Wall -Wextra -Werror -Iinclude/uapi -o $@ $<

# checkpatch.pl and the word lists it reads, from Debian's kernel source.
$(DRV_CP): | deps
	@mkdir -p $(DRV_DIR)/checkpatch
	tar -xJf $(DRV_LINUX_SRC) -C $(DRV_DIR)/checkpatch --strip-components=1 \
	  linux-source-6.1/scripts/checkpatch.pl linux-source-6.1/scripts/spelling.txt \
	  linux-source-6.1/scripts/const_structs.checkpatch
	@touch $@

.PHONY: driver test-driver dkms-install
driver: $(DRV_KO)

# The tree DKMS builds from: driver/'s files at the top, the two headers
# under include/ (dkms.conf's MAKE line points WSE_TOP there).
DRV_DKMS_SRC = $(DESTDIR)/usr/src/wse-$(DRV_VER)
dkms-install:
	install -d $(DRV_DKMS_SRC)/include/uapi/linux $(DRV_DKMS_SRC)/include/wsemu
	install -m 0644 driver/dkms.conf driver/Kbuild driver/Makefile driver/wse_main.c \
	  driver/wse_core.c driver/wse_core.h $(DRV_DKMS_SRC)/
	install -m 0644 include/uapi/linux/wse.h $(DRV_DKMS_SRC)/include/uapi/linux/
	install -m 0644 include/wsemu/wse_wire.h include/wsemu/wse_pcie.h $(DRV_DKMS_SRC)/include/wsemu/

test-driver: $(DRV_KO) $(DRV_TESTS) $(DRV_UAPI_T) $(DRV_CP) $(VM_GADGET) $(FAST_SERVER) \
             $(BUILD)/boards/sim-2x2/sim-2x2.dtb
	for t in $(DRV_TESTS) $(DRV_UAPI_T); do $$t || exit 1; done
	rm -rf $(DRV_DIR)/dkms && $(MAKE) --no-print-directory dkms-install DESTDIR=$(abspath $(DRV_DIR)/dkms)
	tests/driver/dkms-check.sh $(abspath $(DRV_DIR)/dkms) /lib/modules/$(DRV_KVER)/build
	tests/driver/udev-check.sh $(DRV_UDEV_RULE)
	cd $(DRV_DIR)/checkpatch && for f in $(DRV_FILES); do \
	  perl scripts/checkpatch.pl --strict --no-tree -q -f $(TOP)/$$f || exit 1; done
	$(VM_RUN) --out $(DRV_DIR)/vm --file $(DRV_KO) $(DRV_VM_QEMU) -- \
	  "$(DRV_VM_CMD)"

TEST_STAGES += test-driver

# The proof in a virtual machine (docs/vm-harness.md, "The PCIe device"):
# one boot of tests/vm/vm-run.sh --pcie per board, tests/vm/test-pcie.sh.
DRV_IOCTL := $(DRV_DIR)/pcie_ioctl
$(DRV_IOCTL): tests/vm/pcie_ioctl.c include/uapi/linux/wse.h include/wsemu/wse_codec.h $(WIRE_A) | deps
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror -Iinclude -Iinclude/uapi -o $@ $< $(WIRE_A) $(WIRE_LIBS)
DRV_VM_PCIE = WSE_KO=$(DRV_KO) WSECTL=$(DS_DIR)/wsectl E2E=$(DS_DIR)/e2e PCIE_IOCTL=$(DRV_IOCTL) \
	WSETRAIN=$(WSETRAIN) TILES_ELF=$(DS_ELF) WSEMU_FAST=$(abspath $(FAST_SERVER)) tests/vm/test-pcie.sh
DRV_VM_PCIE_DEPS = $(DRV_KO) $(DRV_IOCTL) $(DS_DIR)/wsectl $(DS_DIR)/e2e $(WSETRAIN) $(DS_ELF) $(FAST_SERVER)
.PHONY: test-vm-pcie test-full-vm-pcie
test-vm-pcie: $(DRV_VM_PCIE_DEPS) $(BUILD)/boards/sim-2x2/sim-2x2.dtb
	LEAK_CHECK=1 $(DRV_VM_PCIE) $(DRV_DIR)/vm-pcie sim-2x2 2 2 3 poll $(wordlist 2,99,$(VM_RUN))
	$(DRV_VM_PCIE) $(DRV_DIR)/vm-pcie-msix sim-2x2 2 2 2 msix $(wordlist 2,99,$(VM_RUN))
test-full-vm-pcie: $(DRV_VM_PCIE_DEPS) $(BUILD)/boards/sim-4x4/sim-4x4.dtb
	LEAK_CHECK=1 $(DRV_VM_PCIE) $(DRV_DIR)/vm-pcie-4x4 sim-4x4 4 4 100 poll $(wordlist 2,99,$(VM_RUN))
	$(DRV_VM_PCIE) $(DRV_DIR)/vm-pcie-4x4-msix sim-4x4 4 4 10 msix $(wordlist 2,99,$(VM_RUN))
TEST_STAGES += test-vm-pcie

# The same driver against the RTL (tests/vm/test-pcie-rtl.sh): wsemu-sim's
# model of sim-2x2, wse_top with its PCIe device side, serving the ivshmem
# device. make test: a smoke on MSI-X (insmod, info, a run with every
# tile's console); make test-full: that and e2e and two training steps
# bit-identical to sim:, polling and on MSI-X.
DRV_VM_PCIE_RTL = WSE_KO=$(DRV_KO) WSECTL=$(DS_DIR)/wsectl E2E=$(DS_DIR)/e2e WSETRAIN=$(WSETRAIN) \
	TILES_ELF=$(DS_ELF) WSEMU_SIM=$(abspath $(DS_DIR)/sim-2x2/wsemu-sim) \
	WSEMU_FAST=$(abspath $(FAST_SERVER)) tests/vm/test-pcie-rtl.sh
DRV_VM_PCIE_RTL_DEPS = $(DRV_KO) $(DS_DIR)/wsectl $(DS_DIR)/e2e $(WSETRAIN) $(DS_ELF) $(FAST_SERVER) \
	$(DS_DIR)/sim-2x2/wsemu-sim $(BUILD)/boards/sim-2x2/sim-2x2.dtb
.PHONY: test-vm-pcie-rtl test-full-vm-pcie-rtl
test-vm-pcie-rtl: $(DRV_VM_PCIE_RTL_DEPS)
	$(DRV_VM_PCIE_RTL) $(DRV_DIR)/vm-pcie-rtl sim-2x2 2 2 smoke msix $(wordlist 2,99,$(VM_RUN))
test-full-vm-pcie-rtl: $(DRV_VM_PCIE_RTL_DEPS)
	$(DRV_VM_PCIE_RTL) $(DRV_DIR)/vm-pcie-rtl-full sim-2x2 2 2 full poll $(wordlist 2,99,$(VM_RUN)) --timeout 1500
	$(DRV_VM_PCIE_RTL) $(DRV_DIR)/vm-pcie-rtl-full-msix sim-2x2 2 2 full msix $(wordlist 2,99,$(VM_RUN)) --timeout 1500
TEST_STAGES += test-vm-pcie-rtl
TEST_FULL_STAGES += test-full-vm-pcie-rtl
TEST_FULL_STAGES += test-full-vm-pcie

# The driver's figures (docs/vm-harness.md, "The PCIe benchmark"): one boot
# of the VM harness on ivshmem-doorbell's MSI-X vectors against
# wsemu-fast's sim-2x2, BENCH_PCIE_MIB MiB each way (tests/vm/bench_pcie.c).
BENCH_PCIE_MIB ?= 8
DRV_BENCH := $(DRV_DIR)/bench_pcie
DRV_BENCH_NAMES := ioctl_us ping_us h2c_mbps c2h_mbps dma_efficiency
$(DRV_BENCH): tests/vm/bench_pcie.c tests/vm/vm_bench.h host-lib/include/wsehost.h include/uapi/linux/wse.h $(HL_A) | deps
	@mkdir -p $(dir $@)
	$(DS_HOSTC) -Iinclude/uapi -o $@ $< $(HL_A) $(HL_LIBS)
.PHONY: bench-driver
bench-driver: $(DRV_KO) $(DRV_BENCH) $(FAST_SERVER) $(BUILD)/boards/sim-2x2/sim-2x2.dtb
	$(VM_RUN) --pcie-irq --out $(DRV_DIR)/bench --board sim-2x2 --timeout 600 \
	  --file $(DRV_KO):/data/wse.ko --bin $(DRV_BENCH) -- \
	  "insmod /data/wse.ko ivshmem=1 && bench_pcie /dev/wse0 $(BENCH_PCIE_MIB) && rmmod wse" \
	  > $(DRV_DIR)/bench.log 2>&1 || { cat $(DRV_DIR)/bench.log; echo "bench-driver: FAIL"; exit 1; }
	@for n in $(DRV_BENCH_NAMES); do grep -q "^BENCH pcie.$$n " $(DRV_DIR)/bench.log || \
	  { cat $(DRV_DIR)/bench.log; echo "bench-driver: FAIL: no BENCH pcie.$$n"; exit 1; }; done
	@grep '^BENCH ' $(DRV_DIR)/bench.log
BENCH_STAGES += bench-driver
