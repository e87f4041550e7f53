# The virtual-machine harness (tests/vm/, docs/vm-harness.md): a QEMU
# guest whose Linux kernel sees a board as an FTDI FT231X USB-serial
# bridge (dummy_hcd, a configfs gadget on FunctionFS served by
# sim/usb-gadget's wse-ffs-ft231x), its bytes carried over virtio-serial to
# a board server on the host.
#   make test-vm-usb       two boots against wsemu-fast's sim-2x2: ftdi_probe
#                          (libusb and the wire codec, no libwsehost); then
#                          libwsehost's usb: transport (tests/vm/test-usb-e2e.sh:
#                          wsectl info and run, wsetrain bit-identical to
#                          sim:, e2e's memory and streams, unplug)
#   make test-full-vm-usb  the same on sim-4x4 with line errors injected,
#                          twice, the device unplugged and plugged between
#   make vm-gadget         build/vm/wse-ffs-ft231x and build/vm/ftdi_probe
#   make bench-usb         BENCH usb.* figures: one boot against wsemu-fast's
#                          sim-2x2, the gadget paced as a 3 Mbaud UART
#                          (tests/vm/bench_usb.c)
# Uses mk/wire.mk (libwsewire) and mk/fast.mk (the wsemu-fast server).

DEB_PKGS += linux-image-amd64 qemu-system-x86 busybox-static cpio
VM_DIR    := $(BUILD)/vm
VM_GADGET := $(VM_DIR)/wse-ffs-ft231x
VM_PROBE  := $(VM_DIR)/ftdi_probe
VM_BENCH  := $(VM_DIR)/bench_usb
VM_CC     := $(CC) -std=c11 -O2 -g -Wall -Wextra -Werror
# VM_ACCEL=kvm|tcg forces the accelerator (default: KVM if its guest
# reaches /init within 10 s, else TCG; tests/vm/vm-run.sh).
VM_ACCEL  ?=
VM_RUN    := ./tests/vm/vm-run.sh --gadget $(VM_GADGET) --server $(FAST_SERVER) $(if $(VM_ACCEL),--accel $(VM_ACCEL))

$(VM_GADGET): sim/usb-gadget/wse_ffs_ft231x.c | deps
	@mkdir -p $(dir $@)
	$(VM_CC) -pthread -o $@ $<
$(VM_PROBE): tests/vm/ftdi_probe.c include/wsemu/wse_codec.h $(WIRE_A) | deps
	@mkdir -p $(dir $@)
	$(VM_CC) -Iinclude -o $@ $< $(WIRE_A) $(WIRE_LIBS) -lusb-1.0

$(VM_BENCH): tests/vm/bench_usb.c tests/vm/vm_bench.h host-lib/include/wsehost.h $(HL_A) | deps
	@mkdir -p $(dir $@)
	$(DS_HOSTC) -o $@ $< $(HL_A) $(HL_LIBS)

.PHONY: vm-gadget test-vm-usb test-full-vm-usb bench-usb
vm-gadget: $(VM_GADGET) $(VM_PROBE)

# The probe checks the device, the FTDI set-up (and the gadget's log of
# it), INFO and a 1000-byte PING through the status-byte framing, and the
# latency timer's status-only packets; then the guest powers off.
VM_PROBE_CMD = ftdi_probe --serial \$$WSEMU_USB_SERIAL --gadget-log \$$WSEMU_GADGET_LOG
VM_USB_E2E = WSECTL=$(DS_DIR)/wsectl E2E=$(DS_DIR)/e2e WSETRAIN=$(WSETRAIN) TILES_ELF=$(DS_ELF) \
	WSEMU_FAST=$(abspath $(FAST_SERVER)) tests/vm/test-usb-e2e.sh
VM_USB_E2E_DEPS = $(DS_DIR)/wsectl $(DS_DIR)/e2e $(WSETRAIN) $(DS_ELF)
test-vm-usb: $(VM_GADGET) $(VM_PROBE) $(FAST_SERVER) $(BUILD)/boards/sim-2x2/sim-2x2.dtb $(VM_USB_E2E_DEPS)
	$(VM_RUN) --out $(VM_DIR)/test --board sim-2x2 --bin $(VM_PROBE) -- "$(VM_PROBE_CMD) --board sim-2x2"
	$(VM_USB_E2E) $(VM_DIR)/usb-e2e sim-2x2 2 2 $(wordlist 2,99,$(VM_RUN))
test-full-vm-usb: $(VM_GADGET) $(VM_PROBE) $(FAST_SERVER) $(BUILD)/boards/sim-4x4/sim-4x4.dtb $(VM_USB_E2E_DEPS)
	$(VM_USB_E2E) $(VM_DIR)/usb-e2e-4x4 sim-4x4 4 4 $(wordlist 2,99,$(VM_RUN))
	$(VM_RUN) --out $(VM_DIR)/test-full --board sim-4x4 --bin $(VM_PROBE) \
	  --gadget-opt --line-error-every --gadget-opt 5 --serial WSEMU4X4 -- \
	  "$(VM_PROBE_CMD) --board sim-4x4 --line-errors-every 5 --ping-bytes 4096 && wsemu-usb-bind --rebind && \
	   $(VM_PROBE_CMD) --board sim-4x4 --line-errors-every 5 --ping-bytes 4096"

# The USB link's figures (docs/vm-harness.md, "The USB benchmark"):
# BENCH_USB_WAVELETS per west port of sim-2x2, through the gadget paced
# as an FT231X's UART at BENCH_USB_BAUD.
BENCH_USB_WAVELETS ?= 4096
BENCH_USB_BAUD     ?= 3000000
bench-usb: $(VM_GADGET) $(VM_BENCH) $(FAST_SERVER) $(BUILD)/boards/sim-2x2/sim-2x2.dtb
	$(VM_RUN) --out $(VM_DIR)/bench --board sim-2x2 --bin $(VM_BENCH) --timeout 150 \
	  --gadget-opt --pace-baud --gadget-opt $(BENCH_USB_BAUD) -- \
	  "bench_usb usb: $(BENCH_USB_WAVELETS) \$$(pidof wse-ffs-ft231x) \$$WSEMU_GADGET_LOG" > $(VM_DIR)/bench.log \
	  || { cat $(VM_DIR)/bench.log; exit 1; }
	@grep '^BENCH ' $(VM_DIR)/bench.log
	@sed -n 's/^ffs-ft231x: \(exit: .*\)/BENCH usb.gadget \1/p' $(VM_DIR)/bench.log

TEST_STAGES += test-vm-usb
TEST_FULL_STAGES += test-full-vm-usb
BENCH_STAGES += bench-usb
