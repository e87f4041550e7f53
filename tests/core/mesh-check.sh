#!/bin/sh
# Mesh tests of the tile core: one ELF on the tiles of the 4x4 mesh.
#  1. backdoor vs management port: tile (0,0) loaded by backdoor, (1,0)
#     through the port; every word read back both ways; both run and pass.
#  2. every tile loaded by broadcast writes through the management port,
#     mhartid checked through the CSR window, halted mid-run and resumed,
#     rerun after CORE_RESET; every tile's signature equals QEMU's.
# Usage: mesh-check.sh TB_MESH ELF OUTDIR
set -u
tb=$1; elf=$2; out=$3
qemu=${QEMU:-qemu-system-riscv32}
mkdir -p "$out"
rm -f "$out"/tile-*.sig
fail=0
step() { # name, command...
	name=$1; shift
	if "$@" >"$out/$name.out" 2>"$out/$name.err"; then
		echo "ok   $name: $(tail -n 1 "$out/$name.err")"
	else
		echo "FAIL $name (exit $?)"; cat "$out/$name.err"; fail=1
	fi
}
step backdoor "$tb" "$elf" --check-backdoor --tiles 0,0:1,0 --max-cycles 200000
step all-tiles "$tb" "$elf" --load bcast --check-hartid --halt-at 3000 --rerun \
	--max-cycles 200000 --sig-dir "$out"
timeout 60 "$qemu" -M spike -cpu rv32,f=true,d=false -bios none -kernel "$elf" \
	-display none -serial stdio -monitor none </dev/null | grep '^S:' >"$out/qemu.sig"
n=0
for s in "$out"/tile-*.sig; do
	[ -e "$s" ] || break
	n=$((n + 1))
	if ! cmp -s "$s" "$out/qemu.sig"; then
		echo "FAIL $(basename "$s" .sig): signature differs from QEMU"; fail=1
	fi
done
[ -s "$out/qemu.sig" ] || { echo "FAIL no QEMU signature"; fail=1; }
echo "mesh: $n tile signatures compared with QEMU"
[ "$n" -eq "${WSE_TILES:-16}" ] || { echo "FAIL expected ${WSE_TILES:-16} tile signatures"; fail=1; }
exit $fail
