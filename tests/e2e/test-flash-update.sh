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
# record: the newest valid boot record names the update slot, and the boot
# stub jumps to its bitstream
record() {
	grep -q "boot record [0-9]* names the update slot" "$out/info.txt" ||
		fail "${1:-} boot record" "$out/info.txt"
	grep -q "^boot stub: *jump to 0x[0-9a-f]*, the update slot's bitstream" "$out/info.txt" ||
		fail "${1:-} boot stub" "$out/info.txt"
}
# after_cut N TOTAL OLDCRC NEWCRC: what boots after a cut at byte N of an
# update's TOTAL bytes (the stub's sector erased, the slot erased and
# programmed, the 64-byte record, the 58-byte stub): the old image while
# the erase has not passed the stub's 18 leading bytes of 0xFF, the new one
# once only the stub's 18 trailing bytes of 0xFF are left, else the golden
# one by the fallback jump; the update slot holds the old image until its
# erase starts, then no valid image until the new one is whole.
after_cut() {
	if [ "$1" -le 18 ]; then boots update "$3" "cut at byte $1 of $2:"
	elif [ "$1" -ge $(($2 - 18)) ]; then boots update "$4" "cut at byte $1 of $2:"
	else boots golden "$gcrc" "cut at byte $1 of $2:"; fi
	if [ "$1" -le 65536 ]; then want="CRC-32C $3"
	elif [ "$1" -lt $(($2 - 122)) ]; then want="no valid image"
	else want="CRC-32C $4"; fi
	grep -q "^slot update: .*$want" "$out/info.txt" || fail "cut at $1: update slot" "$out/info.txt"
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

# A new flash, erased; then the factory's flash (wse-mkimage --factory): the
# golden image, the boot stub and the fallback jump to its bitstream; no
# boot record: the golden image boots.
ctl info > "$out/info0.txt" 2>&1 || fail "info on an erased flash" "$out/info0.txt"
grep -q "^boots: *nothing" "$out/info0.txt" || fail "erased flash boots nothing" "$out/info0.txt"
grep -q "^boot stub: *erased" "$out/info0.txt" || fail "erased flash: stub" "$out/info0.txt"
"$mkimage" --factory "$out/golden.img" --flash-bytes $fbytes -o "$flash" ||
	fail "wse-mkimage --factory"
boots golden "$gcrc" "factory flash"
for j in "boot stub" fallback; do
	grep -q "^$j: *jump to 0x[0-9a-f]*, the golden slot's bitstream" "$out/info.txt" ||
		fail "factory flash: $j" "$out/info.txt"
done

# wsectl flash A: the update slot boots, with A's CRC; read back bit for bit.
ctl flash "$out/a.img" > "$out/flash-a.txt" 2>&1 || fail "wsectl flash a.img" "$out/flash-a.txt"
boots update "$acrc" "after flashing A"
record "after flashing A:"
grep -q "^slot golden: .*image for wsemu,sim-2x2, .*CRC-32C $gcrc\$" "$out/info.txt" ||
	fail "the golden slot listed" "$out/info.txt"
grep -q "^  bitstream  version 2 .* $bitbytes bytes  a-v2\$" "$out/info.txt" ||
	fail "A's parts listed" "$out/info.txt"
if [ "$model" = fast ]; then
	ctl flash --read-back "$out/a.back" > "$out/rb.txt" 2>&1 || fail "--read-back" "$out/rb.txt"
	cmp "$out/a.img" "$out/a.back" || fail "--read-back gives A back"
fi

if [ "$model" = rtl ]; then
	# Cuts on the RTL: erasing the update slot, programming it, or in the
	# record and the stub (CUTS > 2), each while the next image (B, A, B,
	# ...) goes over the one that boots.
	cuts=$(awk -v s="$seed" -v n="${CUTS:-2}" -v l="$(wc -c < "$out/b.img")" 'BEGIN { srand(s);
		t = 2 * 65536 + l + 64 + 58;
		for (i = 0; i < n; i++) {
			k = i % 3;
			if (k == 0) c = 65536 + 1 + int(rand() * 65535);
			else if (k == 1) c = 2 * 65536 + int(rand() * l);
			else c = t - 122 + 1 + int(rand() * 120);
			printf "%d ", c } }')
	img=b prev=$acrc
	for n in $cuts; do
		len=$(wc -c < "$out/$img.img"); total=$((2 * 65536 + len + 64 + 58))
		icrc=$(crc "$out/$img.img")
		if env "$optvar=$opts $cutopt$n" "$wsectl" -d $uri flash "$out/$img.img" \
			> "$out/cut.txt" 2>&1; then fail "flash $img survived a cut at byte $n" "$out/cut.txt"; fi
		after_cut "$n" "$total" "$prev" "$icrc"
		ctl flash "$out/$img.img" > "$out/retry.txt" 2>&1 || fail "retry after the cut at $n" "$out/retry.txt"
		last=$img prev=$icrc
		if [ $img = b ]; then img=a; else img=b; fi
	done
	boots update "$prev" "retry after the last cut:"
	record "retry after the last cut:"
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
# the erased boot-stub sector and update-slot sectors, the image, the
# 64-byte record and the 58-byte boot stub, last. after_cut says what must
# boot after each; a retry on the restarted simulator (the same flash)
# completes.
blen=$(wc -c < "$out/b.img")
total=$(( 65536 + (blen + 65535) / 65536 * 65536 + blen + 64 + 58 ))
[ "$blen" -gt 65536 ] || fail "B fits one sector: the cuts would not cross sectors"
cuts=$(awk -v s="$seed" -v t="$total" 'BEGIN { srand(s);
	printf "%d ", 1 + int(rand() * 18);
	for (i = 0; i < 20; i++) printf "%d ", 19 + int(rand() * (t - 122 - 19));
	printf "%d %d %d %d %d\n", t - 122, t - 122 + 1 + int(rand() * 62), t - 58,
		t - 58 + 1 + int(rand() * 38), t - 1 }')
for n in $cuts; do
	ctl flash "$out/a.img" > "$out/flash-a.txt" 2>&1 || fail "reflash A before the cut at $n" "$out/flash-a.txt"
	if env "$optvar=$opts $cutopt$n" "$wsectl" -d $uri flash "$out/b.img" \
		> "$out/cut.txt" 2>&1; then fail "flash B survived a cut at byte $n" "$out/cut.txt"; fi
	after_cut "$n" "$total" "$acrc" "$bcrc"
	grep -q "^fallback: *jump to 0x[0-9a-f]*, the golden slot's bitstream" "$out/info.txt" ||
		fail "cut at $n: the fallback jump" "$out/info.txt"
	ctl flash "$out/b.img" > "$out/retry.txt" 2>&1 || fail "retry after the cut at $n" "$out/retry.txt"
	boots update "$bcrc" "retry after the cut at byte $n:"
	record "retry after the cut at byte $n:"
done
ctl flash --read-back "$out/b.back" > "$out/rb.txt" 2>&1 || fail "--read-back" "$out/rb.txt"
cmp "$out/b.img" "$out/b.back" || fail "--read-back gives B back"
echo "test-flash-update: passed ($(echo $cuts | wc -w) power cuts of $total bytes, seed $seed)"
