#!/bin/bash
# The board flow's checks and loading commands, without synthesis (the
# synthesis, place and route and the bitstream itself are make bitstream
# and make test-full's): the pin check against the LPF, the fit check's
# arithmetic on a fixture of synthesis figures, make bitstream and flash
# refusing a board that is not an FPGA board, the exact openFPGALoader
# commands, and openFPGALoader's own failure with no board attached.
# Usage: test-board-flow.sh MAKE OUTDIR
set -u
mk=$1 out=$2
rm -rf "$out"; mkdir -p "$out"
fail=0
ok()  { echo "PASS $*"; }
bad() { echo "FAIL $*"; fail=1; }
b=ulx3s-85f top=boards/$b/ulx3s_top.sv lpf=boards/$b/$b.lpf

# ---- pins ----
tests/fpga/pins.py $b $top $lpf >/dev/null && ok "pins: every port of the top has a site" ||
	bad "pins: the board's own top refused"
sed 's/output logic \[7:0\] led/output logic [8:0] led/' $top > "$out/top9.sv"
if tests/fpga/pins.py $b "$out/top9.sv" $lpf 2> "$out/pins9.err"; then bad "pins: a ninth LED accepted"
elif grep -q "port led\[8\] of ulx3s_top has no site" "$out/pins9.err"; then ok "pins: $(cat "$out/pins9.err")"
else bad "pins: wrong error: $(cat "$out/pins9.err")"; fi
sed 's/SITE "C2"/SITE "B2"/' $lpf > "$out/dup.lpf"
if tests/fpga/pins.py $b $top "$out/dup.lpf" 2> "$out/dup.err"; then bad "pins: a shared site accepted"
elif grep -q "ports led\[0\] and led\[1\] of ulx3s_top share site B2" "$out/dup.err"; then ok "pins: $(cat "$out/dup.err")"
else bad "pins: wrong error: $(cat "$out/dup.err")"; fi

# ---- fit: a tile of 20,000 LUT4 and 20 EBR beside a host interface of
# 5,000 LUT4: (0.85 * 84,000 - 5,000) / 20,000 = 3.3 tiles by LUTs, 10 by
# EBR on the 85F; 4 tiles are refused, 3 fit. ----
fixture() {  # DIR MODULE LUT4 FF EBR
	mkdir -p "$1"; echo "ok 1 1" > "$1/times"
	printf '=== %s ===\n\n   Number of wires: 1\n   Number of cells: %d\n     LUT4 %d\n     TRELLIS_FF %d\n     DP16KD %d\n' \
		"$2" $(($3 + $4 + $5)) "$3" "$4" "$5" > "$1/stat.txt"
}
fixture "$out/tile" wse_tile 20000 3000 20
fixture "$out/hostif" wse_top 5000 2000 4
if tests/fpga/fit.py $b 4 LFE5U-85F --tile "$out/tile" --hostif "$out/hostif" 2> "$out/fit4.err"; then
	bad "fit: 4 tiles of 20,000 LUT4 accepted on the 85F"
elif grep -q "ulx3s-85f: the .dts asks for 4 tiles; the LFE5U-85F holds 3 (LUT 3, EBR 10)" "$out/fit4.err"; then
	ok "fit: $(cat "$out/fit4.err")"
else bad "fit: wrong error: $(cat "$out/fit4.err")"; fi
tests/fpga/fit.py $b 3 LFE5U-85F --tile "$out/tile" --hostif "$out/hostif" >/dev/null &&
	ok "fit: 3 tiles fit" || bad "fit: 3 tiles refused"
tests/fpga/fit.py $b 1 LFE5U-12F --tile "$out/tile" --hostif "$out/hostif" 2>/dev/null &&
	bad "fit: a 20,000-LUT4 tile accepted on the 12F" || ok "fit: no tile on the 12F"
echo "timeout 60 0" > "$out/tile/times"
if tests/fpga/fit.py $b 1 LFE5U-85F --tile "$out/tile" 2> "$out/fitto.err"; then bad "fit: unfinished synthesis accepted"
else ok "fit: $(cat "$out/fitto.err")"; fi

# ---- make bitstream and flash ----
if $mk -s --no-print-directory bitstream BOARD=sim-4x4 > "$out/bs.out" 2>&1; then
	bad "bitstream: sim-4x4 accepted"
elif grep -q "BOARD=sim-4x4 is not an FPGA board" "$out/bs.out"; then ok "bitstream: sim-4x4 refused"
else bad "bitstream: wrong error: $(cat "$out/bs.out")"; fi
cmd=$($mk -s --no-print-directory flash BOARD=$b DRY_RUN=1)
[ "$cmd" = "openFPGALoader -b ulx3s build/bitstream/$b/$b.bit" ] && ok "flash DRY_RUN: $cmd" ||
	bad "flash DRY_RUN: $cmd"
cmd=$($mk -s --no-print-directory flash-spi BOARD=$b DRY_RUN=1 BIT=x.bit)
[ "$cmd" = "openFPGALoader -b ulx3s -f x.bit" ] && ok "flash-spi DRY_RUN: $cmd" ||
	bad "flash-spi DRY_RUN: $cmd"
if $mk -s --no-print-directory flash BOARD=$b BIT="$out/none.bit" > "$out/none.out" 2>&1; then
	bad "flash: a missing bitstream accepted"
elif grep -q "none.bit: no such bitstream" "$out/none.out"; then ok "flash: missing bitstream named"
else bad "flash: wrong error: $(cat "$out/none.out")"; fi
# No board is attached here: openFPGALoader itself must fail, and say so.
head -c 1024 /dev/urandom > "$out/any.bit"
for t in flash flash-spi; do
	if timeout 60 $mk -s --no-print-directory $t BOARD=$b BIT="$out/any.bit" > "$out/$t.out" 2>&1; then
		bad "$t: succeeded with no board attached"
	elif grep -qi "unable to open ftdi device\|no cable\|board found\|device not found" "$out/$t.out"; then
		ok "$t without a board: $(grep -i -m1 "unable\|no cable\|not found" "$out/$t.out")"
	else bad "$t: no openFPGALoader error: $(cat "$out/$t.out")"; fi
done
exit $fail
