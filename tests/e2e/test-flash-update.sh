#!/bin/sh
# The fail-safe firmware update (docs/firmware-image.md) through wsectl
# and libwsehost on a simulated flash kept in a file across simulator runs,
# on sim-2x2.
#   test-flash-update.sh WSECTL WSE_MKIMAGE DTB_DIR OUT_DIR [fast|rtl]
# fast (the default): wsemu-fast's flash (docs/wsemu-fast.md, "Flash"), 1
# MiB, 70,000-byte bitstreams, 23 power cuts (--flash-kill-after), each on
# a fresh update of B over A followed by a retry. rtl: wsemu-sim's flash
# on the RTL's SPI controller (docs/wsemu-sim.md, "Flash"), 256 KiB,
# 500-byte bitstreams, $CUTS (default 2) power cuts (--fault flash:N),
# each on the next update of the two images in turn, then its retry: the
# RTL simulates every SPI clock, so it does fewer.
# $WSEMU_FAST / $WSEMU_SIM name the simulators; $SEED (default 1) the
# kill points.
set -eu
wsectl=$1 mkimage=$2 dtbs=$3 out=$4 model=${5:-fast}
seed=${SEED:-1}
rm -rf "$out"; mkdir -p "$out"
flash=$out/flash
uri=sim:board=sim-2x2,model=$model
if [ "$model" = rtl ]; then
	optvar=WSEMU_SIM_OPTS fbytes=262144 bitbytes=500 cutopt="--fault flash:"
else
	optvar=WSEMU_FAST_OPTS fbytes=1048576 bitbytes=70000 cutopt="--flash-kill-after "
fi
opts="--quiet --flash-bytes $fbytes --flash-file $flash"
fail() { [ -f "$2" ] && cat "$2"; echo "test-flash-update: FAIL $1"; exit 1; }
ctl() { env "$optvar=$opts" "$wsectl" -d $uri "$@"; }
# boots SLOT CRC: info names the slot and the CRC-32C of its image
boots() {
	ctl info > "$out/info.txt" 2>&1 || fail "wsectl info" "$out/info.txt"
	grep -q "^boots: *$1 slot, [0-9]* bytes, CRC-32C $2\$" "$out/info.txt" ||
		fail "${3:-} boots the $1 slot with CRC-32C $2" "$out/info.txt"
}
# record SEQ: the newest valid boot record is SEQ and names the update slot
record() {
	grep -q "boot record $1 names the update slot" "$out/info.txt" ||
		fail "${2:-} boot record $1" "$out/info.txt"
}
crc() { # the CRC-32C of a file (Castagnoli, as docs/firmware-image.md)
	python3 -c 'import sys
t = []
for i in range(256):
    c = i
    for _ in range(8): c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
    t.append(c)
c = 0xFFFFFFFF
for b in open(sys.argv[1], "rb").read(): c = t[(c ^ b) & 0xFF] ^ (c >> 8)
print("0x%08x" % (c ^ 0xFFFFFFFF))' "$1"
}

# Three images of the board: golden, A and B (different bitstreams,
# versions), and two refused ones: B with one byte changed, and an image
# for sim-4x4.
mk() { # NAME SEED VERSION COMPATIBLE
	head -c $bitbytes /dev/zero | tr '\0' "$2" > "$out/$1.bit"
	"$mkimage" --compatible "$4" --bitstream "$out/$1.bit" --dtb "$dtbs/sim-2x2/sim-2x2.dtb" \
		--version "$3" --build-id "$1-v$3" -o "$out/$1.img" > /dev/null
}
mk golden 'G' 1 wsemu,sim-2x2
mk a 'A' 2 wsemu,sim-2x2
mk b 'B' 3 wsemu,sim-2x2
mk foreign 'F' 3 wsemu,sim-4x4
cp "$out/b.img" "$out/corrupt.img"
printf 'X' | dd of="$out/corrupt.img" bs=1 seek=5000 conv=notrunc status=none
gcrc=$(crc "$out/golden.img"); acrc=$(crc "$out/a.img"); bcrc=$(crc "$out/b.img")

# A new flash, erased; the golden image programmed at the golden slot
# (0x10000) as the factory does; no boot record: the golden image boots.
ctl info > "$out/info0.txt" 2>&1 || fail "info on an erased flash" "$out/info0.txt"
grep -q "^boots: *nothing" "$out/info0.txt" || fail "erased flash boots nothing" "$out/info0.txt"
dd if="$out/golden.img" of="$flash" bs=65536 seek=1 conv=notrunc status=none
boots golden "$gcrc" "factory flash"

# wsectl flash A: the update slot boots, with A's CRC; read back bit for bit.
ctl flash "$out/a.img" > "$out/flash-a.txt" 2>&1 || fail "wsectl flash a.img" "$out/flash-a.txt"
boots update "$acrc" "after flashing A"
record 1
grep -q "^slot golden: .*image for wsemu,sim-2x2, .*CRC-32C $gcrc\$" "$out/info.txt" ||
	fail "the golden slot listed" "$out/info.txt"
grep -q "^  bitstream  version 2 .* $bitbytes bytes  a-v2\$" "$out/info.txt" ||
	fail "A's parts listed" "$out/info.txt"
if [ "$model" = fast ]; then
	ctl flash --read-back "$out/a.back" > "$out/rb.txt" 2>&1 || fail "--read-back" "$out/rb.txt"
	cmp "$out/a.img" "$out/a.back" || fail "--read-back gives A back"
