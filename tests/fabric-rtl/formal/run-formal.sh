#!/bin/bash
# Formal proofs of the fabric primitives and the priority encoder: for
# each harness and parameter set, BMC (yosys-smtbmc -t N) and k-induction (-i) with z3; then each
# mutant (tests/fabric-rtl/mutants/mutate.sh: the prim with one planted
# bug) must make BMC fail.
# Usage: run-formal.sh OUTDIR
set -u
out=$1
mkdir -p "$out"
fail=0
here=tests/fabric-rtl/formal

# name harness prim param value bmc-depth
cases=(
	"ram_d4    ram_fv    prim_ram_1r1w   Depth 4 8"
	"ram_d3    ram_fv    prim_ram_1r1w   Depth 3 8"
	"fifo_d4   fifo_fv   prim_fifo_sync  Depth 4 16"
	"fifo_d3   fifo_fv   prim_fifo_sync  Depth 3 16"
	"credit_d4 credit_fv prim_credit_cnt Depth 4 20"
	"credit_d2 credit_fv prim_credit_cnt Depth 2 20"
	"arb_n5    arb_fv    prim_arb_rr     N     5 10"
	"arb_n4    arb_fv    prim_arb_rr     N     4 10"
	"prio_n96  prio_fv   prim_prio_enc   N    96 2"
	"prio_n5   prio_fv   prim_prio_enc   N     5 2"
)
# mutant harness prim param value
bugs=(
	"FIFO   fifo_fv   prim_fifo_sync  Depth 4"
	"CREDIT credit_fv prim_credit_cnt Depth 4"
	"ARB    arb_fv    prim_arb_rr     N     5"
	"PRIO   prio_fv   prim_prio_enc   N    96"
)

# The leaves the prims build on (prim_fifo_sync keeps its entries in a
# prim_ram_1r1w), read with every harness unless the prim is one of them.
leaves=rtl/prim/prim_ram_1r1w.sv

gen() {  # smt2-file harness prim-source param value
	local smt=$1 h=$2 src=$3 par=$4 val=$5 l more=""
	for l in $leaves; do [ "$(basename "$l")" = "$(basename "$src")" ] || more="$more $l"; done
	yosys -q -l "${smt%.smt2}.log" -p "read_verilog -formal -sv -Irtl/prim $src$more $here/$h.sv; \
		chparam -set $par $val $h; prep -top $h; async2sync; dffunmap; write_smt2 -wires $smt" >/dev/null
}

for c in "${cases[@]}"; do
	set -- $c
	name=$1 smt=$out/$1.smt2
	if ! gen "$smt" "$2" "rtl/prim/$3.sv" "$4" "$5"; then echo "FAIL $name: yosys"; fail=1; continue; fi
	t0=$(date +%s)
	if yosys-smtbmc -s z3 --unroll --noprogress -t "$6" "$smt" > "$out/$name.bmc.log" 2>&1; then
		r1=PASS; else r1=FAIL; fail=1; fi
	if yosys-smtbmc -s z3 --unroll --noprogress -i -t "$6" "$smt" > "$out/$name.ind.log" 2>&1; then
		r2=PASS; else r2=FAIL; fail=1; fi
	echo "$r1 $name: BMC depth $6"
	echo "$r2 $name: induction depth $6 ($(( $(date +%s) - t0 ))s both)"
done

for b in "${bugs[@]}"; do
	set -- $b
	smt=$out/bug_$1.smt2
	if ! tests/fabric-rtl/mutants/mutate.sh "$1" "$out/mutant-$1/$3.sv"; then echo "FAIL mutant $1"; fail=1; continue; fi
	if ! gen "$smt" "$2" "$out/mutant-$1/$3.sv" "$4" "$5"; then echo "FAIL mutant $1: yosys"; fail=1; continue; fi
	if yosys-smtbmc -s z3 --unroll --noprogress -t 8 "$smt" > "$out/bug_$1.log" 2>&1; then
		echo "FAIL mutant $1: injected bug not caught"; fail=1
	else
		echo "PASS mutant $1: caught, $(grep -o 'Assert failed in [^ ]*: [^ ]*' "$out/bug_$1.log" | head -1)"
	fi
done
exit $fail
