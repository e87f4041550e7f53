#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# wse-mkimage: build an image of the ULX3S's DTB, a firmware ELF header and
# a random bitstream; --check lists its parts; a corrupted byte, another
# board, a too-small flash and a missing bitstream are refused.
#   tests/wire/test-mkimage.sh WSE-MKIMAGE OUTDIR
set -eu
mk=$1 out=$2
rm -rf "$out"; mkdir -p "$out"
fail() { echo "test-mkimage: $*" >&2; exit 1; }

dtc -q -I dts -O dtb -o "$out/board.dtb" boards/ulx3s-85f/ulx3s-85f.dts
head -c 70000 /dev/urandom > "$out/top.bit"
# An ELF32 little-endian RISC-V executable's header (52 bytes).
printf '\177ELF\001\001\001\000\000\000\000\000\000\000\000\000\002\000\363\000' > "$out/fw.elf"
head -c 32 /dev/zero >> "$out/fw.elf"

"$mk" --compatible wsemu,ulx3s-85f --bitstream "$out/top.bit" --firmware "$out/fw.elf" \
	--dtb "$out/board.dtb" --version 42 --build-id v1.0-test -o "$out/img.bin"
"$mk" --check "$out/img.bin" --compatible wsemu,ulx3s-85f --flash-bytes 0x2000000 | tee "$out/check.txt"
for p in bitstream firmware dtb; do
	grep -Eq "^  $p +0x[0-9a-f]{8} +[0-9]+ 0x[0-9a-f]{8} +42  v1.0-test$" "$out/check.txt" ||
		fail "--check does not list the $p part"
done
grep -q 'for "wsemu,ulx3s-85f"' "$out/check.txt" || fail "--check does not name the board"

# refuse CMD... EXPECTED-TEXT: the command fails with status 1 and the text.
refuse() {
	want=$1; shift
	if "$@" > "$out/refused.txt" 2>&1; then fail "accepted: $*"; fi
	grep -qF -- "$want" "$out/refused.txt" || { cat "$out/refused.txt"; fail "want \"$want\": $*"; }
}
cp "$out/img.bin" "$out/bad.bin"
printf '\377' | dd of="$out/bad.bin" bs=1 seek=600 conv=notrunc 2>/dev/null
refuse "part bitstream: CRC-32C" "$mk" --check "$out/bad.bin"
refuse 'image for "wsemu,ulx3s-85f", the board is "wsemu,sim-4x4"' \
	"$mk" --check "$out/img.bin" --compatible wsemu,sim-4x4
refuse "too big for the flash slot of 65536 bytes" "$mk" --check "$out/img.bin" --flash-bytes 0x40000
refuse "not a RISC-V ELF32" "$mk" --compatible c --bitstream "$out/top.bit" --firmware "$out/top.bit" -o "$out/x.bin"
refuse "usage:" "$mk" --compatible c --dtb "$out/board.dtb" -o "$out/x.bin"
[ ! -e "$out/x.bin" ] || fail "a refused build wrote its output"
echo "test-mkimage: passed"
