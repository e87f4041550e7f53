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

# --factory: a 32 MiB flash of the image, the stub at 0 and the fallback jump
# at 16 MiB - 256 both to its bitstream (slot 0x10000 + the part's offset);
# erased elsewhere. --jump writes the same 58 bytes alone.
"$mk" --factory "$out/img.bin" --flash-bytes 0x2000000 -o "$out/flash.bin"
[ "$(wc -c < "$out/flash.bin")" -eq $((0x2000000)) ] || fail "--factory: not 32 MiB"
off=$(awk '$1 == "bitstream" { print $2 }' "$out/check.txt")
"$mk" --jump $((0x10000 + off)) -o "$out/jump.bin"
[ "$(wc -c < "$out/jump.bin")" -eq 58 ] || fail "--jump: not 58 bytes"
for at in 0 $((0x1000000 - 256)); do
	dd if="$out/flash.bin" of="$out/at.bin" bs=1 skip=$at count=58 status=none
	cmp "$out/at.bin" "$out/jump.bin" || fail "--factory: no jump to the bitstream at $at"
done
len=$(wc -c < "$out/img.bin")
dd if="$out/flash.bin" of="$out/slot.bin" bs=65536 skip=1 count=$(( (len + 65535) / 65536 )) status=none
head -c "$len" "$out/slot.bin" | cmp - "$out/img.bin" || fail "--factory: the golden slot"
nonff() { tr -d '\377' < "$1" | wc -c; }
[ "$(nonff "$out/flash.bin")" -eq $(( $(nonff "$out/img.bin") + 2 * $(nonff "$out/jump.bin") )) ] ||
	fail "--factory: bytes other than the image and the two jumps are not erased"
refuse "a power of two from 256 KiB" "$mk" --factory "$out/img.bin" -o "$out/y.bin"
refuse "part bitstream: CRC-32C" "$mk" --factory "$out/bad.bin" --flash-bytes 0x2000000 -o "$out/y.bin"
refuse "an address under 16 MiB" "$mk" --jump 0x1000000 -o "$out/y.bin"
[ ! -e "$out/y.bin" ] || fail "a refused --factory or --jump wrote its output"
echo "test-mkimage: passed"
