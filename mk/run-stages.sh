#!/bin/bash
# Run make targets one after another as named stages, time each, and print
# a table of wall seconds and CPU seconds (user + system, of the stage and
# everything it ran), with the totals. Stops at the first failing stage and
# exits non-zero.
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

# child_cpu sets CPU to the CPU seconds (user + system) of this shell's
# finished children so far, from the second line of `times` ("XmY.YYYs
# XmY.YYYs"). It must run in the shell whose children count, not in a
# command substitution (which would report its own).
cpu_file=$(mktemp)
trap 'rm -f "$cpu_file"*' EXIT
child_cpu() {
	local f="$cpu_file.$BASHPID"
	times >"$f"
	CPU=$(sed -n 2p "$f" | awk '{ t = 0; for (i = 1; i <= 2; i++) {
		split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] }
		printf "%d\n", t + 0.5 }')
}
row() { printf '%-28s %7ss %8ss  %s' "$1" "$2" "$3" "$4"; }
start=$(date +%s)
cpu_total=0

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
		  child_cpu
		  echo "$r $(elapsed "$t0") $CPU" >"$BUILD/stage-$n.result" ) &
		bg_jobs="$bg_jobs $n:$!"
		continue
		;;
	esac
	echo "=== $title: $s"
	t0=$(date +%s)
	# In a subshell of its own, so that its CPU seconds are the stage's
	# alone: this shell also reaps the background stages as they end.
	rm -f "$cpu_file.stage"
	( $MAKE --no-print-directory "$s"; rc=$?; child_cpu; echo "$CPU" >"$cpu_file.stage"; exit $rc )
	if [ $? -eq 0 ]; then r=ok; else r=FAIL; status=1; fi
	c=$(cat "$cpu_file.stage" 2>/dev/null || echo 0)
	cpu_total=$(( cpu_total + c ))
	results="$results$(row "$s" "$(elapsed "$t0")" "$c" "$r")
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
		read -r r secs cpu <"$BUILD/stage-$n.result"
	else
		r=FAIL; secs=0; cpu=0
	fi
	cpu_total=$(( cpu_total + cpu ))
	if [ "$r" != ok ]; then
		status=1
		echo "=== $title: $n failed; the end of $BUILD/stage-$n.log:"
		tail -40 "$BUILD/stage-$n.log"
	else
		tail -8 "$BUILD/stage-$n.log"
	fi
	results="$results$(row "bg:$n" "$secs" "$cpu" "$r")
"
done
echo "=== $title: stage times"
printf '%-28s %8s %9s  %s\n' stage wall cpu result
printf '%s' "$results"
row total "$(elapsed "$start")" "$cpu_total" "$([ $status -eq 0 ] && echo ok || echo FAIL)"
echo " (cpu: $(( (cpu_total + 30) / 60 )) min)"
exit $status
