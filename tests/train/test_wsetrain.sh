#!/bin/bash
# wsetrain on the host-reference backend: bad inputs give clear errors, a
# short run reduces the loss, and runs killed (SIGKILL) during training and
# during a checkpoint write resume to the same final checkpoint, byte for
# byte, as an uninterrupted run. A model on .npy files trains, and bad
# files are refused with the file, offset and problem named.
# Environment: WSETRAIN (the binary), TR_FM_DIR (dataset), WORK (scratch).
set -u
W=${WORK:?}
FM=${TR_FM_DIR:-/usr/share/datasets/fashion-mnist}
rm -rf "$W"; mkdir -p "$W"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

cat > "$W/p.params" <<EOP
# test model: 196-24-10 on pooled images, SGD with momentum
model.layers = 196, 24, 10
model.init_seed = 3
data.dir = $FM
data.pool = 2
data.shuffle = 1
data.shuffle_seed = 11
train.batch_size = 24
optimizer.name = sgd
optimizer.lr = 0.1
optimizer.momentum = 0.9
runtime.mesh = 4x4
run.checkpoint_steps = 10
run.eval_examples = 1000
EOP

# expect STATUS NEEDLE CMD...: exit status and a message on stderr
expect() {
	local want=$1 needle=$2; shift 2
	"$@" > "$W/out" 2> "$W/err"; local st=$?
	if [ $st -ne "$want" ]; then fail "'$*' exited $st, want $want"; cat "$W/err"; return; fi
	if ! grep -qF -- "$needle" "$W/err"; then fail "'$*': no '$needle' in: $(cat "$W/err")"; return; fi
	echo "ok ($st): $(head -1 "$W/err")"
}

