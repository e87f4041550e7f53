#!/bin/bash
# Programs on a board top's model, driven like a board: wsectl through
# the UART pins reads the board's DTB (info), then loads and runs each
# program on every tile. The run must end with every tile done and none
# failed, and each tile's signature (the words from begin_signature to
# end_signature, read from its memory with wsectl mem in the same
# session) must equal the "S:" lines QEMU prints for the same ELF
# (qemu-system-riscv32 -M spike, the golden model), and so must the "S:"
# lines the tile printed on its console: no character may be lost at the
# UART's rate (a tile's printing stores wait while its console buffer is
# full, docs/host-if.md).
# make test runs it on the RTL's model (wsemu-board-sim); make test-full
# on the model built from the board top's synth_ecp5 netlist too, the
# evidence that the netlist the bitstream is placed from computes what
# the RTL computes. That model runs about a thousand board cycles a
# second, so the requests' time-out (wsectl -t) is long.
# Usage: test-board-run.sh LABEL BOARD ENV MODEL WSECTL OUTDIR ELF...
#   LABEL  names the model in the messages (rtl, netlist)
set -u
label=$1 b=$2 env=$3 model=$4 wsectl=$5 out=$6
shift 6
rm -rf "$out"; mkdir -p "$out"
fail() { cat "$1"; echo "board-run: $label: FAIL $2"; exit 1; }
export WSEMU_SIM=$model
. "$env"
cols=$BOARD_COLUMNS rows=$BOARD_ROWS
t_ms=3600000

t0=$(date +%s)
timeout 3700 "$wsectl" -d "sim:board=$b" -t $t_ms info > "$out/info.txt" 2>&1 || fail "$out/info.txt" "$b: wsectl info"
grep -q "mesh: *$cols x $rows tiles" "$out/info.txt" || fail "$out/info.txt" "$b: info: mesh"
grep -q "wsemu,$b" "$out/info.txt" || fail "$out/info.txt" "$b: info: board"
echo "board-run: $label: $b: wsectl info through the UART: $(grep -m1 'mesh:' "$out/info.txt" | tr -s ' ')" \
	"($(($(date +%s) - t0)) s)"

for elf in "$@"; do
	p=$(basename "$elf" .elf)
	timeout 600 qemu-system-riscv32 -M spike -cpu rv32,f=true,d=false -bios none -kernel "$elf" \
		-display none -serial stdio -monitor none </dev/null | grep '^S:' > "$out/$p.qemu.sig"
	[ -s "$out/$p.qemu.sig" ] || fail "$out/$p.qemu.sig" "$p: QEMU printed no signature"
	# The signature words from each tile's memory after the run.
	begin=$(riscv64-unknown-elf-nm "$elf" | awk '$3 == "begin_signature" { print $1 }')
	end=$(riscv64-unknown-elf-nm "$elf" | awk '$3 == "end_signature" { print $1 }')
	[ -n "$begin" ] && [ -n "$end" ] || { echo "board-run: $label: FAIL $p: no signature symbols"; exit 1; }
	words=$(((0x$end - 0x$begin) / 4))
	reads=()
	for y in $(seq 0 $((rows - 1))); do for x in $(seq 0 $((cols - 1))); do
		reads+=(+ mem "$x,$y" "0x$begin" "$words")
	done; done
	t0=$(date +%s)
	timeout 3700 "$wsectl" -d "sim:board=$b" -t $t_ms run "$elf" --timeout $t_ms "${reads[@]}" \
		> "$out/$p.run.txt" 2>&1 || fail "$out/$p.run.txt" "$b: wsectl run $p"
	grep '^[0-9a-f]\{8\}: [0-9a-f]\{8\}$' "$out/$p.run.txt" | sed 's/^.*: /S:/' > "$out/$p.words"
	[ "$(wc -l < "$out/$p.words")" = $((words * cols * rows)) ] ||
		fail "$out/$p.run.txt" "$b: $p: not $words signature words from each tile"
	for t in $(seq 0 $((cols * rows - 1))); do
		x=$((t % cols)) y=$((t / cols))
		sed -n "$((t * words + 1)),$(((t + 1) * words))p" "$out/$p.words" > "$out/$p.$x-$y.sig"
		cmp -s "$out/$p.$x-$y.sig" "$out/$p.qemu.sig" ||
			{ diff "$out/$p.qemu.sig" "$out/$p.$x-$y.sig" | head -20
			  fail "$out/$p.run.txt" "$b: $p: tile $x,$y's signature differs from QEMU's"; }
		# The same lines on the tile's console, every one of them.
		grep "^\[$x,$y\] S:" "$out/$p.run.txt" | sed 's/^[^]]*] //' > "$out/$p.$x-$y.con"
		cmp -s "$out/$p.$x-$y.con" "$out/$p.qemu.sig" ||
			{ diff "$out/$p.qemu.sig" "$out/$p.$x-$y.con" | head -20
			  fail "$out/$p.run.txt" "$b: $p: tile $x,$y's console differs from QEMU's"; }
	done
	echo "board-run: $label: $b: $p on $((cols * rows)) tile(s): $words signature words" \
		"in memory and on the console equal QEMU's ($(($(date +%s) - t0)) s)"
done
