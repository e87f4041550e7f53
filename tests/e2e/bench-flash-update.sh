#!/bin/sh
# BENCH usb.flash_kbps: one fail-safe update (wsectl flash) of an 8 KiB
# image on wsemu-sim's flash (sim-2x2, 256 KiB, docs/wsemu-sim.md "Flash"),
# timed in the simulator's link cycles, converted at CLOCK_HZ.
#   bench-flash-update.sh WSECTL WSE_MKIMAGE DTB_DIR OUT_DIR CLOCK_HZ
# $WSEMU_SIM names the simulator.
set -eu
wsectl=$1 mkimage=$2 dtbs=$3 out=$4 hz=$5
rm -rf "$out"; mkdir -p "$out"
head -c 7000 /dev/zero | tr '\0' 'U' > "$out/u.bit"
"$mkimage" --compatible wsemu,sim-2x2 --bitstream "$out/u.bit" --dtb "$dtbs/sim-2x2/sim-2x2.dtb" \
	--version 1 --build-id bench -o "$out/u.img" > /dev/null
WSEMU_SIM_OPTS="--flash-bytes 262144 --flash-file $out/flash" "$wsectl" -d sim:board=sim-2x2,model=rtl \
	flash "$out/u.img" > "$out/flash.txt" 2>&1 || { cat "$out/flash.txt"; exit 1; }
cycles=$(sed -n 's/^wsemu-sim: .* after \([0-9]*\) cycles$/\1/p' "$out/flash.txt" | tail -1)
[ -n "$cycles" ] || { cat "$out/flash.txt"; echo "bench-flash-update: no cycle count"; exit 1; }
bytes=$(wc -c < "$out/u.img")
awk -v b="$bytes" -v c="$cycles" -v hz="$hz" 'BEGIN {
	printf "BENCH usb.flash_kbps %.1f kbit/s (%d-byte image, %d link cycles at %.1f MHz)\n",
		b * 8 / (c / hz) / 1000, b, c, hz / 1e6 }'
