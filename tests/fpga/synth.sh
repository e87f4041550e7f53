#!/bin/bash
# Yosys synth_ecp5 of one block, bounded in time, with the netlist checks
# of the other synthesis stages: no latch (after proc and after mapping),
# no combinational loop or driver conflict (check -assert).
# Usage: synth.sh OUTDIR TOP TIMEOUT_S READ_CMDS [SYNTH_FLAGS]
#   READ_CMDS   the Yosys commands that read the sources
#   SYNTH_FLAGS extra synth_ecp5 flags (default -noflatten: the statistics
#               keep one entry per module)
# Environment: YOSYS, the Yosys command (default: yosys on PATH; the FPGA
# flow gives its pinned one, mk/fpga.mk). ABC9_DELAY_PS, when set, is the delay target of ABC9's LUT
# mapping (synth_ecp5 -abc9) in picoseconds: ABC9 then recovers area on
# every path whose estimated delay stays within it, instead of mapping each
# for the least delay. Its estimate leaves out routing.
# Writes OUTDIR/stat.txt (yosys stat, hierarchy kept), OUTDIR/netlist.json
# (flattened, for nextpnr-ecp5), OUTDIR/synth.log and OUTDIR/times
# (tests/fpga/timed.sh). Exits 2 on a time-out.
set -u
out=$1 top=$2 limit=$3 read=$4 flags=${5:--noflatten}
mkdir -p "$out"
rm -f "$out/stat.txt" "$out/netlist.json"
delay=
if [ -n "${ABC9_DELAY_PS:-}" ]; then
	delay="scratchpad -set abc9.D $ABC9_DELAY_PS"
fi
# write_script EXTRA: the Yosys script, EXTRA set before the sources are read.
write_script() {
	cat >"$out/synth.ys" <<YS
$1
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
}
run() {
	"$(dirname "$0")/timed.sh" "$out" "$limit" "synth_ecp5 $top (log $out/synth.log)" \
		${YOSYS:-yosys} -q -l "$out/synth.log" "$out/synth.ys"
}
rm -f "$out/abc9-plain"
write_script "$delay"
run
rc=$?
# The ABC that Yosys 0.23 (Debian's) calls for -abc9 can abort in its LUT mapping with
# "Boxes are not in a topological order" on a netlist with carry chains,
# depending on the order of the nodes it is given (a change elsewhere in the
# design can bring it on or take it away). Then the mapping is run again
# without the two steps that lead to it (&dch, structural choices, and &mfs)
# and OUTDIR/abc9-plain says so: more LUT4 (wse_pe_core: 7,327 against
# 5,786). -W 300 is the wire delay synth_ecp5 gives ABC9.
if [ $rc = 1 ] && grep -q "Boxes are not in a topological order" "$out/synth.log"; then
	echo "synth_ecp5 $top: ABC9 aborted (boxes not in a topological order); again without &dch and &mfs"
	echo "&scorr; &sweep; &dc2; &ps; &if -W 300 ${ABC9_DELAY_PS:+-D $ABC9_DELAY_PS} -v" >"$out/abc9.scr"
	write_script "scratchpad -set abc9.script $out/abc9.scr"
	touch "$out/abc9-plain"
	run
	rc=$?
fi
exit $rc
