#!/bin/bash
# wsectl through the whole board top under Verilator (wsemu-board-sim):
# the host's bytes cross the UART at the board's baud rate into the
# device, and its answers come back the same way.
# make test runs info (the DTB read through the UART); make test-full adds
# the selftest (memory, routes and a program on every tile, about 4
# million cycles of the model) and the flash requests on the board's
# configuration flash (flash_ops board: the top's flash pins, CCLK through
# USRMCLK; about 3 million cycles).
# Usage: test-board-sim.sh BOARD ENV MODEL WSECTL FLASH_OPS OUTDIR [full]
#   ENV the board's settings from its .dts (wse-cfggen --env)
set -u
b=$1 env=$2 model=$3 wsectl=$4 flash_ops=$5 out=$6 full=${7:-}
rm -rf "$out"; mkdir -p "$out"
fail() { cat "$1"; echo "board-sim: FAIL $2"; exit 1; }
export WSEMU_SIM=$model
# The mesh the board's .dts asks for, which the model must report.
. "$env"
cols=$BOARD_COLUMNS rows=$BOARD_ROWS
timeout 600 "$wsectl" -d "sim:board=$b" info > "$out/info.txt" 2>&1 || fail "$out/info.txt" "$b: wsectl info"
grep -q "mesh: *$cols x $rows tiles" "$out/info.txt" || fail "$out/info.txt" "$b: info: mesh"
grep -q "wsemu,$b" "$out/info.txt" || fail "$out/info.txt" "$b: info: board"
echo "board-sim: $b: wsectl info through the UART: $(grep -m1 'mesh:' "$out/info.txt" | tr -s ' ')"
[ "$full" = full ] || exit 0
timeout 1200 "$wsectl" -d "sim:board=$b" selftest > "$out/selftest.txt" 2>&1 || fail "$out/selftest.txt" "$b: selftest"
grep -q "selftest: PASS ($((cols * rows)) tiles)" "$out/selftest.txt" || fail "$out/selftest.txt" "$b: selftest"
echo "board-sim: $b: $(grep 'selftest: PASS' "$out/selftest.txt")"
[ "$b" = ulx3s-85f ] || exit 0
timeout 1800 "$flash_ops" "$out/ops.flash" board > "$out/flash_ops.txt" 2>&1 ||
	fail "$out/flash_ops.txt" "$b: flash_ops"
echo "board-sim: $b: $(grep 'flash_ops:' "$out/flash_ops.txt")"
