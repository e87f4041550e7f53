#!/bin/bash
# wsetrain across processes on Open MPI (docs/training.md, "Across
# processes: Open MPI"), on the functional model of sim-2x2: mpirun with
# 1 + N ranks trains 196-16-10 with SGD (momentum) and Adam to the
# checkpoint and metrics of one device accumulating the same N * k
# micro-batches, byte for byte; a rank killed mid-step ends the job with
# its rank named, a rank that hangs is named within runtime.timeout_ms, a
# rank whose simulator is killed is named with its device; the checkpoint
# survives them all and resumes with another N to the bits of the
# uninterrupted run; a mismatched mesh and a wrong --num-devices are
# refused. The threads of one process (--num-devices N) give the same
# bits. Environment: WSETRAIN (built with MPI), WSEMU_FAST, TR_FM_DIR,
# WORK, MPI_NS (the N to check, default "1 2 4"), MPI_STEPS (default 4).
set -u
W=${WORK:?}
FM=${TR_FM_DIR:-/usr/share/datasets/fashion-mnist}
NS=${MPI_NS:-1 2 4}
S=${MPI_STEPS:-4}
rm -rf "$W"; mkdir -p "$W"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# The simulators' sockets go under TMPDIR (libwsehost falls back to /tmp
# for a TMPDIR longer than 82 characters): a short one of this run's own,
# so that the simulators of this run are found by it.
TMPDIR=$(mktemp -d /tmp/wsempi.XXXXXX) || { echo "cannot make a directory in /tmp"; exit 2; }
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
if [ "$(id -u)" -eq 0 ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# every run is bounded: a hang fails the test instead of stalling it. The
# KILL 10 s after the TERM is for mpirun itself: Open MPI 4.1's mpirun can
# stay blocked in a futex after a job whose rank failed has ended (all its
# ranks exited and unreaped), and then does not act on the TERM.
mpi() { timeout -k 10 120 mpirun --oversubscribe -np "$@"; }
# mpi_fault DIR OUT N ARGS...: a run that ends in MPI_Abort, to OUT; its
# status, 124 if its ranks outlive 60 s. Open MPI 4.1.4's mpirun races in
# its PMIx server's finalize after an abort: now and then it segfaults
# (status 139) or blocks for good once every rank has exited. What is
# checked is the job's: its ranks (found by their command line: WSETRAIN
# with --model-dir DIR; mpirun's own holds the same words after "mpirun") end,
# and rank 0 says why. An mpirun left 5 s after its last rank is ended
# here, and said so; one whose ranks never start ends at 60 s.
mpi_fault() {
	local dir=$1 out=$2 t=0 gone=0 seen=0 job
	shift 2
	mpirun --oversubscribe -np "$@" > "$out" 2>&1 &
	job=$!
	while kill -0 $job 2> /dev/null; do
		if pgrep -f -- "^$WSETRAIN .*--model-dir $dir( |\$)" > /dev/null; then
			gone=0 seen=1
		else
			gone=$((gone + seen))
		fi
		if [ $gone -ge 50 ] || [ $t -ge 600 ]; then
			pkill -KILL -f -- "^$WSETRAIN .*--model-dir $dir( |\$)"
			kill -KILL $job 2> /dev/null
			wait $job 2> /dev/null
			[ $gone -ge 50 ] || return 124
			echo "    (mpirun stayed 5 s after its ranks had ended, and was killed: Open MPI's abort race)"
			return 1
		fi
		sleep 0.1
		t=$((t + 1))
	done
	wait $job
}

# params OPT K: 196-16-10 with K micro-batches of 8
params() {
	local f=$W/$1-k$2.params
	cat > "$f" <<EOP
model.layers = 196, 16, 10
model.init_seed = 4
data.dir = $FM
data.pool = 2
train.batch_size = 8
train.micro_batches = $2
optimizer.name = $1
optimizer.lr = 0.05
optimizer.momentum = 0.9
runtime.backend = mesh
runtime.device = sim:board=sim-2x2,model=fast
runtime.timeout_ms = 20000
run.checkpoint_steps = 2
EOP
	echo "$f"
}

max=$(for n in $NS; do echo $n; done | sort -n | tail -1)
[ "$max" -ge 2 ] || { echo "MPI_NS must include an N of 2 or more"; exit 2; }
for opt in sgd adam; do
	echo "--- $opt: one device, $max micro-batches a step, $S steps"
	"$WSETRAIN" --params "$(params $opt $max)" --model-dir "$W/$opt-one" --num-steps $S \
		2> "$W/$opt-one.err" || { fail "$opt one device"; cat "$W/$opt-one.err"; }
	for n in $NS; do
		k=$((max / n))
		echo "--- $opt: mpirun -np $((n + 1)), $n devices of $k micro-batches"
		mpi $((n + 1)) "$WSETRAIN" --params "$(params $opt $k)" --model-dir "$W/$opt-mpi$n" \
			--num-steps $S > "$W/$opt-mpi$n.out" 2>&1 || { fail "$opt mpi N=$n"; cat "$W/$opt-mpi$n.out"; }
		grep -q "MemoryX on MPI rank 0, device d on rank d + 1 (ranks 1..$n)" "$W/$opt-mpi$n.out" ||
			fail "$opt N=$n: wsetrain did not say it ran on ranks 1..$n"
		cmp "$W/$opt-one/model.ckpt" "$W/$opt-mpi$n/model.ckpt" ||
			fail "$opt N=$n: checkpoint (weights, optimizer state) differs from one device"
		cmp "$W/$opt-one/metrics.csv" "$W/$opt-mpi$n/metrics.csv" ||
			fail "$opt N=$n: losses differ from one device"
		[ $n -gt 1 ] || continue
		echo "--- $opt: --num-devices $n in one process (threads), $k micro-batches"
		"$WSETRAIN" --params "$(params $opt $k)" --model-dir "$W/$opt-thr$n" --num-devices $n \
			--num-steps $S 2> "$W/$opt-thr$n.err" || { fail "$opt threads N=$n"; cat "$W/$opt-thr$n.err"; }
		cmp "$W/$opt-one/model.ckpt" "$W/$opt-thr$n/model.ckpt" ||
			fail "$opt threads N=$n: checkpoint differs from one device"
	done
done
echo "--- evaluation through the ranks: the numbers of one device"
echo "run.eval_examples = 40" >> "$W/adam-k1.params"
echo "run.eval_examples = 40" >> "$W/adam-k2.params"
"$WSETRAIN" --params "$W/adam-k2.params" --model-dir "$W/adam-one" --mode eval > "$W/eval-one" 2>&1 ||
	fail "eval one device"
mpi 3 "$WSETRAIN" --params "$W/adam-k1.params" --model-dir "$W/adam-one" --mode eval > "$W/eval-mpi" 2>&1 ||
	fail "eval on mpi"
grep '^eval:' "$W/eval-one"
[ -n "$(grep '^eval:' "$W/eval-one")" ] && [ "$(grep '^eval:' "$W/eval-one")" = "$(grep '^eval:' "$W/eval-mpi")" ] ||
	{ fail "eval over 2 ranks differs from one device"; cat "$W/eval-mpi"; }

echo "--- $max devices, rank 2 killed mid-step (step 3 of $S): the job ends, rank 2 named, the checkpoint survives"
p1=$(params sgd 1)
t0=$(date +%s)
WSE_TRAIN_FAULT_MPI_KILL=2:2 mpi_fault "$W/kill" "$W/kill.out" $((max + 1)) "$WSETRAIN" --params "$p1" \
	--model-dir "$W/kill" --num-steps $S
st=$?
t1=$(date +%s)
cat "$W/kill.out" | grep -v '^\[#' | sed 's/^/    /'
[ $st -ne 0 ] && [ $st -ne 124 ] || fail "killed run exited $st, want an error (124: it hung)"
grep -q "rank 2" "$W/kill.out" || fail "the error does not name rank 2"
[ $((t1 - t0)) -le 40 ] || fail "the job took $((t1 - t0)) s to end after the kill (time-out 20 s)"
[ "$(wc -l < "$W/kill/metrics.csv")" -eq 3 ] || fail "metrics.csv should hold steps 1 and 2"

echo "--- resume with N = $((max / 2)) (2 micro-batches a step): the bits of the uninterrupted run"
mpi $((max / 2 + 1)) "$WSETRAIN" --params "$(params sgd 2)" --model-dir "$W/kill" --num-steps $S > "$W/resume.out" 2>&1 ||
	{ fail "resume"; cat "$W/resume.out"; }
grep -q "resuming from .* at step 2" "$W/resume.out" || fail "did not resume at step 2"
cmp "$W/sgd-one/model.ckpt" "$W/kill/model.ckpt" || fail "resumed checkpoint differs from the uninterrupted run"
cmp "$W/sgd-one/metrics.csv" "$W/kill/metrics.csv" || fail "resumed losses differ from the uninterrupted run"

echo "--- rank 2 hangs mid-step: rank 0 names it within runtime.timeout_ms (2 s)"
sed 's/^runtime.timeout_ms = .*/runtime.timeout_ms = 2000/' "$p1" > "$W/hang.params"
t0=$(date +%s)
WSE_TRAIN_FAULT_MPI_KILL=2:2:stop mpi_fault "$W/hang" "$W/hang.out" $((max + 1)) "$WSETRAIN" \
	--params "$W/hang.params" --model-dir "$W/hang" --num-steps $S
st=$?
t1=$(date +%s)
grep -v '^\[#' "$W/hang.out" | sed 's/^/    /'
[ $st -ne 0 ] && [ $st -ne 124 ] || fail "hung run exited $st, want an error (124: it hung)"
grep -q "rank 2: running the pass: no answer within 2000 ms" "$W/hang.out" ||
	fail "the error does not name rank 2 and the time-out"
[ $((t1 - t0)) -le 30 ] || fail "the job took $((t1 - t0)) s to end (time-out 2 s)"
"$WSETRAIN" --params "$(params sgd $max)" --model-dir "$W/hang" --num-steps $S > "$W/hang-resume.out" 2>&1 ||
	{ fail "resume after the hang, one device in the process"; cat "$W/hang-resume.out"; }
cmp "$W/sgd-one/model.ckpt" "$W/hang/model.ckpt" || fail "resumed after the hang: checkpoint differs"

echo "--- a rank's simulator killed mid-run: rank 0 names the device and its rank, the checkpoint resumes"
mpi_fault "$W/lost" "$W/lost.out" 3 "$WSETRAIN" --params "$p1" --model-dir "$W/lost" --num-steps 100000 &
job=$!
for i in $(seq 300); do
	[ -f "$W/lost/metrics.csv" ] && [ "$(wc -l < "$W/lost/metrics.csv")" -ge 5 ] && break
	sleep 0.1
done
sim=$(pgrep -n -f -- "--socket $TMPDIR/")  # the newest: this run's, not a leftover
[ -n "$sim" ] && kill -9 "$sim" || fail "no simulator of the run found to kill"
wait $job
st=$?
grep '^wsetrain: device' "$W/lost.out" | sed 's/^/    /'
[ $st -ne 0 ] && [ $st -ne 124 ] || fail "run with a lost device exited $st, want an error (124: it hung)"
grep -Eq "^wsetrain: device [01] of 2 \(sim:board=sim-2x2,model=fast\), micro-batch [0-9]+: rank [12]: mesh backend: .*device is gone" \
	"$W/lost.out" || { fail "the lost device and its rank are not named"; cat "$W/lost.out"; }
# the checkpoint loads: its step, from a run of no steps
c=$("$WSETRAIN" --params "$(params sgd 2)" --model-dir "$W/lost" --num-steps 0 2> /dev/null |
	sed -n 's/^train: step \([0-9]*\),.*/\1/p')
if [ -n "$c" ] && [ "$c" -ge 2 ]; then
	mpi 2 "$WSETRAIN" --params "$(params sgd 2)" --model-dir "$W/lost" --num-steps $((c + 2)) > /dev/null 2>&1 ||
		fail "resume after the lost device"
	"$WSETRAIN" --params "$(params sgd 2)" --model-dir "$W/lost-ref" --num-steps $((c + 2)) 2> /dev/null > /dev/null ||
		fail "reference run to step $((c + 2))"
	cmp "$W/lost-ref/model.ckpt" "$W/lost/model.ckpt" || fail "resumed after the lost device: checkpoint differs"
else
	fail "no checkpoint of step 2 or later after the lost device (step '$c')"
fi

echo "--- a mismatched mesh is refused before training, the difference named"
pm=$W/mesh.params
sed 's/^runtime.device = .*/runtime.devices = sim:board=sim-2x2,model=fast, sim:board=sim-4x4,model=fast/' "$p1" > "$pm"
mpi_fault "$W/mesh" "$W/mesh.out" 3 "$WSETRAIN" --params "$pm" --model-dir "$W/mesh" --num-steps 2 &&
	fail "a 4x4 device beside a 2x2 one was accepted"
grep -q "device 1 (sim:board=sim-4x4,model=fast) has a 4x4 mesh .* but device 0 (sim:board=sim-2x2,model=fast) has 2x2" \
	"$W/mesh.out" || { fail "the mesh mismatch is not named"; cat "$W/mesh.out"; }
[ ! -e "$W/mesh/model.ckpt" ] || fail "a checkpoint was written"

echo "--- --num-devices that is not the ranks' count is refused"
mpi_fault "$W/nd" "$W/nd.out" 3 "$WSETRAIN" --params "$p1" --model-dir "$W/nd" --num-steps 2 --num-devices 3 &&
	fail "--num-devices 3 on 3 ranks was accepted"
grep -q -- "--num-devices 3, but mpirun started 3 ranks: one for MemoryX and 2 devices" "$W/nd.out" ||
	{ fail "--num-devices mismatch message"; cat "$W/nd.out"; }

sleep 1
left=$(pgrep -f -- "--socket $TMPDIR/" | wc -l)
[ "$left" -eq 0 ] || fail "$left simulators outlived the runs"
if [ $fails -ne 0 ]; then
	echo "test_wsetrain_mpi: $fails failure(s)"
	exit 1
fi
echo "test_wsetrain_mpi: all passed"
