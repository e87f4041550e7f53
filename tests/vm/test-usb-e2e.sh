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

# A small CSV data set (label last), the same on both sides.
awk -v n=64 'BEGIN { s = 12345;
	for (i = 0; i < n; i++) { line = "";
		for (j = 0; j < 16; j++) { s = (s * 1103515245 + 12345) % 2147483648;
			line = line sprintf("%.4f,", (s % 10000) / 10000.0) }
		print line (i % 3) } }' > "$out/data.csv"
params() { # DEVICE DATA-PATH
	cat <<EOP
model.layers = 16, 8, 3
model.init_seed = 7
data.format = csv
data.train_x = $2
data.test_x = $2
data.label_column = last
train.batch_size = 8
optimizer.name = sgd
optimizer.lr = 0.1
runtime.backend = mesh
runtime.device = $1
runtime.timeout_ms = 120000
run.eval_examples = 0
EOP
}
params "sim:board=$board,model=fast" "$out/data.csv" > "$out/host.params"
params "usb:" /data/data.csv > "$out/usb.params"
rm -rf "$out/host-model"
"$WSETRAIN" --params "$out/host.params" --model-dir "$out/host-model" --num-steps 2 \
	> "$out/host-train.log" 2>&1 || { cat "$out/host-train.log"; fail "wsetrain over sim: on the host"; }
want=$(sha256sum < "$out/host-model/model.ckpt" | cut -d' ' -f1)

UDC=/sys/kernel/config/usb_gadget/wsemu/UDC
guest="set -e
wsectl -d usb: info
wsectl -d usb: run /data/tiles.elf > /tmp/run.txt
cat /tmp/run.txt
for y in \$(seq 0 $((rows - 1))); do for x in \$(seq 0 $((cols - 1))); do
  grep -q \"^\\[\$x,\$y\\] tile \$x,\$y\\\$\" /tmp/run.txt || { echo \"no console line of tile \$x,\$y\"; exit 1; }
done; done
wsetrain --params /data/usb.params --model-dir /tmp/m --num-steps 2
echo CKPT-SHA256=\$(sha256sum < /tmp/m/model.ckpt | cut -d' ' -f1)
e2e $board $cols $rows --uri usb: --unplug 'echo > $UDC'"

rc=0
tests/vm/vm-run.sh --out "$out/vm" --board "$board" "$@" \
	--bin "$WSECTL" --bin "$E2E" --bin "$WSETRAIN" \
	--file "$TILES_ELF:/data/tiles.elf" --file "$out/data.csv:/data/data.csv" \
	--file "$out/usb.params:/data/usb.params" -- "$guest" || rc=$?
log=$out/vm/console.log
[ "$rc" = 0 ] || fail "the guest's tests exited $rc (console: $log)"
grep -q "mesh: *$cols x $rows tiles" "$log" || fail "wsectl info over usb: (console: $log)"
got=$(sed -n 's/^CKPT-SHA256=\([0-9a-f]*\).*/\1/p' "$log" | tail -1)
[ -n "$got" ] || fail "no checkpoint from wsetrain over usb: (console: $log)"
[ "$got" = "$want" ] || fail "checkpoint over usb: $got, over sim: $want"
grep -q "e2e: $board on usb: PASS" "$log" || fail "e2e over usb: (console: $log)"
echo "test-usb-e2e: PASS: info, console of $((cols * rows)) tiles, memory, streams, two training" \
	"steps bit-identical to sim:, unplug during a transfer"
