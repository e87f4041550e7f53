#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# libwsehost's usb: transport through a real kernel USB stack: one boot of
# the VM harness (tests/vm/vm-run.sh, docs/vm-harness.md), in which the
# guest's libusb and usbfs reach a board server on the host through the
# FT231X gadget. In the guest:
#   - wsectl -d usb: info names the board;
#   - wsectl -d usb: run tiles.elf: every tile's console line comes back;
#   - wsetrain on the mesh backend over usb: trains two steps; its
#     checkpoint's SHA-256 must equal that of the same run over sim: on the
#     host (the bits of the device do not depend on the link);
#   - e2e --uri usb: memory on every tile, streams in and out, range
#     errors; then the gadget is unbound while a stream-out waits, and the
#     transfer and the next request must fail with NO_DEVICE.
# Usage: test-usb-e2e.sh OUT BOARD COLS ROWS VMRUN-ARGS...
#   with $WSECTL, $E2E, $WSETRAIN, $TILES_ELF naming the programs and file.
set -u
out=$1 board=$2 cols=$3 rows=$4
shift 4
mkdir -p "$out"
fail() { echo "test-usb-e2e: FAIL: $*"; exit 1; }

. "$(dirname "$0")/link-tests.sh"
train_ref "$out" "$board" usb: || fail "wsetrain over sim: on the host"

UDC=/sys/kernel/config/usb_gadget/wsemu/UDC
guest="set -e
wsectl -d usb: info
$(guest_run_train usb: "$cols" "$rows")
e2e $board $cols $rows --uri usb: --unplug 'echo > $UDC'"

rc=0
tests/vm/vm-run.sh --out "$out/vm" --board "$board" "$@" \
	--bin "$WSECTL" --bin "$E2E" --bin "$WSETRAIN" \
	--file "$TILES_ELF:/data/tiles.elf" --file "$out/data.csv:/data/data.csv" \
	--file "$out/guest.params:/data/guest.params" -- "$guest" || rc=$?
log=$out/vm/console.log
[ "$rc" = 0 ] || fail "the guest's tests exited $rc (console: $log)"
grep -q "mesh: *$cols x $rows tiles" "$log" || fail "wsectl info over usb: (console: $log)"
msg=$(train_check "$log" usb:) || fail "$msg (console: $log)"
grep -q "e2e: $board on usb: PASS" "$log" || fail "e2e over usb: (console: $log)"
echo "test-usb-e2e: PASS: info, console of $((cols * rows)) tiles, memory, streams, two training" \
	"steps bit-identical to sim:, unplug during a transfer"
