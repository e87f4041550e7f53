# Device server: the host interface executor and device top (rtl/host_if,
# rtl/top), wsemu-sim (the Verilator model of a board serving the link
# protocol on a Unix socket), end-to-end tests through libwsehost, wsectl.
#   make test-e2e      end-to-end tests against wsemu-sim (sim-2x2, sim-4x4)
#   make lint-top      verilator --lint-only -Wall on wse_top, without and with
#                      the PCIe device side (PcieEp)
#   make bench-link    BENCH link.* figures
#   make test-flash-update  wsectl flash and power cuts on wsemu-fast's flash
#   make test-flash-sim     the same on wsemu-sim's flash (RTL SPI controller)
#   make bench-flash-update BENCH usb.flash_kbps: wsectl flash on wsemu-sim's flash
#   make run-demo      a program on all tiles of sim-4x4 through wsectl
# docs/host-if.md (executor), docs/wsemu-sim.md, docs/wsectl.md.

DEB_PKGS  += libxml2-utils
DS_DIR    := $(BUILD)/devserver
DS_BOARDS := sim-2x2 sim-4x4
DS_REV    := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
# Sources in compile order: the mesh as the core fragment lists it (read
# later, hence deferred: recipes, and prerequisites by second expansion).
DS_TOP_SRCS = $(call CORE_MESH_SRCS,$(1)) $(RTL_HIF_PKGS) $(RTL_FLASH_PKGS) $(RTL_PRIM_CDC_SRCS) \
	$(RTL_FLASH_SRCS) $(RTL_HIF_SRCS) $(RTL_HIF_PCIE_PKGS) \
	$(filter-out $(CORE_MESH_RTL),$(RTL_HIF_PCIE_SRCS)) $(RTL_HIF_PCIE_ROM_SRCS) \
	$(DS_DIR)/$(1)/wse_dtb_pkg.sv $(RTL_TOP_SRCS)

# $(1) board, $(2) what the build ID names (default wsemu-sim). The ROM
# is made again when any source of the device changes, so the build ID
# INFO reports names the revision the model was built from.
define DS_BOARD_RULES
$(DS_DIR)/$(1)/wse_dtb_pkg.sv: $(BUILD)/boards/$(1)/$(1).dtb $(CFGGEN) \
		$(filter-out $(DS_DIR)/$(1)/wse_dtb_pkg.sv,$(call DS_TOP_SRCS,$(1))) | deps
	@mkdir -p $$(dir $$@)
	$(CFGGEN) $$< --rom $$@ --build-id "$(or $(2),wsemu-sim) $(DS_REV)"
endef
$(foreach b,$(DS_BOARDS) sim-8x8,$(eval $(call DS_BOARD_RULES,$(b))))

# wse_top without the PCIe device side on sim-4x4, and with it on sim-2x2
# (the configuration wsemu-sim builds in make test).
.PHONY: lint-top
lint-top: $(BUILD)/boards/sim-4x4/wse_cfg_pkg.sv $(DS_DIR)/sim-4x4/wse_dtb_pkg.sv \
	  $(BUILD)/boards/sim-2x2/wse_cfg_pkg.sv $(DS_DIR)/sim-2x2/wse_dtb_pkg.sv | deps
	verilator --lint-only -Wall $(RTL_PRIM_INC) rtl/lint.vlt $(call RTL_CFG_PKG,sim-4x4) \
	  $(call DS_TOP_SRCS,sim-4x4) --top-module wse_top
	verilator --lint-only -Wall $(RTL_PRIM_INC) rtl/lint.vlt $(call RTL_CFG_PKG,sim-2x2) \
	  $(call DS_TOP_SRCS,sim-2x2) --top-module wse_top -GPcieEp=1\'b1

LINT_STAGES += lint-top

