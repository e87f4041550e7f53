#!/bin/bash
# wse-cfggen: every board generates; bad device trees are refused by name
# and leave no output behind.
set -u
gen=$1; out=$2
mkdir -p "$out"
fail=0
ok()  { echo "PASS $*"; }
bad() { echo "FAIL $*"; fail=1; }

for dts in boards/sim-*/sim-*.dts; do
	b=$(basename "$dts" .dts)
	dtc -q -I dts -O dtb -o "$out/$b.dtb" "$dts" || { bad "$b: dtc"; continue; }
	if "$gen" "$out/$b.dtb" --sv "$out/$b.sv" --h "$out/$b.h"; then
		w=${b#sim-}; w=${w%x*}
		grep -q "NumCols *= $w;" "$out/$b.sv" && grep -q "WSE_CFG_NUM_COLS ${w}u" "$out/$b.h" &&
			ok "$b generates, $w columns" || bad "$b: wrong column count"
	else
		bad "$b: generator failed"
	fi
done

# The DTB ROM of the host interface holds the blob byte for byte.
"$gen" "$out/sim-4x4.dtb" --rom "$out/rom.sv" --build-id "test id" || bad "rom: generator failed"
perl -ne 'if (/DtbRom = \{(.*)\};/) { my @w = reverse map { s/64.h//r } split /, /, $1;
	print map { scalar reverse pack("H16", $_) } @w }' "$out/rom.sv" > "$out/rom.bin"
n=$(stat -c %s "$out/sim-4x4.dtb")
if grep -q "DtbBytes = $n;" "$out/rom.sv" && cmp -s -n "$n" "$out/rom.bin" "$out/sim-4x4.dtb"; then
	ok "rom holds the $n-byte DTB"
else
	bad "rom does not reproduce the DTB"
fi
grep -q "BuildId = 256'h0*6469207473657" "$out/rom.sv" && ok "rom build id" || bad "rom build id"
# the compatible string of the PCIe device side's COMPAT window, byte 0 lowest
grep -q "Compat = 512'h0*3478342d6d69732c756d657377;" "$out/rom.sv" && ok "rom compatible string" ||
	bad "rom compatible string"
if "$gen" "$out/sim-4x4.dtb" --rom "$out/rom2.sv" 2>/dev/null || [ -e "$out/rom2.sv" ]; then
	bad "rom without build id accepted"
else ok "rom without build id refused"; fi

# Each case: a sed edit of sim-4x4.dts, and the text the error must contain.
check_rejects() {
	local name=$1 edit=$2 want=$3
	sed -e "$edit" "${base:-boards/sim-4x4/sim-4x4.dts}" > "$out/$name.dts"
	if ! dtc -q -I dts -O dtb -o "$out/$name.dtb" "$out/$name.dts" 2>/dev/null; then
		bad "$name: case does not compile"; return
	fi
	rm -f "$out/$name.sv"
	if "$gen" "$out/$name.dtb" --sv "$out/$name.sv" 2> "$out/$name.err"; then
		bad "$name: accepted"
	elif ! grep -q -- "$want" "$out/$name.err"; then
		bad "$name: error does not say '$want': $(cat "$out/$name.err")"
	elif [ -e "$out/$name.sv" ] || [ -e "$out/$name.sv.tmp" ]; then
		bad "$name: output written"
	else
		ok "$name rejected: $(head -1 "$out/$name.err")"
	fi
}
check_rejects missing-rows '/wsemu,rows/d' 'missing property wsemu,rows'
check_rejects zero-cols 's/wsemu,columns = <[0-9]*>/wsemu,columns = <0>/' 'wsemu,columns = 0 out of range'
check_rejects huge-cols 's/wsemu,columns = <[0-9]*>/wsemu,columns = <65>/' 'out of range'
check_rejects two-cells 's/wsemu,rows = <4>/wsemu,rows = <4 4>/' 'must be one cell'
check_rejects bad-vc-map 's/3 3 3 3 3 3 3 3>/3 3 3 3 3 3 3 9>/' 'color-vc-map\[31\] = 9'
check_rejects short-vc-map 's/3 3 3 3 3 3 3 3>/3 3 3>/' 'must have 32 cells'
check_rejects depth-not-pow2 's/vc-queue-depth = <4>/vc-queue-depth = <3>/' 'power of two'
check_rejects wrong-compat 's/"wsemu,mesh-v1"/"acme,mesh"/' 'not compatible'
check_rejects no-tile 's/^\ttile {/\ttyle {/' 'node /tile'

