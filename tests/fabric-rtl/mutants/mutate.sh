#!/bin/sh
# Writes a copy of a production prim with one planted bug (a mutant), for
# the tests that must catch it (formal-fabric, fv-bugs); the prims in rtl/
# carry no bug switches. The copy keeps the module name, so a build that
# lists it in place of the prim gets the bug everywhere the prim is used.
# Usage: mutate.sh BUG OUT.sv    BUG: FIFO, CREDIT, ARB or PRIO
#        mutate.sh --prim BUG    prints the prim's path
# Fails when the prim no longer has the line the mutation changes.
set -eu
bug=$1
case $bug in
--prim) case $2 in
	FIFO) echo rtl/prim/prim_fifo_sync.sv ;;
	CREDIT) echo rtl/prim/prim_credit_cnt.sv ;;
	ARB) echo rtl/prim/prim_arb_rr.sv ;;
	PRIO) echo rtl/prim/prim_prio_enc.sv ;;
	*) echo "mutate.sh: unknown bug $2" >&2; exit 2 ;;
	esac
	exit 0 ;;
# The full flag comes one entry early, so a push that the credits allow
# meets a FIFO that calls itself full.
FIFO) expr='s/^(\s*assign full_o\s*=\s*)\(cnt_q == FullCnt\);/$1(cnt_q >= FullCnt - 1\x27b1);  \/\/ mutant FIFO/m' ;;
# A returned credit counts twice.
CREDIT) expr='s/^(\s*if \(give_i && !take_i\) cnt_d = cnt_q \+ )1\x27b1;/${1}2\x27d2;  \/\/ mutant CREDIT/m' ;;
# The lowest requester is granted as well.
ARB) expr='s/^(\s*)(gnt\s*=\s*\(req_hi != \x270\) \? gnt_hi : gnt_lo;)\n/$1$2\n${1}gnt    = gnt | gnt_lo;  \/\/ mutant ARB\n/m' ;;
# A tree node prefers its upper half: the highest set bit of a pair wins.
PRIO) expr='s/^(\s*li\[k\]\[j\] = )lv\[k-1\]\[2\*j\] \?/${1}!lv[k-1][2*j+1] ?/m' ;;
*) echo "mutate.sh: unknown bug $bug" >&2; exit 2 ;;
esac
src=$("$0" --prim "$bug")
out=$2
mkdir -p "$(dirname "$out")"
perl -0pe "$expr" "$src" >"$out.tmp"
if cmp -s "$src" "$out.tmp"; then
	rm -f "$out.tmp"
	echo "mutate.sh: $bug: the line to mutate is not in $src" >&2
	exit 1
fi
mv "$out.tmp" "$out"
