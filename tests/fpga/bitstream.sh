#!/bin/bash
# The board flow after synthesis: nextpnr-ecp5 with the board's LPF at the
# mesh clock the board's .dts asks for, then ecppack. Timing is not
# allowed to fail: a design that misses the clock stops here with the
# failing path printed, and no bitstream is left in place.
# Usage: bitstream.sh ENV JSON LPF OUTDIR NEXTPNR ECPPACK TIMEOUT_S
#   ENV   the board's settings (wse-cfggen --env)
# Writes OUTDIR/<board>.bit and .svf, OUTDIR/report.json (utilization and
# timing), OUTDIR/pnr.log, OUTDIR/times; prints the BENCH figures.
set -u
env=$1 json=$2 lpf=$3 out=$4 nextpnr=$5 ecppack=$6 limit=$7
here=$(dirname "$0")
. "$env"
board=${BOARD_COMPATIBLE#wsemu,}
bit=$out/$board.bit svf=$out/$board.svf
mkdir -p "$out"
rm -f "$bit" "$svf" "$out/$board.config" "$out/report.json"
case $BOARD_FPGA_DEVICE in
LFE5U-12F) dev=--12k ;; LFE5U-25F) dev=--25k ;; LFE5U-45F) dev=--45k ;;
LFE5U-85F) dev=--85k ;;
*) echo "$board: FPGA $BOARD_FPGA_DEVICE: no nextpnr-ecp5 device" >&2; exit 1 ;;
esac
mhz=$(awk "BEGIN { printf \"%.3f\", $BOARD_MESH_CLOCK_HZ / 1e6 }")
"$here/timed.sh" "$out" "$limit" "nextpnr-ecp5 $board at $mhz MHz (log $out/pnr.log)" \
	"$nextpnr" "$dev" --package "$BOARD_FPGA_PACKAGE" --lpf "$lpf" --json "$json" \
	--freq "$mhz" --seed 1 --router router2 --textcfg "$out/$board.config" \
	--report "$out/report.json" --log "$out/pnr.log" -q
rc=$?
/usr/bin/python3 "$here/report.py" --pnr "ulx3s=$out" | grep -v '^fpga.tile_fmax_mhz\|tile_fmax_mhz'
if [ $rc -ne 0 ]; then
	rm -f "$out/$board.config"
	if grep -q "timing\|Max frequency" "$out/pnr.log" 2>/dev/null &&
	   grep -qi "failed to meet\|timing fail" "$out/pnr.log"; then
		echo "$board: timing fails at $mhz MHz (the critical path above); no bitstream written" >&2
	else
		echo "$board: nextpnr-ecp5 failed (exit $rc, log $out/pnr.log); no bitstream written" >&2
	fi
	exit 1
fi
"$ecppack" --compress --svf "$svf" "$out/$board.config" "$bit" || {
	rm -f "$bit" "$svf"; echo "$board: ecppack failed" >&2; exit 1; }
echo "$board: $bit and $svf at $mhz MHz"