# Yosys's front end on wse_top with the PCIe device side (PcieEp = 1), the
# mesh a black box: parse, hierarchy -check, proc. (Without it, wse_top is
# synthesized by the FPGA flow, docs/fpga.md.)
.PHONY: lint-yosys-top-pcie
DS_YOSYS_TOP_PCIE = read_verilog -sv -DSYNTHESIS $(RTL_PRIM_INC) $(call RTL_CFG_PKG,sim-4x4) \
	$(filter-out rtl/mesh/wse_mesh.sv,$(call DS_TOP_SRCS,sim-4x4)); \
	read_verilog -sv -DSYNTHESIS -lib $(RTL_PRIM_INC) rtl/mesh/wse_mesh.sv; \
	hierarchy -check -top wse_top -chparam PcieEp 1; proc
lint-yosys-top-pcie: $(BUILD)/boards/sim-4x4/wse_cfg_pkg.sv $(DS_DIR)/sim-4x4/wse_dtb_pkg.sv | deps
	@echo "yosys: read and elaborate wse_top with PcieEp"
	@yosys -q -p '$(DS_YOSYS_TOP_PCIE)' 2>&1 | { grep -v '^Warning: Replacing memory' || true; }; \
	  test $${PIPESTATUS[0]} -eq 0
LINT_STAGES += lint-yosys-top-pcie

# ---- wsemu-sim ----------------------------------------------------------------
DS_VFLAGS := --assert -Wno-fatal -Irtl/prim -j $(JOBS) --trace-fst --vpi \
	-MAKEFLAGS "OPT_FAST=-O1 OPT_SLOW=-O0 OPT_GLOBAL=-O1"
DS_SIM_DEPS = $(BUILD)/boards/$(1)/wse_cfg_pkg.sv $(call DS_TOP_SRCS,$(1)) sim/wsemu_sim.cpp sim/sim_args.h sim/sim_flash_file.h sim/spi_flash_model.h sim/wsemu_sim.vlt \
	sim/sim_pcie.h $(DS_SHM_O)
# The ivshmem register file and server, shared with wsemu-fast (C).
DS_SHM_O := $(DS_DIR)/common/pcie_shm.o
$(DS_SHM_O): sim/common/pcie_shm.c sim/common/pcie_shm.h include/wsemu/wse_pcie.h include/wsemu/wse_error.h | deps
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror -Iinclude -c -o $@ $<

.SECONDEXPANSION:
# The fast model (no assertions, X as zero, -O3/-O2) for runs and
# benchmarks: about 3x the regression model's speed (docs/core.md).
DS_FAST_DIR := $(BUILD)/devserver-fast
DS_VFLAGS_FAST := -O3 --x-assign fast --x-initial fast -Wno-fatal -Irtl/prim -j $(JOBS) --trace-fst --vpi \
	-MAKEFLAGS "OPT_FAST=-O2 OPT_SLOW=-O1 OPT_GLOBAL=-O1"
# $(1) board, $(2) output folder, $(3) Verilator flags, $(4) C++ optimization
define DS_SIM_RULES
$(2)/$(1)/wsemu-sim: $$$$(call DS_SIM_DEPS,$(1)) $(WIRE_A) | deps
	@mkdir -p $$(dir $$@)/obj
	verilator --cc --exe --build $(3) rtl/lint.vlt sim/wsemu_sim.vlt $(BUILD)/boards/$(1)/wse_cfg_pkg.sv \
	  $$(call DS_TOP_SRCS,$(1)) --top-module wse_top $(abspath sim/wsemu_sim.cpp) $(abspath $(WIRE_A)) \
	  -CFLAGS "$(4) -I$(abspath include) -I$(abspath sim/common) -I$(abspath $(BUILD)/boards/$(1))" \
	  -LDFLAGS "$(abspath $(DS_SHM_O)) -lfdt -lpthread" -Mdir $$(dir $$@)/obj -o ../wsemu-sim > $$(dir $$@)/build.log 2>&1 || \
	  { tail -40 $$(dir $$@)/build.log; exit 1; }
