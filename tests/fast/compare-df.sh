#!/bin/sh
# Runs the dataflow programs of test-pe-dataflow on the RTL PE harness
# (tb_df) and on wsemu-fast (tb_fast_df), with the harness options of
# tests/dataflow/opts, and compares the results:
#   - exit status and console output;
#   - the wavelets the PE sent per color (stream out to the harness's
#     router);
#   - the program's DMEM words: data and bss (0x8010_0000 up to __bss_end),
#     dumped by both harnesses through --sig from a copy of the ELF with
#     begin_signature/end_signature symbols added.
# The model runs again with other round lengths (QUANTA, default "1 8 200":
# the board's quantum, wse_fast_board.h): exit status, console and DMEM
# words must stay the RTL's, as results do not depend on the schedule.
# A difference is printed as "DIFF name: ..." with both values (a DMEM word
# as its address, the RTL's value and the model's).
# Usage: compare-df.sh OUTDIR TB_DF TB_FAST_DF ELF...
set -u
out=$1; rtl=$2; fast=$3; shift 3
here=$(dirname "$0")
opts_file=$here/../dataflow/opts
OBJCOPY=${OBJCOPY:-riscv64-unknown-elf-objcopy}
NM=${NM:-riscv64-unknown-elf-nm}
mkdir -p "$out"
fails=0; n=0
for elf in "$@"; do
	name=$(basename "$elf" .elf)
	base=${name%%-*}
	opts=$(awk -v n="$base" '$1 == n { $1 = ""; print }' "$opts_file")
	n=$((n + 1))
	end=$($NM "$elf" | awk '$3 == "__bss_end" { print $1 }')
	sig_elf=$out/$name.sig.elf
	$OBJCOPY --add-symbol begin_signature=0x80100000,global \
		--add-symbol "end_signature=0x$end,global" "$elf" "$sig_elf"
	bad=""
	# shellcheck disable=SC2086
	"$rtl" "$sig_elf" --max-cycles "${DF_MAX_CYCLES:-3000000}" --stats --sig "$out/$name.rtl.sig" $opts \
		>"$out/$name.rtl.out" 2>"$out/$name.rtl.err"
	rc_rtl=$?
	# shellcheck disable=SC2086
	"$fast" "$sig_elf" --max-cycles "${DF_MAX_CYCLES:-3000000}" --stats --sig "$out/$name.fast.sig" $opts \
		>"$out/$name.fast.out" 2>"$out/$name.fast.err"
	rc_fast=$?
	[ $rc_rtl -eq $rc_fast ] || bad="$bad exit status: rtl $rc_rtl, fast $rc_fast;"
	cmp -s "$out/$name.rtl.out" "$out/$name.fast.out" || bad="$bad console differs (see $out/$name.*.out);"
	sed -n 's/^tb_df: \(color [0-9]*: PE sent [0-9]*\).*/\1/p' "$out/$name.rtl.err" >"$out/$name.rtl.sent"
	sed -n 's/^tb_fast_df: \(color [0-9]*: PE sent [0-9]*\).*/\1/p' "$out/$name.fast.err" >"$out/$name.fast.sent"
	if ! cmp -s "$out/$name.rtl.sent" "$out/$name.fast.sent"; then
		bad="$bad wavelets sent: rtl [$(tr '\n' ' ' <"$out/$name.rtl.sent")] fast [$(tr '\n' ' ' <"$out/$name.fast.sent")];"
	fi
	if [ -f "$out/$name.rtl.sig" ] && [ -f "$out/$name.fast.sig" ]; then
		d=$(paste -d' ' "$out/$name.rtl.sig" "$out/$name.fast.sig" | awk '
			$1 != $2 { nd++; if (nd <= 8) printf " tile (0,0) address 0x%08x: rtl %s fast %s;", 2147483648 + 1048576 + 4 * (NR - 1), substr($1, 3), substr($2, 3) }
			END { if (nd > 8) printf " ... %d words differ;", nd }')
		bad="$bad$d"
	else
		bad="$bad no DMEM dump;"
	fi
	for q in ${QUANTA:-1 8 200}; do
		# shellcheck disable=SC2086
		"$fast" "$sig_elf" --quantum "$q" --max-cycles "${DF_MAX_CYCLES:-3000000}" \
			--sig "$out/$name.q$q.sig" $opts >"$out/$name.q$q.out" 2>"$out/$name.q$q.err"
		rc_q=$?
		[ $rc_q -eq $rc_rtl ] || bad="$bad quantum $q: exit status: rtl $rc_rtl, fast $rc_q;"
		cmp -s "$out/$name.rtl.out" "$out/$name.q$q.out" || bad="$bad quantum $q: console differs;"
		cmp -s "$out/$name.rtl.sig" "$out/$name.q$q.sig" || bad="$bad quantum $q: DMEM differs;"
	done
	if [ -n "$bad" ]; then
		fails=$((fails + 1))
		echo "DIFF $name:$bad"
	else
		echo "ok $name ($(wc -l <"$out/$name.rtl.sig") DMEM words)"
	fi
done
echo "test-fast-df: $((n - fails))/$n dataflow programs equal on the RTL and wsemu-fast"
[ $fails -eq 0 ]
