#!/bin/sh
# End-to-end tests: libwsehost and wsectl against wsemu-sim (the RTL) and
# wsemu-fast (the functional model); $WSEMU_SIM and $WSEMU_FAST name them.
#   test-e2e.sh BUILD_DIR TILES_ELF MUTATIONS [RTL_BOARD]
# MUTATIONS mutated requests on each model; $RTL_MUTATIONS, if set, on the
# RTL model instead (its simulation takes about 6 ms of CPU a request).
# RTL_BOARD (sim-2x2 or sim-4x4, the default) is the largest board run on
# the RTL model; the functional model runs sim-2x2 and sim-4x4 either way.
set -eu
dir=$1; elf=$2; muts=$3; rtl_board=${4:-sim-4x4}
out=$dir/e2e-out; mkdir -p "$out"
t0=$(date +%s)

# The same on both models of a board: the RTL's (wsemu-sim) and the
# functional one (wsemu-fast, ",model=fast" in the URI).
both() { # MODEL (rtl or fast)
m=$1; q=; b=sim-4x4; [ "$m" = fast ] && q=,model=fast
[ "$m" = rtl ] && b=$rtl_board
n=${b#sim-}; n=${n%x*}; last=$((n - 1))
k=$muts; [ "$m" = rtl ] && k=${RTL_MUTATIONS:-$muts}
"$dir/e2e" sim-2x2 2 2 "$k" "$m"
[ "$b" = sim-2x2 ] || "$dir/e2e" "$b" "$n" "$n" 0 "$m"

# wsectl info: the board's mesh from its DTB.
"$dir/wsectl" -d sim:board=$b$q info > "$out/info.txt"
grep -q "mesh: *$n x $n tiles" "$out/info.txt" || { cat "$out/info.txt"; echo "e2e: FAIL wsectl info ($m)"; exit 1; }

# wsectl run: the mesh test program on every tile; every tile greets.
"$dir/wsectl" -d sim:board=$b$q run "$elf" > "$out/run.txt"
for y in $(seq 0 $last); do for x in $(seq 0 $last); do
  grep -q "^\[$x,$y\] tile $x,$y\$" "$out/run.txt" || \
    { cat "$out/run.txt"; echo "e2e: FAIL console of tile $x,$y ($m)"; exit 1; }
done; done
# ... and on a subset: only those tiles print.
"$dir/wsectl" -d sim:board=$b$q run "$elf" --tiles $last,0:0,$last > "$out/run2.txt"
[ "$(grep -c ' tile ' "$out/run2.txt")" = 2 ] || { cat "$out/run2.txt"; echo "e2e: FAIL --tiles ($m)"; exit 1; }

# wsectl perf: 5 ports per tile, plus the host interface line.
"$dir/wsectl" -d sim:board=sim-2x2$q perf > "$out/perf.txt"
[ "$(grep -c '^[0-9],[0-9] ' "$out/perf.txt")" = 20 ] || { cat "$out/perf.txt"; echo "e2e: FAIL perf ($m)"; exit 1; }
grep -q "^host interface: rx" "$out/perf.txt"

# wsectl selftest on sim-2x2 (its core test is ~175,000 cycles, too slow for
# this stage on the RTL model of sim-4x4), followed by perf in the same
# session, whose SVG heatmap has one cell per tile and four link bars each.
"$dir/wsectl" -d sim:board=sim-2x2$q selftest + perf --svg "$out/perf.svg" > "$out/selftest.txt" || \
  fail "$out/selftest.txt" "selftest sim-2x2 ($m)"
grep -q "selftest: PASS (4 tiles)" "$out/selftest.txt" || fail "$out/selftest.txt" "selftest sim-2x2 ($m)"
xmllint --noout "$out/perf.svg" || fail "$out/perf.svg" "perf --svg: not well-formed ($m)"
[ "$(grep -c '<g class="tile"' "$out/perf.svg")" = 4 ] || fail "$out/perf.svg" "perf --svg: tiles ($m)"
[ "$(grep -c '<rect class="link"' "$out/perf.svg")" = 16 ] || fail "$out/perf.svg" "perf --svg: links ($m)"
}
fail() { cat "$1"; echo "e2e: FAIL $2"; exit 1; }
both rtl
both fast
# The selftest on the functional model of sim-4x4 too.
"$dir/wsectl" -d sim:board=sim-4x4,model=fast selftest > "$out/selftest-fast.txt" || \
  fail "$out/selftest-fast.txt" "selftest sim-4x4 (fast)"
grep -q "selftest: PASS (16 tiles)" "$out/selftest-fast.txt" || fail "$out/selftest-fast.txt" "selftest sim-4x4 (fast)"
# The RTL model's options are refused by the functional model, by name.
rc=0
WSEMU_FAST_OPTS="--fault link:0,1,E" "$dir/wsectl" -d sim:board=sim-2x2,model=fast info > "$out/fastfault.txt" 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "$out/fastfault.txt" "wsemu-fast took --fault"

# Faults (wsemu-sim --fault, through $WSEMU_SIM_OPTS): selftest names the
# broken tile and exits 1.
expect_fault() { # SPEC EXPECTED-LINE
  rc=0
  WSEMU_SIM_OPTS="--quiet --fault $1" "$dir/wsectl" -d sim:board=sim-2x2 selftest > "$out/fault.txt" || rc=$?
  [ "$rc" = 1 ] && grep -q "$2" "$out/fault.txt" && grep -q "selftest: FAIL" "$out/fault.txt" || \
    fail "$out/fault.txt" "selftest with --fault $1 (status $rc)"
}
expect_fault link:0,1,E "^tile 0,1: link east FAIL"
expect_fault dmem:1,0,0x80100400,5 "^tile 1,0: core FAIL (DMEM word 0x80100400"
# A bad fault is refused at start with status 3 and a message.
rc=0
WSEMU_SIM_OPTS="--fault link:0,0,N" "$dir/wsectl" -d sim:board=sim-2x2 info > "$out/badfault.txt" 2>&1 || rc=$?
[ "$rc" = 3 ] && grep -q "has no north link" "$out/badfault.txt" || fail "$out/badfault.txt" "bad --fault (status $rc)"

# A request time-out (-t) that is not a positive number of milliseconds is
# a usage error, before any device is opened; a valid one is taken.
for t in 0 -5 10x; do
  rc=0
  "$dir/wsectl" -d sim:board=sim-2x2 -t "$t" info > "$out/badt.txt" 2>&1 || rc=$?
  [ "$rc" = 2 ] && grep -q "not a time-out" "$out/badt.txt" || fail "$out/badt.txt" "wsectl -t $t (status $rc)"
done
"$dir/wsectl" -t 120000 -d sim:board=sim-2x2 info > "$out/t.txt" 2>&1 && grep -q "mesh: *2 x 2" "$out/t.txt" || \
  fail "$out/t.txt" "wsectl -t 120000"

# wsectl mem: a tile's words after a run in the same session (tiles.elf's
# first word in IMEM is its entry's instruction, as the ELF has it); bad
# tiles, addresses and counts are refused with status 2 and a message, an
# address outside the tile's memories by the device with status 3.
"$dir/wsectl" -d sim:board=sim-2x2 run "$elf" + mem 1,1 0x80000000 2 > "$out/mem.txt" 2>&1 || \
  fail "$out/mem.txt" "wsectl mem"
first=$(od -An -tx4 -j "$(readelf -lW "$elf" | awk '$1 == "LOAD" && $3 == "0x80000000" { print $2; exit }')" \
  -N4 "$elf" | tr -d ' ')
grep -q "^80000000: $first\$" "$out/mem.txt" && [ "$(grep -c '^8000000[04]: ' "$out/mem.txt")" = 2 ] || \
  fail "$out/mem.txt" "wsectl mem: not the ELF's first word ($first)"
for a in "2,0 0x80000000:no tile 2,0" "0,0 0x80000002 1:not aligned" "0,0 0x80000000 0:word count '0'" \
    "0,0 0x80000000 4097:word count '4097'" "0,0 zz:address 'zz'" "x 0x80000000:bad tile 'x'" \
    "0,0,1 0x80000000:bad tile '0,0,1'"; do
  rc=0
  "$dir/wsectl" -d sim:board=sim-2x2 mem ${a%%:*} > "$out/badmem.txt" 2>&1 || rc=$?
  [ "$rc" = 2 ] && grep -q "${a#*:}" "$out/badmem.txt" || fail "$out/badmem.txt" "wsectl mem ${a%%:*} (status $rc)"
done
rc=0
"$dir/wsectl" -d sim:board=sim-2x2 mem 0,0 0x90000000 > "$out/badmem.txt" 2>&1 || rc=$?
[ "$rc" = 3 ] && grep -q "refused" "$out/badmem.txt" || fail "$out/badmem.txt" "wsectl mem outside (status $rc)"

# wsectl trace: an FST waveform of the session (a complete FST starts with
# its header block, type 0).
rm -f "$out/trace.fst"
"$dir/wsectl" -d sim:board=sim-2x2 trace "$out/trace.fst" info > /dev/null 2>&1
[ -s "$out/trace.fst" ] && [ "$(od -A n -N 1 -t x1 "$out/trace.fst" | tr -d ' ')" = 00 ] || \
  { echo "e2e: FAIL wsectl trace"; exit 1; }

echo "test-e2e: PASS ($(( $(date +%s) - t0 )) s)"