echo "--- bad inputs"
expect 2 "--params and --model-dir are required" "$WSETRAIN" --model-dir "$W/x"
expect 2 "--num-steps is required" "$WSETRAIN" --params "$W/p.params" --model-dir "$W/x"
expect 2 "must be train or eval" "$WSETRAIN" --params "$W/p.params" --model-dir "$W/x" --mode fly
expect 2 "not a non-negative integer" "$WSETRAIN" --params "$W/p.params" --model-dir "$W/x" --num-steps ten
expect 2 "--num-devices '0' is not an integer 1..64" "$WSETRAIN" --params "$W/p.params" --model-dir "$W/x" --num-steps 5 --num-devices 0
{ cat "$W/p.params"; echo "runtime.devices = sim:board=sim-2x2, sim:board=sim-2x2"; } > "$W/l2.params"
expect 1 "num_devices 3, but runtime.devices lists 2 devices" "$WSETRAIN" --params "$W/l2.params" --model-dir "$W/x" --num-steps 5 --num-devices 3
sed 's/^optimizer.lr = .*/optimizer.lr = fast/' "$W/p.params" > "$W/bad.params"
expect 1 "bad.params:10: optimizer.lr = 'fast'" "$WSETRAIN" --params "$W/bad.params" --model-dir "$W/x" --num-steps 5
expect 1 "cannot open" "$WSETRAIN" --params "$W/missing.params" --model-dir "$W/x" --num-steps 5
{ cat "$W/p.params"; echo "model.sparsity = 1"; } > "$W/sp1.params"
expect 1 "model.sparsity = '1': must be a number in [0, 1)" "$WSETRAIN" --params "$W/sp1.params" --model-dir "$W/x" --num-steps 5
mkdir -p "$W/fm-missing" "$W/fm-trunc" "$W/fm-magic"
sed "s|^data.dir = .*|data.dir = $W/fm-missing|" "$W/p.params" > "$W/nodata.params"
expect 1 "fm-missing/train-images-idx3-ubyte.gz: cannot open" "$WSETRAIN" --params "$W/nodata.params" --model-dir "$W/x" --num-steps 5
cp "$FM"/*.gz "$W/fm-trunc/"; head -c 100000 "$FM/train-images-idx3-ubyte.gz" > "$W/fm-trunc/train-images-idx3-ubyte.gz"
sed "s|^data.dir = .*|data.dir = $W/fm-trunc|" "$W/p.params" > "$W/trunc.params"
expect 1 "corrupt or truncated gzip data" "$WSETRAIN" --params "$W/trunc.params" --model-dir "$W/x" --num-steps 5
cp "$FM"/*.gz "$W/fm-magic/"; gzip -dc "$FM/train-labels-idx1-ubyte.gz" | (printf '\0\0\x08\x09'; tail -c +5) | gzip -1 > "$W/fm-magic/train-labels-idx1-ubyte.gz"
sed "s|^data.dir = .*|data.dir = $W/fm-magic|" "$W/p.params" > "$W/magic.params"
expect 1 "IDX magic 0x00000809, expected 0x00000801" "$WSETRAIN" --params "$W/magic.params" --model-dir "$W/x" --num-steps 5
expect 1 "no checkpoint" "$WSETRAIN" --params "$W/p.params" --model-dir "$W/empty" --mode eval

N=60
echo "--- uninterrupted run, $N steps"
"$WSETRAIN" --params "$W/p.params" --model-dir "$W/a" --num-steps $N 2> "$W/a.err" || { fail "run a"; cat "$W/a.err"; }
tail -1 "$W/a.err"
first=$(awk -F, 'NR>1 && NR<=11 {s+=$2} END {printf "%.4f", s/10}' "$W/a/metrics.csv")
last=$(awk -F, 'NR>1 {l[NR]=$2} END {for (k=NR-9;k<=NR;k++) s+=l[k]; printf "%.4f", s/10}' "$W/a/metrics.csv")
echo "mean loss of steps 1-10: $first, of the last 10 steps: $last"
awk -v a="$first" -v b="$last" 'BEGIN {exit !(b < a - 0.5)}' || fail "loss did not fall by 0.5"
[ "$(wc -l < "$W/a/metrics.csv")" -eq $((N + 1)) ] || fail "metrics.csv has $(wc -l < "$W/a/metrics.csv") lines"
grep -q "<polyline" "$W/a/curves.svg" || fail "no curves.svg"
"$WSETRAIN" --params "$W/p.params" --model-dir "$W/a" --mode eval > "$W/a.eval" 2>&1 || fail "eval"
cat "$W/a.eval"
grep -q "eval: step $N, 1000 test examples" "$W/a.eval" || fail "eval output"

echo "--- SIGKILL during training (step 27), resume"
WSE_TRAIN_FAULT_KILL_STEP=27 "$WSETRAIN" --params "$W/p.params" --model-dir "$W/b" --num-steps $N 2> "$W/b1.err"
st=$?; [ $st -eq 137 ] || fail "killed run exited $st, want 137 (SIGKILL)"
"$WSETRAIN" --params "$W/p.params" --model-dir "$W/b" --num-steps $N 2> "$W/b2.err" || { fail "resume b"; cat "$W/b2.err"; }
grep -q "resuming from .* at step 20" "$W/b2.err" || fail "b did not resume at step 20"
cmp "$W/a/model.ckpt" "$W/b/model.ckpt" || fail "resumed checkpoint differs from the uninterrupted run"
cmp "$W/a/metrics.csv" "$W/b/metrics.csv" || fail "resumed metrics differ"

echo "--- 2 devices (--num-devices 2, or a list of 2) = 1 device with 2 micro-batches"
sed 's/^train.batch_size = .*/&\ntrain.micro_batches = 2/' "$W/p.params" > "$W/mb2.params"
"$WSETRAIN" --params "$W/mb2.params" --model-dir "$W/m2" --num-steps 20 2> "$W/m2.err" || { fail "run m2"; cat "$W/m2.err"; }
"$WSETRAIN" --params "$W/p.params" --model-dir "$W/d2" --num-steps 20 --num-devices 2 2> "$W/d2.err" || { fail "run d2"; cat "$W/d2.err"; }
"$WSETRAIN" --params "$W/l2.params" --model-dir "$W/l2" --num-steps 20 2> "$W/l2.err" || { fail "run l2"; cat "$W/l2.err"; }
tail -1 "$W/d2.err"
for r in d2 l2; do
	cmp "$W/m2/model.ckpt" "$W/$r/model.ckpt" || fail "$r: checkpoint differs from the 2 micro-batch run"
	cmp <(cut -d, -f1-3 "$W/m2/metrics.csv") <(cut -d, -f1-3 "$W/$r/metrics.csv") || fail "$r: losses differ"
done
grep -q "^20," "$W/d2/metrics.csv" || fail "d2: no step 20 in metrics.csv"
cp -r "$W/m2" "$W/r2"
"$WSETRAIN" --params "$W/mb2.params" --model-dir "$W/m2" --num-steps 30 2> "$W/m2.err" || { fail "run m2 to 30"; cat "$W/m2.err"; }
"$WSETRAIN" --params "$W/p.params" --model-dir "$W/r2" --num-steps 30 --num-devices 2 2> "$W/r2.err" || { fail "resume r2"; cat "$W/r2.err"; }
grep -q "resuming from .* at step 20" "$W/r2.err" || fail "r2 did not resume at step 20"
cmp "$W/m2/model.ckpt" "$W/r2/model.ckpt" || fail "1 device's checkpoint resumed on 2 devices differs"

