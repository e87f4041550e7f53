#!/bin/sh
# bench-sim: the functional model (wsemu-fast) against the RTL model
# (wsemu-sim's Verilator benchmark model of sim-4x4), docs/wsemu-fast.md.
#   bench_sim.sh WSETRAIN BENCH_TRAIN WORKDIR FM_DIR STEPS
# $WSEMU_SIM, $WSEMU_SIM_DIR and $WSEMU_FAST name the models. Prints:
#   sim.fast_speedup                 wall time of STEPS steps of 196-64-10,
#                                    RTL over fast, in one run
#   sim.fast_step_seconds_196_64_10  wall seconds per step on wsemu-fast
#   sim.fast_cycles_per_second_4x4   model cycles per CPU-second of
#   sim.fast_cycles_per_second_8x8   wsemu-fast while training (sim-8x8:
#                                    the same model on 64 tiles)
#   sim.load_elf_ms, sim.fast_load_elf_ms  opening the device, loading the
#                                    MLP kernel on every tile, writing routes
set -eu
wsetrain=$1; bench=$2; w=$3; fm=$4; steps=$5
rm -rf "$w"; mkdir -p "$w"

params() { # FILE DEVICE MESH
  cat > "$1" <<EOP
model.layers = 196, 64, 10
model.init_seed = 1
data.dir = $fm
data.pool = 2
data.shuffle = 1
data.shuffle_seed = 1
train.batch_size = 32
optimizer.name = adam
optimizer.lr = 0.002
runtime.backend = mesh
runtime.device = $2
runtime.mesh = $3
run.checkpoint_steps = 100000
EOP
}
now() { date +%s.%N; }
# run NAME DEVICE MESH: STEPS steps; the wall seconds in $w/NAME.s, the
# server's last line in $w/NAME.err
run() {
  params "$w/$1.params" "$2" "$3"
  t0=$(now)
  "$wsetrain" --params "$w/$1.params" --model-dir "$w/$1" --num-steps "$steps" 2> "$w/$1.err" >/dev/null || \
    { cat "$w/$1.err"; echo "bench-sim: $1 failed"; exit 1; }
  t1=$(now)
  echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }' > "$w/$1.s"
}
cps() { sed -n 's/.*: \([0-9]*\) cycles per CPU-second.*/\1/p' "$w/$1.err" | tail -1; }

run rtl sim:board=sim-4x4 4x4
run fast sim:board=sim-4x4,model=fast 4x4
run fast8 sim:board=sim-8x8,model=fast 8x8
# the same bits on both: the last losses of the two runs
l1=$(tail -1 "$w/rtl/metrics.csv" | cut -d, -f2); l2=$(tail -1 "$w/fast/metrics.csv" | cut -d, -f2)
[ "$l1" = "$l2" ] || { echo "bench-sim: RTL loss $l1, functional model $l2 after $steps steps"; exit 1; }
rtl=$(cat "$w/rtl.s"); fast=$(cat "$w/fast.s")
echo "$steps steps of 196-64-10 (batch 32): RTL benchmark model $rtl s, wsemu-fast $fast s, last loss $l1 on both"
echo "$rtl $fast" | awk '{ printf "BENCH sim.fast_speedup %.1f ratio\n", $1 / $2 }'
echo "$fast $steps" | awk '{ printf "BENCH sim.fast_step_seconds_196_64_10 %.4f s\n", $1 / $2 }'
echo "BENCH sim.fast_cycles_per_second_4x4 $(cps fast) cycles/s"
echo "BENCH sim.fast_cycles_per_second_8x8 $(cps fast8) cycles/s"
WSE_BENCH_URI=sim:board=sim-4x4 "$bench" load sim.load_elf_ms
WSE_BENCH_URI=sim:board=sim-4x4,model=fast "$bench" load sim.fast_load_elf_ms
