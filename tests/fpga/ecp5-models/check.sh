#!/bin/bash
# The ECP5 primitive models (tests/fpga/DP16KD.sv, MULT18X18D.sv) against
# Yosys's own reading of the RTL: ecp5_models_dut's synth_ecp5 netlist
# must hold the configurations the models are there for (the 36-bit
# pseudo dual port, 18 bits with byte enables and READBEFOREWRITE, 4 bits
# WRITETHROUGH, 9 bits, initial contents, MULT18X18D), and the netlist
# with the models must agree with the RTL on every output of every cycle
# of random runs (tb.cpp) with two seeds.
# Usage: check.sh NETLIST TB
set -u
gl=$1 tb=$2
fail() { echo "ecp5-models: FAIL $*"; exit 1; }
has() { grep -q "$1" "$gl" || fail "the netlist has no $2"; }
has "DATA_WIDTH_A(32'd36)" "36-bit pseudo dual port"
has "DATA_WIDTH_B(32'd18)" "18-bit port"
has 'WRITEMODE_A("READBEFOREWRITE")' "READBEFOREWRITE port"
has "DATA_WIDTH_A(32'd4)" "4-bit port"
has 'WRITEMODE_A("WRITETHROUGH")' "WRITETHROUGH port"
has "DATA_WIDTH_A(32'd9)" "9-bit port"
grep "INITVAL_" "$gl" | grep -q "320'h[0-9a-f]*[1-9a-f]" || fail "the netlist has no initial contents"
n=$(grep -c "^ *MULT18X18D " "$gl")
[ "$n" -ge 6 ] || fail "the netlist has $n MULT18X18D, not the 6 or more of three multipliers"
for seed in 1 2; do
	timeout 300 "$tb" 200000 $seed || fail "seed $seed: the netlist differs from the RTL"
done
