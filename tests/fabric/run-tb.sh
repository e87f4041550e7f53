#!/bin/sh
# Runs one fabric testbench twice, with two +verilator+seed values (the
# models are built with --x-assign unique --x-initial unique), and checks
# that both runs pass and print identical RESULT lines (scoreboard summary,
# counters, digest): the design's behaviour does not depend on the value
# that uninitialised state happens to take.
# Usage: run-tb.sh NAME BINARY LOGDIR [TEST...]
#   SEED=n     testbench seed (default: a fresh one, printed)
#   COVERAGE=1 write LOGDIR/NAME.<run>.dat coverage files
#   XSEEDS="a b" the two simulator seeds (default "1 2")
set -u
name=$1; bin=$2; dir=$3; shift 3
mkdir -p "$dir"
if [ -z "${SEED:-}" ]; then
	SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
fi
export SEED
xseeds=${XSEEDS:-"1 2"}
status=0
first=""
for xs in $xseeds; do
	log=$dir/$name.x$xs.log
	if [ "${COVERAGE:-0}" = 1 ]; then
		export COVERAGE_FILE=$dir/$name.x$xs.dat
	else
		unset COVERAGE_FILE
	fi
	t0=$(date +%s)
	"$bin" "$@" +verilator+seed+$xs >"$log" 2>&1
	rc=$?
	t1=$(date +%s)
	if [ $rc -ne 0 ]; then
		echo "FAIL $name (+verilator+seed+$xs, SEED=$SEED, rc=$rc) in $((t1 - t0))s; log $log:"
		grep -E 'ERROR|Error|Assertion|FAIL' "$log" | head -20
		echo "reproduce: SEED=$SEED $bin $* +verilator+seed+$xs"
		status=1
		break
	fi
	grep '^RESULT' "$log" >"$log.result"
	if [ -z "$first" ]; then
		first=$log.result
	elif ! cmp -s "$first" "$log.result"; then
		echo "FAIL $name: results differ between +verilator+seed values (X-propagation), SEED=$SEED:"
		diff "$first" "$log.result" | head -20
		status=1
	fi
	echo "ok   $name (+verilator+seed+$xs, SEED=$SEED) in $((t1 - t0))s: $(tail -1 "$log")"
done
[ $status -eq 0 ] && echo "ok   $name: RESULT lines identical for +verilator+seed $xseeds"
exit $status
