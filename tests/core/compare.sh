#!/bin/sh
# Run bare-metal ELFs on QEMU (the golden model) and on the Verilator PE,
# and compare: both must pass (tohost = 1), print the same console text and
# dump the same signature, word for word. Every other program runs with the
# console taking characters in a quarter of the cycles (tb_pe --putc-stall),
# so its printing stores wait: the console text must still be QEMU's.
# Usage: compare.sh OUTDIR TB_PE ELF...
# Environment: QEMU (default qemu-system-riscv32), CORE_MAX_CYCLES.
set -u
out=$1; tb=$2; shift 2
qemu=${QEMU:-qemu-system-riscv32}
maxc=${CORE_MAX_CYCLES:-2000000}
mkdir -p "$out"
fails=0; n=0
for elf in "$@"; do
	name=$(basename "$elf" .elf)
	n=$((n + 1))
	timeout 60 "$qemu" -M spike -cpu rv32,f=true,d=false -bios none -kernel "$elf" \
		-display none -serial stdio -monitor none </dev/null >"$out/$name.qemu.out" 2>"$out/$name.qemu.err"
	qrc=$?
	stall=""
	[ $((n % 2)) -eq 0 ] && stall="--putc-stall $n"
	"$tb" "$elf" --max-cycles "$maxc" --sig "$out/$name.rtl.sig" $stall >"$out/$name.rtl.out" 2>"$out/$name.rtl.err"
	rrc=$?
	grep '^S:' "$out/$name.qemu.out" >"$out/$name.qemu.sig"
	why=""
	[ $qrc -eq 0 ] || why="$why qemu-exit=$qrc"
	[ $rrc -eq 0 ] || why="$why rtl-exit=$rrc($(tail -n 1 "$out/$name.rtl.err"))"
	if [ -z "$why" ]; then
		[ -s "$out/$name.qemu.sig" ] || why="$why no-signature"
		cmp -s "$out/$name.qemu.sig" "$out/$name.rtl.sig" || why="$why signature-differs"
		cmp -s "$out/$name.qemu.out" "$out/$name.rtl.out" || why="$why console-differs"
	fi
	if [ -n "$why" ]; then
		echo "FAIL $name:$why"
		fails=$((fails + 1))
	else
		echo "ok   $name ($(wc -l <"$out/$name.rtl.sig") signature words${stall:+, console stalled})"
	fi
done
echo "compare: $n programs, $fails failed"
[ $fails -eq 0 ]
