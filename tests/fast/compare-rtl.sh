#!/bin/sh
# Run bare-metal ELFs on the RTL tile (tb_pe, Verilator) and on wsemu-fast's
# instruction-set model (tb_fast), and compare them directly: the same exit
# status, console text and signature word for word, and the same number of
# retired instructions. Unlike the QEMU comparison this also holds where
# QEMU differs from the tile by design (counters, misa, misaligned access).
# The cycle counts are reported, not required to agree: the model's cost
# model is not cycle-accurate (docs/wsemu-fast.md); on a lone tile the RTL's
# count is the model's plus the one fetch cycle after the release.
# Usage: compare-rtl.sh OUTDIR TB_PE TB_FAST ELF...
# Environment: CORE_MAX_CYCLES.
set -u
out=$1; rtl=$2; fast=$3; shift 3
maxc=${CORE_MAX_CYCLES:-2000000}
mkdir -p "$out"
fails=0; n=0; same_cycles=0
for elf in "$@"; do
	name=$(basename "$elf" .elf)
	n=$((n + 1))
	"$rtl" "$elf" --max-cycles "$maxc" --sig "$out/$name.rtl.sig" --stats \
		>"$out/$name.rtl.out" 2>"$out/$name.rtl.err"
	rrc=$?
	"$fast" "$elf" --max-cycles "$maxc" --sig "$out/$name.fast.sig" --stats \
		>"$out/$name.fast.out" 2>"$out/$name.fast.err"
	frc=$?
	why=""
	[ $rrc -eq $frc ] || why="$why exit-rtl=$rrc-fast=$frc($(tail -n 1 "$out/$name.fast.err"))"
	[ $rrc -eq 0 ] || why="$why rtl-exit=$rrc"
	if [ -z "$why" ]; then
		cmp -s "$out/$name.rtl.sig" "$out/$name.fast.sig" || why="$why signature-differs"
		cmp -s "$out/$name.rtl.out" "$out/$name.fast.out" || why="$why console-differs"
	fi
	ri=$(sed -n 's/.* \([0-9]*\) instructions.*/\1/p' "$out/$name.rtl.err")
	fi=$(sed -n 's/.* \([0-9]*\) instructions.*/\1/p' "$out/$name.fast.err")
	rc=$(sed -n 's/.*run \([0-9]*\) cycles.*/\1/p' "$out/$name.rtl.err")
	fc=$(sed -n 's/.*run \([0-9]*\) cycles.*/\1/p' "$out/$name.fast.err")
	[ -z "$why" ] && [ "$ri" != "$fi" ] && why="$why instructions-rtl=$ri-fast=$fi"
	[ -n "$rc" ] && [ -n "$fc" ] && [ "$rc" -eq $((fc + 1)) ] && same_cycles=$((same_cycles + 1))
	if [ -n "$why" ]; then
		echo "FAIL $name:$why"
		fails=$((fails + 1))
	else
		echo "ok   $name ($(wc -l <"$out/$name.fast.sig") signature words, $fi instructions, cycles rtl $rc fast $fc)"
	fi
done
echo "compare-rtl: $n programs, $fails failed; cycle count equal to the RTL's on $same_cycles"
[ $fails -eq 0 ]
