#!/bin/bash
# Yosys synth_ecp5 of one block, bounded in time, with the netlist checks
# of the other synthesis stages: no latch (after proc and after mapping),
# no combinational loop or driver conflict (check -assert).
# Usage: synth.sh OUTDIR TOP TIMEOUT_S READ_CMDS [SYNTH_FLAGS]
#   READ_CMDS   the Yosys commands that read the sources
#   SYNTH_FLAGS extra synth_ecp5 flags (default -noflatten: the statistics
#               keep one entry per module)
# Writes OUTDIR/stat.txt (yosys stat, hierarchy kept), OUTDIR/netlist.json
# (flattened, for nextpnr-ecp5), OUTDIR/synth.log and OUTDIR/times
# (tests/fpga/timed.sh). Exits 2 on a time-out.
set -u
out=$1 top=$2 limit=$3 read=$4 flags=${5:--noflatten}
mkdir -p "$out"
rm -f "$out/stat.txt" "$out/netlist.json"
cat >"$out/synth.ys" <<YS
$read
hierarchy -check -top $top
proc
select -assert-none t:*latch* t:*LATCH*
synth_ecp5 $flags -top $top
check -assert
select -assert-none t:*latch* t:*LATCH*
tee -q -o $out/stat.txt stat
flatten
opt_clean
write_json $out/netlist.json
YS
exec "$(dirname "$0")/timed.sh" "$out" "$limit" "synth_ecp5 $top (log $out/synth.log)" \
	yosys -q -l "$out/synth.log" "$out/synth.ys"
