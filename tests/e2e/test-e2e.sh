#!/bin/sh
# End-to-end tests: libwsehost and wsectl against wsemu-sim.
#   test-e2e.sh BUILD_DIR TILES_ELF MUTATIONS
set -eu
dir=$1; elf=$2; muts=$3
out=$dir/e2e-out; mkdir -p "$out"
t0=$(date +%s)

"$dir/e2e" sim-2x2 2 2 "$muts"
"$dir/e2e" sim-4x4 4 4 0

# wsectl info: the board's mesh from its DTB.
"$dir/wsectl" -d sim:board=sim-4x4 info > "$out/info.txt"
grep -q "mesh: *4 x 4 tiles" "$out/info.txt" || { cat "$out/info.txt"; echo "e2e: FAIL wsectl info"; exit 1; }

# wsectl run: the mesh test program on all 16 tiles; every tile greets.
"$dir/wsectl" -d sim:board=sim-4x4 run "$elf" > "$out/run.txt"
for y in 0 1 2 3; do for x in 0 1 2 3; do
  grep -q "^\[$x,$y\] tile $x,$y\$" "$out/run.txt" || \
    { cat "$out/run.txt"; echo "e2e: FAIL console of tile $x,$y"; exit 1; }
done; done
# ... and on a subset: only those tiles print.
"$dir/wsectl" -d sim:board=sim-4x4 run "$elf" --tiles 1,2:3,0 > "$out/run2.txt"
[ "$(grep -c ' tile ' "$out/run2.txt")" = 2 ] || { cat "$out/run2.txt"; echo "e2e: FAIL --tiles"; exit 1; }

# wsectl perf: 5 ports per tile, plus the host interface line.
"$dir/wsectl" -d sim:board=sim-2x2 perf > "$out/perf.txt"
[ "$(grep -c '^[0-9],[0-9] ' "$out/perf.txt")" = 20 ] || { cat "$out/perf.txt"; echo "e2e: FAIL perf"; exit 1; }
grep -q "^host interface: rx" "$out/perf.txt"

# wsectl selftest on both boards.
"$dir/wsectl" -d sim:board=sim-2x2 selftest | tee "$out/selftest.txt" | grep -q "selftest: PASS"
"$dir/wsectl" -d sim:board=sim-4x4 selftest | grep -q "selftest: PASS (16 tiles)"

echo "test-e2e: PASS ($(( $(date +%s) - t0 )) s)"
