#!/bin/sh
# Run make targets one after another as named stages, time each, and print
# a table. Stops at the first failing stage and exits non-zero.
# Usage: run-stages.sh TITLE STAGE...
set -u
title=$1; shift
MAKE=${MAKE:-make}
results=""
status=0
for s in "$@"; do
	echo "=== $title: $s"
	t0=$(date +%s)
	if $MAKE --no-print-directory "$s"; then r=ok; else r=FAIL; status=1; fi
	t1=$(date +%s)
	results="$results$(printf '%-28s %6ss  %s' "$s" $((t1 - t0)) "$r")
"
	[ $status -ne 0 ] && break
done
echo "=== $title: stage times"
printf '%s' "$results"
exit $status
