#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# The wse driver end to end in a guest: one boot of the VM harness with
# --pcie (tests/vm/vm-run.sh, docs/vm-harness.md), wsemu-fast serving the
# PCIe device side on QEMU's ivshmem device and the guest's RAM; IRQ poll:
# ivshmem-plain, the driver polling; msix: ivshmem-doorbell, the driver on
# its three MSI-X vectors. In the guest:
#   - wse.ko ivshmem=1 loaded and unloaded CYCLES times, /dev/wse0 there
#     and gone, `wsectl -d pcie: info` (transfers through the rings)
#     naming the board each time;
#   - with $LEAK_CHECK=1, the kernel booted with slub_debug=U: after a
#     cycle 0 like them, the kernel's memory before and after the
#     cycles compared (tests/vm/leak-check.sh): no slab object or vmalloc
#     area of the module left, no allocation site grown by one a cycle,
#     MemFree within its slack; and the module's objects seen while it is
#     loaded (the check sees what it looks for);
#   - pcie_ioctl: the bad-call matrix (every ioctl: each unknown flag bit,
#     short, long and too long argsz, bad and unaligned pointers; unknown
#     ioctl numbers; bad write()s and read()s), each refused with its
#     errno, nothing written, the read timeout and the read queue
#     unchanged; a ring reset, then a PING through write() and read();
#   - the driver polling (poll), or its H2C and C2H vectors counted in
#     /proc/interrupts and no polling (msix);
#   - pcie_ioctl --stall: wsemu-fast stopped by SIGSTOP from here
#     (stall_watch, on the guest's STALL-STOP): a read() and a write() on
#     the full H2C ring fail with ETIMEDOUT, RESET with ETIMEDOUT (the
#     driver's "the model did not take a stop" in the log) and the next
#     write() with EIO; SIGCONT (on STALL-CONT), a RESET that takes and a
#     PING answered as sent; no other warning, the log then cleared;
#   - `wsectl -d pcie: run tiles.elf`: every tile's console line;
#   - wsetrain on the mesh backend over pcie: trains two steps; its
#     checkpoint's SHA-256 must equal that of the same run over sim: on
#     the host (tests/vm/link-tests.sh);
#   - e2e --uri pcie: memory on every tile, streams in and out, range
#     errors; then the device is unbound from the driver while a
#     stream-out waits, and the transfer and the next request must fail
#     with NO_DEVICE;
#   - rmmod, and no warning in the kernel log.
# Usage: test-pcie.sh OUT BOARD COLS ROWS CYCLES poll|msix VMRUN-ARGS...
#   with $WSE_KO, $WSECTL, $E2E, $WSETRAIN, $PCIE_IOCTL, $TILES_ELF naming
#   the module, programs and file.
set -u
out=$1 board=$2 cols=$3 rows=$4 cycles=$5 irq=$6
shift 6
mkdir -p "$out"
fail() { echo "test-pcie: FAIL: $*"; exit 1; }
. "$(dirname "$0")/link-tests.sh"
train_ref "$out" "$board" pcie: || fail "wsetrain over sim: on the host"

dev=/sys/bus/pci/devices/0000:00:05.0
pcie_irq "$irq" || fail "IRQ is poll or msix, not $irq"
first=1 leak_pre= leak_post= leak_loaded= vm_leak=()
if [ "${LEAK_CHECK:-0}" = 1 ]; then
	vm_leak=(--append slub_debug=U --file "$(dirname "$0")/leak-check.sh:/data/leak-check.sh")
	first=0
	leak_pre=". /data/leak-check.sh"
	leak_post="leak_snap /tmp/leak-b
leak_check /tmp/leak-a /tmp/leak-b $cycles"
	leak_loaded="leak_snap /tmp/leak-c
awk '\$1 == \"module\" { print \"LEAK-SEEN\", \$2, \"objects of the module while loaded\"; exit !(\$2 > 0) }' /tmp/leak-c"
fi
guest="set -e
$leak_pre
for i in \$(seq $first $cycles); do
  insmod /data/wse.ko ivshmem=1
  [ -c /dev/wse0 ] && [ -e $dev/driver ]
  wsectl -d pcie: info
  rmmod wse
  [ ! -e /dev/wse0 ] && [ ! -e $dev/driver ]
  if [ \$i = 0 ]; then leak_snap /tmp/leak-a; else echo CYCLE-OK \$i; fi
