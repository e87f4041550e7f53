#!/bin/sh
# Generic Yosys synthesis of the FPU: cells per module and in total, and the
# longest topological path (gate levels, flip-flops excluded) with its end
# points. Writes OUTDIR/synth.log and OUTDIR/synth-report.txt.
# Usage: fpu-synth.sh OUTDIR RTL...
# Environment: FPU_CHPARAM, e.g. "-set RoundStage 1" (yosys chparam).
set -eu
out=$1; shift
chp=""
[ -n "${FPU_CHPARAM:-}" ] && chp="chparam ${FPU_CHPARAM} fpu"
mkdir -p "$out"
cat > "$out/fpu.ys" <<EOS
read_verilog -sv -DSYNTHESIS -Irtl/prim $*
$chp
synth -top fpu
tee -o $out/stat-hier.txt stat
flatten
opt_clean
tee -o $out/stat-flat.txt stat
tee -o $out/ltp.txt ltp -noff
EOS
yosys -q -l "$out/synth.log" -s "$out/fpu.ys" >/dev/null
cells=$(awk '/Number of cells/ {n=$NF} END {print n}' "$out/stat-flat.txt")
flops=$(awk '/\$_DFF/ {n+=$NF} END {print n+0}' "$out/stat-flat.txt")
len=$(sed -n 's/.*Longest topological path in fpu (length=\([0-9]*\)).*/\1/p' "$out/ltp.txt")
from=$(awk '/^ *0: / {print $2; exit}' "$out/ltp.txt")
to=$(awk '/^ *[0-9]+: / {l=$2} END {print l}' "$out/ltp.txt")
{
	echo "FPU synthesis (yosys generic gates, flattened)${FPU_CHPARAM:+, chparam $FPU_CHPARAM}"
	echo "cells        $cells"
	echo "flip-flops   $flops"
	printf "longest path %s gate levels, from %s to %s\n" "$len" "$from" "$to"
	echo "cells per module (hierarchical synthesis):"
	awk '/^=== / {m=$2} /Number of cells/ && m != "" {printf "  %-20s %8s\n", m, $NF; m=""}' "$out/stat-hier.txt" |
		sed 's/\$paramod\$[0-9a-f]*\\//; s/\$paramod\\//'
} > "$out/synth-report.txt"
cat "$out/synth-report.txt"
[ -n "$cells" ] && [ "$cells" -gt 0 ]
