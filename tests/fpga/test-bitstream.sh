#!/bin/bash
# What make bitstream left for a board, as a user about to flash it would
# check: a .bit that opens with the ECP5 preamble and names the board's
# part by its JTAG IDCODE, an .svf that loads it over JTAG, and nextpnr's
# report with the mesh clock's Fmax at or above the clock the .dts asks
# for (the flow refuses a miss; this reads the report again).
# Usage: test-bitstream.sh ENV DIR
#   ENV the board's settings (wse-cfggen --env), DIR build/bitstream/<board>
set -u
env=$1 dir=$2
. "$env"
b=${BOARD_COMPATIBLE#wsemu,}
fail=0
ok()  { echo "PASS $b: $*"; }
bad() { echo "FAIL $b: $*"; fail=1; }
# The IDCODEs of the ECP5 parts (Lattice's ECP5 sysCONFIG guide).
case $BOARD_FPGA_DEVICE in
LFE5U-12F) id=21111043 ;; LFE5U-25F) id=41111043 ;; LFE5U-45F) id=41112043 ;;
LFE5U-85F) id=41113043 ;;
*) echo "FAIL $b: FPGA $BOARD_FPGA_DEVICE: no IDCODE known"; exit 1 ;;
esac
bit=$dir/$b.bit svf=$dir/$b.svf
hex=$(od -An -v -tx1 "$bit" 2>/dev/null | tr -d ' \n')
case $hex in
*ffffbdb3*) ok "$bit: ECP5 preamble" ;;
*) bad "$bit: no ECP5 preamble (FF FF BD B3)" ;;
esac
# VERIFY_ID (0xE2), three bytes of operand, the IDCODE.
case $hex in
*e2000000$id*) ok "$bit: IDCODE 0x$id ($BOARD_FPGA_DEVICE)" ;;
*) bad "$bit: no VERIFY_ID of 0x$id ($BOARD_FPGA_DEVICE)" ;;
esac
grep -q "^SIR" "$svf" 2>/dev/null && grep -q "^SDR" "$svf" && ok "$svf: JTAG commands" ||
	bad "$svf: no JTAG commands"
/usr/bin/python3 - "$dir/report.json" "$BOARD_MESH_CLOCK_HZ" <<'PY' && ok "timing met" || fail=1
import json, sys
try:
    rep = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    sys.exit(f"FAIL {sys.argv[1]}: {e}")
want = int(sys.argv[2]) / 1e6
fmax = rep.get("fmax", {})
if not fmax:
    sys.exit(f"FAIL {sys.argv[1]}: no clock in the report")
for clk, v in sorted(fmax.items()):
    print(f"  {clk}: {v['achieved']:.2f} MHz achieved, {v['constraint']:.2f} MHz asked")
    if v["achieved"] < v["constraint"]:
        sys.exit(f"FAIL clock {clk} below its constraint")
if not any(abs(v["constraint"] - want) < 0.01 for v in fmax.values()):
    sys.exit(f"FAIL no clock constrained at the .dts's mesh clock, {want:.3f} MHz")
PY
exit $fail
