#!/bin/bash
# Run one step of the FPGA flow bounded in time, at nice 10 at least (not
# lowered further when make already runs niced), and record how
# it went in OUTDIR/times: "<ok|timeout|fail> <wall seconds> <CPU seconds>"
# (CPU: user + system of the step and what it ran).
# Usage: timed.sh OUTDIR TIMEOUT_S LABEL COMMAND...
# Exits 0 when the step succeeded, 2 when it timed out, 1 when it failed
# (after the end of OUTDIR/step.out, its standard output and error).
set -u
out=$1 limit=$2 label=$3; shift 3
mkdir -p "$out"
rm -f "$out/times"
t0=$(date +%s)
nice=""
[ "$(nice)" -lt 10 ] && nice="nice -n $(( 10 - $(nice) ))"
timeout "$limit" $nice "$@" >"$out/step.out" 2>&1
rc=$?
wall=$(( $(date +%s) - t0 ))
# (`times` itself in this shell: in a command substitution it would
# report the subshell's children, none.)
times >"$out/shell-times"
cpu=$(sed -n 2p "$out/shell-times" | awk '{ t = 0; for (i = 1; i <= 2; i++) {
	split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] } printf "%d\n", t + 0.5 }')
case $rc in
0)   r=ok ;;
124) r=timeout ;;
*)   r=fail ;;
esac
echo "$r $wall $cpu" >"$out/times"
echo "$label: $r, ${wall} s wall, ${cpu} s CPU"
case $r in
ok) exit 0 ;;
timeout) exit 2 ;;
esac
grep -v '^Warning: Replacing memory' "$out/step.out" | tail -20
exit 1