# The FPGA board: the UART's clock and rate, the /fpga node, the PLL.
u=ulx3s-85f
dtc -q -I dts -O dtb -o "$out/$u.dtb" "boards/$u/$u.dts" || bad "$u: dtc"
if "$gen" "$out/$u.dtb" --sv "$out/$u.sv" --env "$out/$u.env"; then
	# The dividers must make the asked clock from 25 MHz with the VCO in
	# 400..800 MHz and the phase detector in 3.125..400 MHz.
	v() { sed -n "s/.*$1 *= *\([0-9]*\);.*/\1/p" "$out/$u.sv"; }
	in=$(v PllClkiDiv) fb=$(v PllClkfbDiv) op=$(v PllClkopDiv) hz=$(v MeshClockHz)
	want=$(sed -n 's/.*mesh-clock-frequency = <\([0-9]*\)>.*/\1/p' "boards/$u/$u.dts")
	if [ -n "$in" ] && [ $((25000000 * fb / in)) -eq "$hz" ] && [ "$hz" -eq "$want" ] &&
	   [ $((hz * op)) -ge 400000000 ] && [ $((hz * op)) -le 800000000 ] &&
	   [ $((25000000 / in)) -ge 3125000 ]; then
		ok "$u: PLL 25 MHz * $fb / $in = $hz Hz, VCO $((hz * op / 1000000)) MHz"
	else
		bad "$u: PLL dividers in=$in fb=$fb op=$op do not make $want Hz"
	fi
	grep -q "LinkUartDiv *= 2133;" "$out/$u.sv" && ok "$u: UART divisor 25 MHz / 3 Mbaud x 256" ||
		bad "$u: UART divisor"
	. "$out/$u.env"
	tiles=$(( $(sed -n 's/.*wsemu,columns = <\([0-9]*\)>.*/\1/p' "boards/$u/$u.dts") *
		$(sed -n 's/.*wsemu,rows = <\([0-9]*\)>.*/\1/p' "boards/$u/$u.dts") ))
	[ "$BOARD_TILES" = "$tiles" ] && [ "$BOARD_FPGA_DEVICE" = LFE5U-85F ] &&
		[ "$BOARD_FPGA_PACKAGE" = CABGA381 ] && [ "$BOARD_MESH_CLOCK_HZ" = "$hz" ] &&
		ok "$u: flow settings" || bad "$u: flow settings: $(cat "$out/$u.env")"
else
	bad "$u: generator failed"
fi
if "$gen" "$out/sim-4x4.dtb" --env "$out/sim.env" 2>/dev/null || [ -e "$out/sim.env" ]; then
	bad "--env of a board without /fpga accepted"
else ok "--env of a board without /fpga refused"; fi
base=boards/$u/$u.dts
check_rejects uart-no-baud '/wsemu,baud/d' '"wsemu,link-uart" needs clock-frequency and wsemu,baud'
check_rejects uart-too-fast 's/wsemu,baud = <3000000>/wsemu,baud = <10000000>/' 'clocks per bit, outside \[4, 255\]'
check_rejects fpga-unknown-part 's/"LFE5U-85F"/"LFE5U-99F"/' 'wsemu,device "LFE5U-99F" is not one of'
check_rejects fpga-no-package '/wsemu,package/d' 'missing property wsemu,package'
check_rejects fpga-pll-cannot 's/mesh-clock-frequency = <[0-9]*>/mesh-clock-frequency = <1000000>/' 'the PLL cannot make it'
check_rejects fpga-flash-size 's/flash-bytes = <0x1000000>/flash-bytes = <0x1000001>/' 'flash-bytes = 16777217 must be a power of two'
check_rejects fpga-no-clock 's/clock-frequency = <25000000>/wsemu,x = <1>/' 'needs clock-frequency'
unset base

# A truncated and a bit-flipped blob.
head -c 100 "$out/sim-4x4.dtb" > "$out/trunc.dtb"
if "$gen" "$out/trunc.dtb" --sv "$out/trunc.sv" 2> "$out/trunc.err"; then bad "truncated blob accepted"
else ok "truncated blob rejected: $(head -1 "$out/trunc.err")"; fi
cp "$out/sim-4x4.dtb" "$out/flip.dtb"
printf '\xff\xff\xff\xff' | dd of="$out/flip.dtb" bs=1 seek=8 conv=notrunc 2>/dev/null
if "$gen" "$out/flip.dtb" --sv "$out/flip.sv" 2> "$out/flip.err"; then bad "corrupt header accepted"
else ok "corrupt header rejected: $(head -1 "$out/flip.err")"; fi
if "$gen" "$out/does-not-exist.dtb" 2>/dev/null; then bad "missing file accepted"
else ok "missing file rejected"; fi
exit $fail
