#!/bin/bash
# wsetrain on the mesh backend (wsemu-sim): runs killed with SIGKILL during
# training and during a checkpoint write resume to the same checkpoint,
# byte for byte, as an uninterrupted run, and leave no simulator behind;
# on the functional model, 2 devices (killed and resumed too) give the
# checkpoint of one with 2 micro-batches;
# a model that does not fit and a device that cannot be opened give clear
# errors. Environment: WSETRAIN, WSEMU_SIM, WSEMU_FAST, TR_FM_DIR, WORK, and
# WSE_TEST_DEVICE (default sim:board=sim-2x2, the RTL model).
set -u
W=${WORK:?}
FM=${TR_FM_DIR:-/usr/share/datasets/fashion-mnist}
rm -rf "$W"; mkdir -p "$W"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

cat > "$W/p.params" <<EOP
model.layers = 196, 8, 10
model.init_seed = 4
data.dir = $FM
data.pool = 2
train.batch_size = 8
optimizer.name = sgd
optimizer.lr = 0.1
optimizer.momentum = 0.9
runtime.backend = mesh
runtime.device = ${WSE_TEST_DEVICE:-sim:board=sim-2x2}
runtime.timeout_ms = 300000
run.checkpoint_steps = 2
run.eval_examples = 16
EOP
N=4
# The simulators this test's runs spawn, and only those (other tests may
# run simulators beside it): libwsehost makes their sockets under $TMPDIR,
# which is the test's own, and short (libwsehost falls back to /tmp for a
# TMPDIR longer than 82 characters, too long for a socket's path).
TMPDIR=$(mktemp -d /tmp/wsemesh.XXXXXX) || { echo "cannot make a directory in /tmp"; exit 2; }
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
sims() { pgrep -f -- "--socket $TMPDIR/" | wc -l; }
case ${WSE_TEST_DEVICE:-} in
*model=fast*) model="wsemu-fast, the functional model" ;;
*) model="wsemu-sim, the RTL model" ;;
esac
before=$(sims)

echo "--- uninterrupted run, $N steps"
"$WSETRAIN" --params "$W/p.params" --model-dir "$W/a" --num-steps $N 2> "$W/a.err" || { fail "run a"; cat "$W/a.err"; }
grep -q "backend mesh on .* ($model)" "$W/a.err" || fail "run a did not say it ran on $model"
grep -q "cycles/step" "$W/a.err" || fail "run a did not show the cycles per step"
"$WSETRAIN" --params "$W/p.params" --model-dir "$W/a" --mode eval > "$W/a.eval" 2>&1 || fail "eval"
cat "$W/a.eval"
grep -q "eval: step $N, 16 test examples.*(backend mesh)" "$W/a.eval" || fail "eval output"

echo "--- SIGKILL during training (step 3), resume"
WSE_TRAIN_FAULT_KILL_STEP=3 "$WSETRAIN" --params "$W/p.params" --model-dir "$W/b" --num-steps $N 2> "$W/b1.err"
st=$?; [ $st -eq 137 ] || fail "killed run exited $st, want 137 (SIGKILL)"
sleep 1
[ "$(sims)" -eq "$before" ] || fail "a simulator outlived the killed wsetrain"
"$WSETRAIN" --params "$W/p.params" --model-dir "$W/b" --num-steps $N 2> "$W/b2.err" || { fail "resume b"; cat "$W/b2.err"; }
grep -q "resuming from .* at step 2" "$W/b2.err" || fail "b did not resume at step 2"
cmp "$W/a/model.ckpt" "$W/b/model.ckpt" || fail "resumed checkpoint differs from the uninterrupted run"

