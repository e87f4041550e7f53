#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The mesh clock's PLL dividers (wse-cfggen, from a board's .dts) against
# prjtrellis's ecppll, from the pinned tools: for the ULX3S's 25 MHz
# oscillator and a sweep of mesh clocks, both must give the same input,
# feedback and output dividers, and a clock wse-cfggen refuses (more than
# 0.5% off) must be one ecppll misses by as much (docs/fpga.md, "The mesh
# clock").
#   tests/fpga/test-pll.sh VENV WSE-CFGGEN OUTDIR
# OUTDIR relative to the current directory: YoWASP's tools see only it.
set -eu
venv=$1 gen=$2 out=$3
rm -rf "$out"; mkdir -p "$out"
fail() { echo "test-pll: FAIL $*" >&2; exit 1; }
dts=boards/ulx3s-85f/ulx3s-85f.dts
fin=$(sed -n 's/^[[:space:]]*clock-frequency = <\([0-9]*\)>;.*/\1/p' "$dts" | head -1)
[ "$fin" = 25000000 ] || fail "the ULX3S's link clock is not 25 MHz in $dts"
n=0 r=0
for mhz in 12.5 20 25 30 33.333333 40 48 50 60 62.5 65 75 80 100; do
	hz=$(awk -v m="$mhz" 'BEGIN { printf "%d", m * 1e6 + 0.5 }')
	sed "s/wsemu,mesh-clock-frequency = <[0-9]*>/wsemu,mesh-clock-frequency = <$hz>/" "$dts" > "$out/b.dts"
	dtc -q -I dts -O dtb -o "$out/b.dtb" "$out/b.dts"
	"$venv/bin/yowasp-ecppll" -i 25 -o "$mhz" -f "$out/pll.v" > "$out/ecppll.txt" 2>&1 ||
		fail "ecppll -o $mhz (see $out/ecppll.txt)"
	if ! "$gen" "$out/b.dtb" --sv "$out/b.sv" 2> "$out/gen.err"; then
		# refused: then ecppll's nearest clock is more than 0.5% off too
		got=$(sed -n 's/^clkout0 frequency: \([0-9.]*\) MHz$/\1/p' "$out/ecppll.txt")
		grep -q "the PLL cannot make it from the link's 25000000 Hz within 0.5%" "$out/gen.err" &&
		awk -v g="$got" -v w="$mhz" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d > w * 0.005) }' ||
			fail "wse-cfggen refused $mhz MHz, ecppll makes $got MHz: $(cat "$out/gen.err")"
		r=$((r + 1))
		continue
	fi
	v() { sed -n "s/.*$1 *= *\([0-9]*\);.*/\1/p" "$out/b.sv"; }
	ours="$(v PllClkiDiv) $(v PllClkfbDiv) $(v PllClkopDiv)"
	p() { sed -n "s/.*\.$1(\([0-9]*\)).*/\1/p" "$out/pll.v"; }
	theirs="$(p CLKI_DIV) $(p CLKFB_DIV) $(p CLKOP_DIV)"
	[ "$ours" = "$theirs" ] ||
		fail "$mhz MHz: wse-cfggen's dividers (in fb op) $ours, ecppll's $theirs"
	n=$((n + 1))
done
[ "$n" -ge 10 ] && [ "$r" -ge 1 ] || fail "only $n clocks compared and $r refused"
echo "test-pll: passed ($n mesh clocks from 25 MHz with ecppll's dividers; $r refused, ecppll's nearest more than 0.5% off too)"
