#!/bin/sh
# Runs a testbench built with an injected bug and expects it to fail on an
# SVA assertion (the "Assertion failed" report of the simulator). Passing,
# or failing only on the scoreboard, fails this check.
# Usage: run-bug.sh NAME BINARY LOG [EXPECTED-ASSERTION-REGEX] [TEST...]
set -u
name=$1; bin=$2; log=$3; want=${4:-.}; shift 4
SEED=${SEED:-1}
export SEED
mkdir -p "$(dirname "$log")"
"$bin" "$@" >"$log" 2>&1
rc=$?
if [ $rc -eq 0 ]; then
	echo "FAIL $name: the build with the injected bug passed (SEED=$SEED); log $log"
	exit 1
fi
hit=$(grep -m1 'Assertion failed' "$log")
if [ -z "$hit" ]; then
	echo "FAIL $name: failed (rc=$rc) but not on an assertion; log $log:"
	tail -5 "$log"
	exit 1
fi
if ! echo "$hit" | grep -Eq "$want"; then
	echo "FAIL $name: failed on an unexpected assertion: $hit"
	exit 1
fi
echo "ok   $name: failed as expected on $(echo "$hit" | sed 's/.*Assertion failed in //; s/: .*//')"