done
$leak_post
insmod /data/wse.ko ivshmem=1
$leak_loaded
pcie_ioctl /dev/wse0
$PCIE_IRQ_CHECK
echo IRQ-OK $irq
! dmesg | grep -E 'WARNING:|Oops|BUG:|Call Trace|did not take a stop'
pcie_ioctl --stall /dev/wse0
dmesg | grep -q 'did not take a stop'
! dmesg | grep -E 'WARNING:|Oops|BUG:|Call Trace'
dmesg -c > /dev/null
$(guest_run_train pcie: "$cols" "$rows")
e2e $board $cols $rows --uri pcie: --unplug 'echo 0000:00:05.0 > /sys/bus/pci/drivers/wse/unbind'
[ ! -e /dev/wse0 ]
rmmod wse
! dmesg | grep -E 'WARNING:|Oops|BUG:|Call Trace|did not take a stop'"

# The host's side of `pcie_ioctl --stall`: wsemu-fast stopped (SIGSTOP)
# when the guest's console says STALL-STOP, continued at STALL-CONT (or
# when the guest is done, or after 60 s stopped).
stall_watch() {
	local log=$out/vm/console.log pidf=$out/vm/server.pid stopped= n=0
	for _ in $(seq 6000); do
		if [ -z "$stopped" ] && grep -q '^STALL-STOP' "$log" 2>/dev/null; then
			kill -STOP "$(cat "$pidf")" || return 1
			stopped=1
		elif [ -n "$stopped" ]; then
			n=$((n + 1))
			if grep -q '^STALL-CONT' "$log" || grep -q '^WSEMU-VM-RC=' "$log" || [ $n -gt 600 ]; then
				kill -CONT "$(cat "$pidf")"
				return 0
			fi
		fi
		sleep 0.1
	done
}
rm -f "$out/vm/console.log" "$out/vm/server.pid"
stall_watch &
watch_pid=$!

rc=0
tests/vm/vm-run.sh $PCIE_LINK --out "$out/vm" --board "$board" "$@" "${vm_leak[@]}" \
	--file "$WSE_KO:/data/wse.ko" --bin "$WSECTL" --bin "$E2E" --bin "$PCIE_IOCTL" \
	--bin "$WSETRAIN" --file "$out/data.csv:/data/data.csv" \
	--file "$out/guest.params:/data/guest.params" \
	--file "$TILES_ELF:/data/tiles.elf" -- "$guest" || rc=$?
kill $watch_pid 2>/dev/null
wait $watch_pid 2>/dev/null
log=$out/vm/console.log
[ "$rc" = 0 ] || fail "the guest's tests exited $rc (console: $log)"
[ "$(grep -c '^CYCLE-OK' "$log")" = "$cycles" ] || fail "insmod/rmmod cycles (console: $log)"
[ "$(grep -c "mesh: *$cols x $rows tiles" "$log")" = "$((cycles + 1 - first))" ] || fail "wsectl info over pcie: (console: $log)"
if [ "${LEAK_CHECK:-0}" = 1 ]; then
	grep -q "^LEAK-OK cycles $cycles:" "$log" || fail "the leak check (console: $log)"
	grep -q '^LEAK-SEEN' "$log" || fail "the leak check's view of the loaded module (console: $log)"
fi
grep -q '^pcie_ioctl: ok' "$log" || fail "pcie_ioctl (console: $log)"
grep -q '^pcie_ioctl: stall: ok' "$log" || fail "pcie_ioctl --stall (console: $log)"
grep -q "^IRQ-OK $irq" "$log" || fail "the driver's interrupts ($irq) (console: $log)"
msg=$(train_check "$log" pcie:) || fail "$msg (console: $log)"
grep -q "e2e: $board on pcie: PASS" "$log" || fail "e2e over pcie: (console: $log)"
grep -q "e2e: $board on pcie: unplug: ok" "$log" || fail "e2e's unbind over pcie: (console: $log)"
leaked=
[ "${LEAK_CHECK:-0}" = 1 ] && leaked=" ($(sed -n 's/^LEAK-OK cycles [0-9]*: //p' "$log"))"
echo "test-pcie: PASS ($irq): $cycles insmod/rmmod cycles with info$leaked," \
	"$(sed -n 's/^pcie_ioctl: ok (\(.*\))/the bad-call matrix (\1)/p' "$log"), a reset, the device" \
	"stopped (read, write and reset timing out) and back (reset, PING), console of" \
	"$((cols * rows)) tiles, two training steps bit-identical to sim:, memory, streams," \
	"unbind during a transfer"