fi

if [ "$model" = rtl ]; then
	# Cuts on the RTL: erasing, programming, or in the record (CUTS > 2),
	# each while the next image (B, A, B, ...) goes over the one that boots.
	cuts=$(awk -v s="$seed" -v n="${CUTS:-2}" -v l="$(wc -c < "$out/b.img")" 'BEGIN { srand(s);
		t = 65536 + l + 64;
		for (i = 0; i < n; i++) {
			k = i % 3;
			if (k == 0) c = 1 + int(rand() * 65535);
			else if (k == 1) c = 65536 + int(rand() * l);
			else c = t - 64 + 1 + int(rand() * 62);
			printf "%d ", c } }')
	seq=1 img=b
	for n in $cuts; do
		len=$(wc -c < "$out/$img.img"); total=$((65536 + len + 64))
		icrc=$(crc "$out/$img.img")
		if env "$optvar=$opts $cutopt$n" "$wsectl" -d $uri flash "$out/$img.img" \
			> "$out/cut.txt" 2>&1; then fail "flash $img survived a cut at byte $n" "$out/cut.txt"; fi
		boots golden "$gcrc" "cut at byte $n of $total:"
		record $seq "cut at byte $n of $total:"
		if [ "$n" -lt $((total - 64)) ]; then want="no valid image"; else want="CRC-32C $icrc\$"; fi
		grep -q "^slot update: .*$want" "$out/info.txt" || fail "cut at $n: update slot" "$out/info.txt"
		ctl flash "$out/$img.img" > "$out/retry.txt" 2>&1 || fail "retry after the cut at $n" "$out/retry.txt"
		seq=$((seq + 1))
		last=$img
		if [ $img = b ]; then img=a; else img=b; fi
	done
	lcrc=$(crc "$out/$last.img")
	boots update "$lcrc" "retry after the last cut:"
	record $seq "retry after the last cut:"
	ctl flash --read-back "$out/last.back" > "$out/rb.txt" 2>&1 || fail "--read-back" "$out/rb.txt"
	cmp "$out/$last.img" "$out/last.back" || fail "--read-back gives $last back"
	echo "test-flash-update: rtl: passed ($(echo $cuts | wc -w) power cuts at bytes $(echo $cuts), seed $seed)"
	exit 0
fi

# Refused before anything is written: the flash file unchanged.
cp "$flash" "$out/flash.before"
refuse() { # IMAGE ERROR TEXT
	if ctl flash "$out/$1" > "$out/refuse.txt" 2>&1; then fail "$1 accepted" "$out/refuse.txt"; fi
	grep -q "$2" "$out/refuse.txt" && grep -q "$3" "$out/refuse.txt" ||
		fail "$1 refused with $2 ($3)" "$out/refuse.txt"
	cmp "$flash" "$out/flash.before" || fail "$1: the flash changed"
}
refuse corrupt.img WSE_ERROR_PAYLOAD_CRC "part bitstream"
refuse foreign.img WSE_ERROR_NOT_SUPPORTED "wsemu,sim-4x4"
boots update "$acrc" "after the refusals"

# Power cuts while B is flashed over A: the bytes B's update writes are
# the erased sectors, the image and the 64-byte record, last. A cut at
# any point before the record is whole leaves the newest whole record
# naming A, whose CRC the slot no longer has: the golden image boots.
# A retry on the restarted simulator (the same flash) completes.
blen=$(wc -c < "$out/b.img")
total=$(( (blen + 65535) / 65536 * 65536 + blen + 64 ))
[ "$blen" -gt 65536 ] || fail "B fits one sector: the cuts would not cross sectors"
cuts=$(awk -v s="$seed" -v t="$total" 'BEGIN { srand(s);
	for (i = 0; i < 20; i++) printf "%d ", 1 + int(rand() * (t - 65));
	printf "%d %d %d\n", t - 64, t - 64 + 1 + int(rand() * 62), t - 1 }')
seq=1
for n in $cuts; do
	ctl flash "$out/a.img" > "$out/flash-a.txt" 2>&1 || fail "reflash A before the cut at $n" "$out/flash-a.txt"
	seq=$((seq + 1))
	if env "$optvar=$opts $cutopt$n" "$wsectl" -d $uri flash "$out/b.img" \
		> "$out/cut.txt" 2>&1; then fail "flash B survived a cut at byte $n" "$out/cut.txt"; fi
	boots golden "$gcrc" "cut at byte $n of $total:"
	record $seq "cut at byte $n of $total:"
	# the slot: torn until B is whole, then B's, not booting
	if [ "$n" -lt $((total - 64)) ]; then want="no valid image"; else want="CRC-32C $bcrc\$"; fi
	grep -q "^slot update: .*$want" "$out/info.txt" || fail "cut at $n: update slot" "$out/info.txt"
	ctl flash "$out/b.img" > "$out/retry.txt" 2>&1 || fail "retry after the cut at $n" "$out/retry.txt"
	seq=$((seq + 1))
	boots update "$bcrc" "retry after the cut at byte $n:"
	record $seq "retry after the cut at byte $n:"
done
ctl flash --read-back "$out/b.back" > "$out/rb.txt" 2>&1 || fail "--read-back" "$out/rb.txt"
cmp "$out/b.img" "$out/b.back" || fail "--read-back gives B back"
echo "test-flash-update: passed ($(echo $cuts | wc -w) power cuts of $total bytes, seed $seed)"