echo "--- SIGKILL during the checkpoint write of step 4, resume"
WSE_TRAIN_FAULT_CKPT_KILL=4:3000 "$WSETRAIN" --params "$W/p.params" --model-dir "$W/c" --num-steps $N 2> "$W/c1.err"
st=$?; [ $st -eq 137 ] || fail "killed run exited $st, want 137 (SIGKILL)"
sleep 1
[ "$(sims)" -eq "$before" ] || fail "a simulator outlived the killed wsetrain"
"$WSETRAIN" --params "$W/p.params" --model-dir "$W/c" --num-steps $N 2> "$W/c2.err" || { fail "resume c"; cat "$W/c2.err"; }
grep -q "resuming from .* at step 2" "$W/c2.err" || fail "c did not resume at step 2"
cmp "$W/a/model.ckpt" "$W/c/model.ckpt" || fail "resumed checkpoint differs from the uninterrupted run"

case ${WSE_TEST_DEVICE:-} in
*model=fast*)
	echo "--- 2 devices (--num-devices 2) = 1 device with 2 micro-batches; SIGKILL (step 3), resume"
	sed 's/^train.batch_size = .*/&\ntrain.micro_batches = 2/' "$W/p.params" > "$W/mb2.params"
	"$WSETRAIN" --params "$W/mb2.params" --model-dir "$W/m2" --num-steps $N 2> "$W/m2.err" || { fail "run m2"; cat "$W/m2.err"; }
	"$WSETRAIN" --params "$W/p.params" --model-dir "$W/d2" --num-steps $N --num-devices 2 2> "$W/d2.err" ||
		{ fail "run d2"; cat "$W/d2.err"; }
	grep -q "backend mesh on 2 devices of .* ($model)" "$W/d2.err" || fail "run d2 did not say it ran on 2 devices"
	cmp "$W/m2/model.ckpt" "$W/d2/model.ckpt" || fail "2 devices: checkpoint differs from the 2 micro-batch run"
	WSE_TRAIN_FAULT_KILL_STEP=3 "$WSETRAIN" --params "$W/p.params" --model-dir "$W/e2" --num-steps $N --num-devices 2 2> "$W/e1.err"
	st=$?; [ $st -eq 137 ] || fail "killed 2-device run exited $st, want 137 (SIGKILL)"
	sleep 1
	[ "$(sims)" -eq "$before" ] || fail "a simulator outlived the killed 2-device wsetrain"
	"$WSETRAIN" --params "$W/p.params" --model-dir "$W/e2" --num-steps $N --num-devices 2 2> "$W/e2.err" ||
		{ fail "resume e2"; cat "$W/e2.err"; }
	grep -q "resuming from .* at step 2" "$W/e2.err" || fail "e2 did not resume at step 2"
	cmp "$W/m2/model.ckpt" "$W/e2/model.ckpt" || fail "2 devices: resumed checkpoint differs"
	;;
esac

echo "--- bad inputs"
sed "s/^model.layers = .*/model.layers = 196, 4096, 10/; s/^train.batch_size = .*/train.batch_size = 256/" \
	"$W/p.params" > "$W/big.params"
"$WSETRAIN" --params "$W/big.params" --model-dir "$W/x" --num-steps 1 2> "$W/big.err"; st=$?
[ $st -eq 1 ] || fail "too big a model exited $st, want 1"
grep -q "model does not fit the mesh: each tile needs [0-9]* bytes of DMEM.* [0-9]* are available" "$W/big.err" ||
	fail "no bytes needed/available in: $(cat "$W/big.err")"
grep "does not fit" "$W/big.err"
sed 's/^runtime.device = .*/runtime.device = sim:attach=\/nonexistent\/wse.sock/' "$W/p.params" > "$W/nodev.params"
"$WSETRAIN" --params "$W/nodev.params" --model-dir "$W/y" --num-steps 1 2> "$W/nodev.err"; st=$?
[ $st -eq 1 ] || fail "missing device exited $st, want 1"
grep -q "cannot open device sim:attach=/nonexistent/wse.sock" "$W/nodev.err" || fail "no device message: $(cat "$W/nodev.err")"
head -1 "$W/nodev.err"
[ "$(sims)" -eq "$before" ] || fail "simulators left behind"

if [ $fails -ne 0 ]; then echo "test_wsetrain_mesh: $fails failure(s)"; exit 1; fi
echo "test_wsetrain_mesh: all passed"
