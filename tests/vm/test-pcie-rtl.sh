#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# The wse driver in a guest against the RTL: one boot of the VM harness
# with --pcie or --pcie-irq (tests/vm/vm-run.sh, docs/vm-harness.md), the
# board server being wsemu-sim's Verilator model (wse_top with its PCIe
# device side, hif_pcie_ep) serving QEMU's ivshmem device and the guest's
# RAM (wsemu-sim --pcie-regs, docs/wsemu-sim.md). In the guest:
#   smoke: insmod wse.ko ivshmem=1, `wsectl -d pcie: info` naming the
#     board and its mesh, `wsectl -d pcie: run tiles.elf` with every
#     tile's console line, rmmod, no warning in the kernel log;
#   full: the same, then e2e --uri pcie: (memory on every tile, streams in
#     and out, range errors) and two wsetrain steps whose checkpoint must
#     equal, bit for bit, the same run over sim: on the host
#     (tests/vm/link-tests.sh).
# poll: ivshmem-plain, the driver polling; msix: ivshmem-doorbell, the
# model's MSI-X requests sent as the device's vectors, counted in the
# guest's /proc/interrupts.
# Usage: test-pcie-rtl.sh OUT BOARD COLS ROWS smoke|full poll|msix VMRUN-ARGS...
#   with $WSEMU_SIM (the board's model), $WSE_KO, $WSECTL, $TILES_ELF, and
#   for full $E2E, $WSETRAIN and $WSEMU_FAST (the host's reference run)
#   naming the model, module, programs and file.
set -u
out=$1 board=$2 cols=$3 rows=$4 what=$5 irq=$6
shift 6
mkdir -p "$out"
fail() { echo "test-pcie-rtl: FAIL: $*"; exit 1; }
. "$(dirname "$0")/link-tests.sh"

pcie_irq "$irq" || fail "IRQ is poll or msix, not $irq"
extra=() more=
case $what in
smoke) ;;
full)
	train_ref "$out" "$board" pcie: || fail "wsetrain over sim: on the host"
	extra=(--bin "$E2E" --bin "$WSETRAIN" --file "$out/data.csv:/data/data.csv"
		--file "$out/guest.params:/data/guest.params")
	more="e2e $board $cols $rows --uri pcie:
$(guest_train)" ;;
*) fail "WHAT is smoke or full, not $what" ;;
esac
guest="set -e
insmod /data/wse.ko ivshmem=1
[ -c /dev/wse0 ]
wsectl -d pcie: info
$(guest_run pcie: "$cols" "$rows")
echo RUN-OK
$PCIE_IRQ_CHECK
echo IRQ-OK $irq
$more
rmmod wse
[ ! -e /dev/wse0 ]
! dmesg | grep -E 'WARNING:|Oops|BUG:|Call Trace|did not take a stop'"

rc=0
tests/vm/vm-run.sh $PCIE_LINK --out "$out/vm" --board "$board" "$@" --server "$WSEMU_SIM" \
	--file "$WSE_KO:/data/wse.ko" --bin "$WSECTL" "${extra[@]}" \
	--file "$TILES_ELF:/data/tiles.elf" -- "$guest" || rc=$?
log=$out/vm/console.log
[ "$rc" = 0 ] || fail "the guest's tests exited $rc (console: $log, server: $out/vm/server.log)"
grep -q "wsemu,$board" "$log" || fail "wsectl info over pcie: names no $board (console: $log)"
grep -q "mesh: *$cols x $rows tiles" "$log" || fail "wsectl info over pcie: mesh (console: $log)"
grep -q '^RUN-OK' "$log" || fail "wsectl run over pcie: (console: $log)"
grep -q "^IRQ-OK $irq" "$log" || fail "the driver's interrupts ($irq) (console: $log)"
if [ "$what" = full ]; then
	grep -q "e2e: $board on pcie: PASS" "$log" || fail "e2e over pcie: (console: $log)"
	msg=$(train_check "$log" pcie:) || fail "$msg (console: $log)"
fi
echo "test-pcie-rtl: PASS ($what, $irq): the RTL's PCIe device side served by wsemu-sim:" \
	"info, console of $((cols * rows)) tiles$([ "$what" = full ] &&
	echo ", memory, streams, two training steps bit-identical to sim:")"
