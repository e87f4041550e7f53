#!/bin/bash
# wsectl through the whole board top under Verilator (wsemu-board-sim):
# the host's bytes cross the UART at the board's baud rate into the
# device, and its answers come back the same way.
# make test-full's part (make test's, info and programs, is
# tests/fpga/test-board-run.sh): the selftest (memory, routes and a
# program on every tile, about 4 million cycles of the model) and the
# flash requests on the board's configuration flash (flash_ops board: the
# top's flash pins, CCLK through USRMCLK; about 3 million cycles).
# Usage: test-board-sim.sh BOARD ENV MODEL WSECTL FLASH_OPS OUTDIR
#   ENV the board's settings from its .dts (wse-cfggen --env)
set -u
b=$1 env=$2 model=$3 wsectl=$4 flash_ops=$5 out=$6
rm -rf "$out"; mkdir -p "$out"
fail() { cat "$1"; echo "board-sim: FAIL $2"; exit 1; }
export WSEMU_SIM=$model
# The mesh the board's .dts asks for.
. "$env"
cols=$BOARD_COLUMNS rows=$BOARD_ROWS
timeout 1200 "$wsectl" -d "sim:board=$b" selftest > "$out/selftest.txt" 2>&1 || fail "$out/selftest.txt" "$b: selftest"
grep -q "selftest: PASS ($((cols * rows)) tiles)" "$out/selftest.txt" || fail "$out/selftest.txt" "$b: selftest"
echo "board-sim: $b: $(grep 'selftest: PASS' "$out/selftest.txt")"
[ "$b" = ulx3s-85f ] || exit 0
timeout 1800 "$flash_ops" "$out/ops.flash" board > "$out/flash_ops.txt" 2>&1 ||
	fail "$out/flash_ops.txt" "$b: flash_ops"
echo "board-sim: $b: $(grep 'flash_ops:' "$out/flash_ops.txt")"