endef
# The regression models carry the PCIe device side (wse_top's PcieEp),
# which wsemu-sim --pcie-regs serves (sim/sim_pcie.h); the fast one not.
$(foreach b,$(DS_BOARDS),$(eval $(call DS_SIM_RULES,$(b),$(DS_DIR),$(DS_VFLAGS) -GPcieEp=1\'b1,-O1 -DWSEMU_SIM_PCIE=1)))
$(eval $(call DS_SIM_RULES,sim-4x4,$(DS_FAST_DIR),$(DS_VFLAGS_FAST),-O2))
DS_FAST_SIM := $(DS_FAST_DIR)/sim-4x4/wsemu-sim

# libwsehost spawns "wsemu-sim --board NAME": this dispatcher execs the
# model built for that board (same process, so PR_SET_PDEATHSIG holds).
$(DS_DIR)/bin/wsemu-sim: sim/wsemu-sim.sh
	@mkdir -p $(dir $@)
	sed -e 's#@DIR@#$(abspath $(DS_DIR))#' $< > $@
	chmod +x $@

DS_SIMS := $(foreach b,$(DS_BOARDS),$(DS_DIR)/$(b)/wsemu-sim) $(DS_DIR)/bin/wsemu-sim
# make test's stages use the RTL model of sim-2x2 only (sim-4x4's is in
# test-full; its functional model runs in make test).
DS_SIMS_TEST := $(DS_DIR)/sim-2x2/wsemu-sim $(DS_DIR)/bin/wsemu-sim
.PHONY: wsemu-sim
wsemu-sim: $(DS_SIMS)

# ---- wsectl, end-to-end tests ------------------------------------------------------
DS_HOSTC := $(CC) -std=c11 -O2 -g -Wall -Wextra -Werror -Ihost-lib/include -Ihost-lib/src -Iinclude
# wsectl and bench_link use the API only (the public archive); e2e and
# bench_pipe also speak the protocol themselves (the wire library).
$(DS_DIR)/wsectl: host-lib/tools/wsectl.c host-lib/include/wsehost.h $(HL_A) | deps
	@mkdir -p $(dir $@)
	$(DS_HOSTC) -o $@ $< $(HL_A) $(HL_LIBS)
$(DS_DIR)/e2e: tests/e2e/e2e.c host-lib/include/wsehost.h $(HL_INT) | deps
	@mkdir -p $(dir $@)
	$(DS_HOSTC) -o $@ $< $(HL_INT) $(HL_LIBS)

DS_ENV := WSEMU_SIM=$(abspath $(DS_DIR)/bin/wsemu-sim) WSEMU_FAST=$(abspath $(FAST_SERVER))
DS_ELF := $(BUILD)/core/elf/tiles.elf
DS_E2E_MUTATIONS ?= 10000
# make test's count on the RTL model (test-full: DS_E2E_MUTATIONS' 100000 on both)
DS_E2E_MUTATIONS_RTL ?= 3000

.PHONY: test-e2e test-full-e2e
test-e2e: $(DS_SIMS_TEST) $(FAST_SERVER) $(FAST_BOARD_DTBS) $(DS_DIR)/wsectl $(DS_DIR)/e2e $(DS_DIR)/route_xcheck \
	  $(DS_ELF)
	$(DS_ENV) RTL_MUTATIONS=$(DS_E2E_MUTATIONS_RTL) ./tests/e2e/test-e2e.sh $(DS_DIR) $(DS_ELF) \
	  $(DS_E2E_MUTATIONS) sim-2x2
	$(DS_ENV) $(DS_DIR)/route_xcheck sim-2x2 1 2

test-full-e2e: $(DS_SIMS) $(FAST_SERVER) $(FAST_BOARD_DTBS) $(DS_DIR)/wsectl $(DS_DIR)/e2e \
	  $(DS_DIR)/route_xcheck $(DS_ELF)
	$(DS_ENV) ./tests/e2e/test-e2e.sh $(DS_DIR) $(DS_ELF) 100000 sim-4x4
	$(DS_ENV) $(DS_DIR)/route_xcheck sim-2x2 $$(seq 100 119)
	$(DS_ENV) $(DS_DIR)/route_xcheck sim-4x4 $$(seq 200 209)

TEST_STAGES += test-e2e
TEST_FULL_STAGES += test-full-e2e

# The fail-safe firmware update through wsectl on wsemu-fast's flash
# (tests/e2e/test-flash-update.sh, docs/firmware-image.md), after
# tests/e2e/flash_ops.c on the flash requests themselves: flash,
# info's slots, read-back, refusals leaving the flash file unchanged, and
# 23 power cuts (wsemu-fast --flash-kill-after) each followed by a
# restart that boots the golden image and a retry that completes.
# First flash_ops: the flash requests themselves on wsemu-fast.
$(DS_DIR)/flash_ops: tests/e2e/flash_ops.c host-lib/include/wsehost.h $(HL_A) | deps
	@mkdir -p $(dir $@)
	$(DS_HOSTC) -o $@ $< $(HL_A) $(HL_LIBS)

.PHONY: test-flash-update
test-flash-update: $(FAST_SERVER) $(FAST_BOARD_DTBS) $(DS_DIR)/wsectl $(DS_DIR)/flash_ops $(MKIMAGE)
	@mkdir -p $(DS_DIR)/flash-update
	WSEMU_FAST=$(abspath $(FAST_SERVER)) $(DS_DIR)/flash_ops $(DS_DIR)/flash-update/ops.flash
	WSEMU_FAST=$(abspath $(FAST_SERVER)) ./tests/e2e/test-flash-update.sh $(DS_DIR)/wsectl \
	  $(MKIMAGE) $(BUILD)/boards $(DS_DIR)/flash-update/update

TEST_STAGES += test-flash-update

# The flash requests and the update on wsemu-sim's flash (docs/wsemu-sim.md,
# "Flash"): the FLASH_* requests run by the RTL (hif_flash, flash_ctrl)
# against the behavioural SPI NOR part, 256 KiB, kept in a file. flash_ops
# as above, then the update with FLASH_SIM_CUTS power cuts (--fault
# flash:N). The RTL simulates every SPI clock (about 19 link cycles a
# byte): about 2 CPU minutes with 2 cuts; test-full does 6, other bytes.
FLASH_SIM_CUTS ?= 2
FLASH_SIM_DEPS := $(DS_SIMS_TEST) $(FAST_BOARD_DTBS) $(DS_DIR)/wsectl $(DS_DIR)/flash_ops $(MKIMAGE)
.PHONY: test-flash-sim test-full-flash-sim bench-flash-update
test-flash-sim: $(FLASH_SIM_DEPS)
	@mkdir -p $(DS_DIR)/flash-sim
	$(DS_ENV) $(DS_DIR)/flash_ops $(DS_DIR)/flash-sim/ops.flash rtl
	$(DS_ENV) CUTS=$(FLASH_SIM_CUTS) ./tests/e2e/test-flash-update.sh $(DS_DIR)/wsectl \
	  $(MKIMAGE) $(BUILD)/boards $(DS_DIR)/flash-sim/update rtl

test-full-flash-sim: $(FLASH_SIM_DEPS)
	$(DS_ENV) CUTS=6 SEED=7 ./tests/e2e/test-flash-update.sh $(DS_DIR)/wsectl \
	  $(MKIMAGE) $(BUILD)/boards $(DS_DIR)/flash-sim/update-full rtl

# One wsectl flash of an 8 KiB image on wsemu-sim's flash: the image's bits
# over the link cycles the simulator ran for the whole session (connect,
# INFO, the layout probe, boot log, erase, program, verify, record), at
# the ULX3S's 25 MHz link clock: SCK 12.5 MHz, the part's sector erase
# 2,000 and page program 200 link cycles (wsemu-sim's defaults), the link
# 8 bytes a cycle (sim-2x2). tests/e2e/bench-flash-update.sh.
bench-flash-update: $(FLASH_SIM_DEPS)
	@$(DS_ENV) ./tests/e2e/bench-flash-update.sh $(DS_DIR)/wsectl $(MKIMAGE) $(BUILD)/boards \
	  $(DS_DIR)/flash-sim/bench 25000000

TEST_STAGES += test-flash-sim
TEST_FULL_STAGES += test-full-flash-sim
BENCH_STAGES += bench-flash-update

# ---- benchmark ---------------------------------------------------------------------
$(DS_DIR)/bench_link: tests/e2e/bench_link.c host-lib/include/wsehost.h $(HL_A) | deps
	@mkdir -p $(dir $@)
	$(DS_HOSTC) -o $@ $< $(HL_A) $(HL_LIBS)
$(DS_DIR)/bench_pipe: tests/e2e/bench_pipe.c include/wsemu/wse_codec.h $(HL_A) $(WIRE_A) | deps
	@mkdir -p $(dir $@)
	$(DS_HOSTC) -o $@ $< $(HL_A) $(WIRE_A) $(HL_LIBS)

# bench_link through libwsehost, on the fast model of sim-4x4 (the cycle
# figures are the regression model's too): at the board's link bandwidth
# (8 bytes per cycle, 20,000 wavelets), and with the link clocked eight
# times faster (64 bytes per cycle, BENCH_LINK_WAVELETS per port, enough
# that the stream's start-up, about 250 cycles, weighs under 1%). Then
# bench_pipe, the same stream with two requests in flight speaking the
# protocol itself, on one port and on four, at 64 bytes per cycle.
BENCH_LINK_WAVELETS ?= 40000
DS_BENCH_ENV = WSEMU_SIM=$(abspath $(DS_DIR)/bin/wsemu-sim) WSEMU_SIM_DIR=$(abspath $(DS_FAST_DIR))
.PHONY: bench-link
bench-link: $(DS_FAST_SIM) $(DS_DIR)/bin/wsemu-sim $(DS_DIR)/bench_link $(DS_DIR)/bench_pipe $(BUILD)/core/elf/spin.elf
	$(DS_BENCH_ENV) $(DS_DIR)/bench_link sim-4x4 $(BUILD)/core/elf/spin.elf 20000
	$(DS_BENCH_ENV) $(DS_DIR)/bench_link sim-4x4 $(BUILD)/core/elf/spin.elf $(BENCH_LINK_WAVELETS) 64
	@set -e; for rows in 1 4; do d=$$(mktemp -d /tmp/wse-bench-XXXXXX); \
	  timeout 900 $(DS_FAST_SIM) --board sim-4x4 --socket $$d/sock --quiet --link-bytes-per-cycle 64 & \
	  for i in $$(seq 100); do [ -S $$d/sock ] && break; sleep 0.1; done; \
	  $(DS_DIR)/bench_pipe $$d/sock 4 $$rows 2 $$(($$rows * $(BENCH_LINK_WAVELETS))); wait; rm -rf $$d; done
BENCH_STAGES += bench-link

# ---- run-demo ----------------------------------------------------------------------
# A demonstration on all 16 tiles of sim-4x4 through wsectl and libwsehost.
$(DS_DIR)/fw/demo.elf: tests/e2e/demo.c $(CORE_RT_DEPS)
	@mkdir -p $(dir $@)
	$(RV_CC) $(RV_CFLAGS) -T $(CORE_LD) -o $@ $< $(CORE_RT) -lgcc
.PHONY: run-demo
run-demo: $(DS_SIMS) $(DS_DIR)/wsectl $(DS_DIR)/fw/demo.elf
	$(DS_ENV) $(DS_DIR)/wsectl -d sim:board=sim-4x4 info
	$(DS_ENV) $(DS_DIR)/wsectl -d sim:board=sim-4x4 run $(DS_DIR)/fw/demo.elf

# ---- random routes on both models -------------------------------------------------
# tests/e2e/route_xcheck.c: random monotone (deadlock-free) routes with
# multicast forks and dropped colors, the same streams on wsemu-sim and
# wsemu-fast, outputs and counters compared. test-e2e runs two seeds on
# sim-2x2; test-full-e2e 20 on sim-2x2 and 10 on sim-4x4.
$(DS_DIR)/route_xcheck: tests/e2e/route_xcheck.c host-lib/include/wsehost.h $(HL_A) | deps
	@mkdir -p $(dir $@)
	$(DS_HOSTC) -o $@ $< $(HL_A) $(HL_LIBS)
