#!/bin/bash
# Place and route one synthesized block with nextpnr-ecp5 on the ULX3S's
# FPGA (LFE5U-85F, CABGA381), out of context (no IO buffers, no global
# clock network: the block's ports are not pins), bounded in time.
# Usage: pnr.sh NEXTPNR JSON OUTDIR TIMEOUT_S FREQ_MHZ
# Writes OUTDIR/report.json (nextpnr's timing and utilization report),
# OUTDIR/pnr.log and OUTDIR/times (tests/fpga/timed.sh). Exits 2 on a
# time-out.
set -u
nextpnr=$1 json=$2 out=$3 limit=$4 freq=$5
mkdir -p "$out"
rm -f "$out/report.json"
exec "$(dirname "$0")/timed.sh" "$out" "$limit" "nextpnr-ecp5 $json (log $out/pnr.log)" \
	"$nextpnr" --85k --package CABGA381 --out-of-context --json "$json" \
	--freq "$freq" --timing-allow-fail --seed 1 --router router2 \
	--report "$out/report.json" --log "$out/pnr.log" -q