echo "--- SIGKILL during the checkpoint write of step 30, resume (MemoryX file-backed)"
{ cat "$W/p.params"; echo "runtime.memoryx_file = memoryx.bin"; } > "$W/pf.params"
WSE_TRAIN_FAULT_CKPT_KILL=30:5000 "$WSETRAIN" --params "$W/pf.params" --model-dir "$W/c" --num-steps $N 2> "$W/c1.err"
st=$?; [ $st -eq 137 ] || fail "killed run exited $st, want 137 (SIGKILL)"
[ -f "$W/c/model.ckpt.tmp" ] || fail "no partial temporary checkpoint left by the kill"
[ -f "$W/c/memoryx.bin" ] || fail "no file-backed MemoryX store"
"$WSETRAIN" --params "$W/pf.params" --model-dir "$W/c" --num-steps $N 2> "$W/c2.err" || { fail "resume c"; cat "$W/c2.err"; }
grep -q "resuming from .* at step 20" "$W/c2.err" || fail "c did not resume at step 20"
cmp "$W/a/model.ckpt" "$W/c/model.ckpt" || fail "resumed checkpoint differs from the uninterrupted run"

echo "--- a corrupt checkpoint is refused, not overwritten"
cp "$W/a/model.ckpt" "$W/ck-good"
mkdir -p "$W/d"; head -c 3000 "$W/a/model.ckpt" > "$W/d/model.ckpt"
expect 1 "truncated" "$WSETRAIN" --params "$W/p.params" --model-dir "$W/d" --num-steps $((N + 5))
[ "$(stat -c %s "$W/d/model.ckpt")" -eq 3000 ] || fail "corrupt checkpoint was overwritten"

echo "--- a model on .npy files (data.format = npy)"
# uint8 inputs [240, 16] and int64 labels: the class counts the first two
# inputs above 127; files as numpy.save writes them (version 1.0 header)
python3 - "$W" <<'EOPY' || fail "writing .npy files"
import struct, sys
w = sys.argv[1]
def npy(name, descr, shape, data):
    d = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    d += " " * (63 - (10 + len(d)) % 64) + "\n"
    with open(w + "/" + name, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(d)) + d.encode() + data)
s, x, y = 7, [], []
for e in range(240):
    row = []
    for k in range(16):
        s = (s * 1103515245 + 12345) % 2**31
        row.append(s >> 23)
    x += row
    y.append((row[0] > 127) + (row[1] > 127))
npy("x.npy", "|u1", "(240, 16)", bytes(x))
npy("y.npy", "<i8", "(240,)", struct.pack("<240q", *y))
npy("y5.npy", "<i8", "(240,)", struct.pack("<240q", *(y[:100] + [5] + y[101:])))
npy("xt.npy", "|u1", "(240, 16)", bytes(x[:1000]))
EOPY
cat > "$W/npy.params" <<EOP
model.layers = 16, 24, 3
data.format = npy
data.train_x = $W/x.npy
data.train_y = $W/y.npy
data.test_x = $W/x.npy
data.test_y = $W/y.npy
data.shuffle = 1
train.batch_size = 16
optimizer.name = adam
optimizer.lr = 0.01
run.eval_examples = 0
EOP
"$WSETRAIN" --params "$W/npy.params" --model-dir "$W/n" --num-steps 150 2> "$W/n.err" || { fail "npy run"; cat "$W/n.err"; }
tail -1 "$W/n.err"
first=$(awk -F, 'NR>1 && NR<=11 {s+=$2} END {printf "%.4f", s/10}' "$W/n/metrics.csv")
last=$(awk -F, 'NR>1 {l[NR]=$2} END {for (k=NR-9;k<=NR;k++) s+=l[k]; printf "%.4f", s/10}' "$W/n/metrics.csv")
echo "npy: mean loss of steps 1-10: $first, of the last 10 steps: $last"
awk -v a="$first" -v b="$last" 'BEGIN {exit !(b < a - 0.3)}' || fail "npy: loss did not fall by 0.3"
"$WSETRAIN" --params "$W/npy.params" --model-dir "$W/n" --mode eval > "$W/n.eval" 2>&1 || fail "npy eval"
cat "$W/n.eval"
grep -q "eval: step 150, 240 test examples" "$W/n.eval" || fail "npy eval output"
sed "s|^data.train_y = .*|data.train_y = $W/y5.npy|" "$W/npy.params" > "$W/npy5.params"
expect 1 "y5.npy: offset 928: label 5 of example 100 outside 0..2" "$WSETRAIN" --params "$W/npy5.params" --model-dir "$W/x" --num-steps 5
sed "s|^data.train_x = .*|data.train_x = $W/xt.npy|" "$W/npy.params" > "$W/npyt.params"
expect 1 "xt.npy: offset 1128: truncated: 1000 data bytes, the shape needs 3840" "$WSETRAIN" --params "$W/npyt.params" --model-dir "$W/x" --num-steps 5
sed "s|^model.layers = .*|model.layers = 17, 24, 3|" "$W/npy.params" > "$W/npyw.params"
expect 1 "x.npy: examples have 16 inputs, but the model's input width (model.layers' first) is 17" "$WSETRAIN" --params "$W/npyw.params" --model-dir "$W/x" --num-steps 5

if [ $fails -ne 0 ]; then echo "test_wsetrain: $fails failure(s)"; exit 1; fi
echo "test_wsetrain: all passed"
