#!/bin/sh
# Whole-board programs on wsemu-fast's 4x4 board (tb_fast_df --mesh):
#   tiles  the program of test-core-mesh on all 16 tiles, no routes: each
#          tile greets with its own coordinates (from mhartid) and its
#          signature equals QEMU's (as tests/core/mesh-check.sh checks the
#          RTL mesh);
#   mesh   the dataflow layer of test-pe-mesh (tests/dataflow/fw/mesh.c,
#          routes tests/dataflow/mesh-sim-4x4.routes: row multicast,
#          column chains) on the RTL mesh (tb_mesh_df) and on the model:
#          the same exit status and the same console of every tile (with
#          TB_MESH_DF "-", the RTL run is left out: every tile must pass
#          its own checks, as test-pe-mesh requires of the RTL); and
#          on the model at rounds of 1 and 1000 cycles (--quantum) every
#          DMEM word of every tile is what it is at the default round.
# A difference names the tile and both values.
# Usage: compare-mesh.sh OUTDIR TB_FAST_DF TILES_ELF TB_MESH_DF MESH_ELF ROUTES
set -u
out=$1; fast=$2; tiles=$3; rtl=$4; mesh=$5; routes=$6
qemu=${QEMU:-qemu-system-riscv32}
mkdir -p "$out/sig"
rm -f "$out"/sig/tile-*.sig
fail=0

# tiles
"$fast" "$tiles" --mesh none --sig-dir "$out/sig" --max-cycles 1000000 >"$out/tiles.out" 2>"$out/tiles.err" ||
	{ echo "DIFF tiles: exit status $? on the model (0 on the RTL): $(tail -n 1 "$out/tiles.err")"; fail=1; }
timeout 60 "$qemu" -M spike -cpu rv32,f=true,d=false -bios none -kernel "$tiles" \
	-display none -serial stdio -monitor none </dev/null | grep '^S:' >"$out/qemu.sig"
[ -s "$out/qemu.sig" ] || { echo "DIFF tiles: no QEMU signature"; fail=1; }
n=0
for y in 0 1 2 3; do
	for x in 0 1 2 3; do
		s=$out/sig/tile-$x-$y.sig
		n=$((n + 1))
		if ! cmp -s "$s" "$out/qemu.sig"; then
			echo "DIFF tiles: tile ($x,$y) signature: qemu [$(tr '\n' ' ' <"$out/qemu.sig")] fast [$(tr '\n' ' ' <"$s" 2>/dev/null)]"
			fail=1
		fi
		grep -qx "\[$x,$y\] tile $x,$y" "$out/tiles.out" ||
			{ echo "DIFF tiles: tile ($x,$y) greeting: expected 'tile $x,$y', fast '$(grep "^\[$x,$y\]" "$out/tiles.out" | head -n 1)'"; fail=1; }
	done
done
echo "tiles: $n tile signatures compared with QEMU"

# mesh
if [ "$rtl" = - ]; then
	rc_rtl=0
	echo "not run" >"$out/mesh.rtl.err"
else
	"$rtl" "$mesh" "$routes" --max-cycles 400000 >"$out/mesh.rtl.out" 2>"$out/mesh.rtl.err"
	rc_rtl=$?
fi
"$fast" "$mesh" --mesh "$routes" --max-cycles 400000 --dmem "$out/mesh.fast.dmem" \
	>"$out/mesh.fast.out" 2>"$out/mesh.fast.err"
rc_fast=$?
for q in 1 1000; do
	"$fast" "$mesh" --mesh "$routes" --max-cycles 400000 --quantum $q --dmem "$out/mesh.q$q.dmem" \
		>/dev/null 2>&1
	paste -d' ' "$out/mesh.fast.dmem" "$out/mesh.q$q.dmem" | awk -v q=$q '
		$4 != $8 { n++; if (n <= 8) printf "DIFF mesh: quantum %s: tile (%s,%s) address 0x%s: %s at the default round, %s\n", q, $1, $2, $3, $4, $8 }
		END { if (n > 8) printf "DIFF mesh: quantum %s: %d words differ\n", q, n; exit n > 0 }' || fail=1
done
[ $rc_rtl -eq $rc_fast ] || { echo "DIFF mesh: exit status: rtl $rc_rtl, fast $rc_fast"; fail=1; }
grep '^\[' "$out/mesh.fast.out" | sort >"$out/mesh.fast.con"
[ "$rtl" = - ] || grep '^\[' "$out/mesh.rtl.out" | sort >"$out/mesh.rtl.con"
if [ "$rtl" != - ] && ! cmp -s "$out/mesh.rtl.con" "$out/mesh.fast.con"; then
	echo "DIFF mesh: consoles differ:"
	diff "$out/mesh.rtl.con" "$out/mesh.fast.con" | sed -n 's/^< /  rtl:  /p; s/^> /  fast: /p'
	fail=1
fi
echo "mesh: rtl: $(tail -n 1 "$out/mesh.rtl.err")"
echo "mesh: fast: $(tail -n 1 "$out/mesh.fast.err")"
exit $fail
