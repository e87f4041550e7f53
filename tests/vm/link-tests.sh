# SPDX-License-Identifier: Apache-2.0
#
# Sourced by the VM tests (test-usb-e2e.sh, test-pcie.sh): what a guest
# runs over its link, and the reference of its training run on the host.
#
# guest_run URI COLS ROWS prints guest commands: `wsectl -d URI run
# /data/tiles.elf`, every tile's console line checked. guest_train prints
# `wsetrain --params /data/guest.params --model-dir /tmp/m --num-steps 2`,
# printing CKPT-SHA256=<hash>; guest_run_train URI COLS ROWS both.
# train_ref OUT BOARD URI writes OUT/data.csv (a small CSV data set, label
# last), OUT/guest.params (the mesh backend on URI, the data at
# /data/data.csv) and trains two steps over sim:board=BOARD,model=fast on
# the host with $WSETRAIN; TRAIN_WANT is its checkpoint's SHA-256.
guest_run_train() {
	guest_run "$@"
	guest_train
}

guest_train() {
	cat <<EOG
wsetrain --params /data/guest.params --model-dir /tmp/m --num-steps 2
echo CKPT-SHA256=\$(sha256sum < /tmp/m/model.ckpt | cut -d' ' -f1)
EOG
}

guest_run() {
	local uri=$1 cols=$2 rows=$3
	cat <<EOG
wsectl -d $uri run /data/tiles.elf > /tmp/run.txt
cat /tmp/run.txt
for y in \$(seq 0 $((rows - 1))); do for x in \$(seq 0 $((cols - 1))); do
  grep -q "^\\[\$x,\$y\\] tile \$x,\$y\\\$" /tmp/run.txt || { echo "no console line of tile \$x,\$y"; exit 1; }
done; done
EOG
}

# pcie_irq IRQ sets PCIE_LINK (the vm-run.sh option) and PCIE_IRQ_CHECK (a
# guest command) for the driver polling (poll: ivshmem-plain) or on its
# MSI-X vectors (msix: ivshmem-doorbell, the H2C and C2H vectors counted in
# /proc/interrupts); status 1 for another IRQ.
pcie_irq() {
	case $1 in
	poll) PCIE_LINK=--pcie
		PCIE_IRQ_CHECK="dmesg | grep -q 'no MSI-X: polling'" ;;
	msix) PCIE_LINK=--pcie-irq
		PCIE_IRQ_CHECK="! dmesg | grep -q 'no MSI-X' &&
  awk '/wse-0000:00:05.0-0\$/ { h = \$2 } /wse-0000:00:05.0-1\$/ { c = \$2 }
    END { print \"interrupts: H2C\", h, \"C2H\", c; exit !(h > 0 && c > 0) }' /proc/interrupts" ;;
	*) return 1 ;;
	esac
}

train_ref() {
	local out=$1 board=$2 uri=$3
	awk -v n=64 'BEGIN { s = 12345;
		for (i = 0; i < n; i++) { line = "";
			for (j = 0; j < 16; j++) { s = (s * 1103515245 + 12345) % 2147483648;
				line = line sprintf("%.4f,", (s % 10000) / 10000.0) }
			print line (i % 3) } }' > "$out/data.csv"
	train_params "sim:board=$board,model=fast" "$out/data.csv" > "$out/host.params"
	train_params "$uri" /data/data.csv > "$out/guest.params"
	rm -rf "$out/host-model"
	"$WSETRAIN" --params "$out/host.params" --model-dir "$out/host-model" --num-steps 2 \
		> "$out/host-train.log" 2>&1 || { cat "$out/host-train.log"; return 1; }
	TRAIN_WANT=$(sha256sum < "$out/host-model/model.ckpt" | cut -d' ' -f1)
}

train_params() { # DEVICE DATA-PATH
	cat <<EOP
model.layers = 16, 8, 3
model.init_seed = 7
data.format = csv
data.train_x = $2
data.test_x = $2
data.label_column = last
train.batch_size = 8
optimizer.name = sgd
optimizer.lr = 0.1
runtime.backend = mesh
runtime.device = $1
runtime.timeout_ms = 120000
run.eval_examples = 0
EOP
}

# train_check LOG LINK: the guest's checkpoint in LOG equals the host's.
train_check() {
	local got
	got=$(sed -n 's/^CKPT-SHA256=\([0-9a-f]*\).*/\1/p' "$1" | tail -1)
	[ -n "$got" ] || { echo "no checkpoint from wsetrain over $2"; return 1; }
	[ "$got" = "$TRAIN_WANT" ] || { echo "checkpoint over $2 $got, over sim: $TRAIN_WANT"; return 1; }
}
