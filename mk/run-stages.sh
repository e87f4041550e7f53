#!/bin/sh
# Run make targets one after another as named stages, time each, and print
# a table. Stops at the first failing stage and exits non-zero.
# Usage: run-stages.sh TITLE STAGE...
#
# A stage written bg:NAME starts `make NAME` in the background and the next
# stages go on at once; it is for a long single-threaded job (synthesis)
# that uses the core a simulation leaves idle. Its output goes to
# $BUILD/stage-NAME.log, shown if it fails. Every background stage is
# waited for before the table is printed, and counts as failed if it fails;
# a failing foreground stage stops the background ones. A background stage
# must only need files that the stages before it have made, so that two
# makes never build the same file.
set -u
title=$1; shift
MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
results=""
status=0
bg_jobs=""  # name:pid of each background stage

elapsed() { echo $(( $(date +%s) - $1 )); }

# Stop a process and everything it started.
kill_tree() {
	for c in $(pgrep -P "$1" 2>/dev/null); do kill_tree "$c"; done
	kill -TERM "$1" 2>/dev/null
}

for s in "$@"; do
	case $s in
	bg:*)
		n=${s#bg:}
		echo "=== $title: $n (in the background, log $BUILD/stage-$n.log)"
		mkdir -p "$BUILD"
		rm -f "$BUILD/stage-$n.result"
		( t0=$(date +%s)
		  if $MAKE --no-print-directory "$n" >"$BUILD/stage-$n.log" 2>&1; then r=ok; else r=FAIL; fi
		  echo "$r $(elapsed "$t0")" >"$BUILD/stage-$n.result" ) &
		bg_jobs="$bg_jobs $n:$!"
		continue
		;;
	esac
	echo "=== $title: $s"
	t0=$(date +%s)
	if $MAKE --no-print-directory "$s"; then r=ok; else r=FAIL; status=1; fi
	results="$results$(printf '%-28s %6ss  %s' "$s" "$(elapsed "$t0")" "$r")
"
	[ $status -ne 0 ] && break
done

for j in $bg_jobs; do
	n=${j%:*} pid=${j##*:}
	if [ $status -ne 0 ]; then
		kill_tree "$pid"
	fi
	echo "=== $title: waiting for $n"
	wait "$pid"
	if [ -f "$BUILD/stage-$n.result" ]; then
		read -r r secs <"$BUILD/stage-$n.result"
	else
		r=FAIL; secs=0
	fi
	if [ "$r" != ok ]; then
		status=1
		echo "=== $title: $n failed; the end of $BUILD/stage-$n.log:"
		tail -40 "$BUILD/stage-$n.log"
	else
		tail -8 "$BUILD/stage-$n.log"
	fi
	results="$results$(printf '%-28s %6ss  %s' "bg:$n" "$secs" "$r")
"
done
echo "=== $title: stage times"
printf '%s' "$results"
exit $status
