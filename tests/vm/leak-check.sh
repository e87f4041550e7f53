# SPDX-License-Identifier: Apache-2.0
#
# leak-check.sh: the guest side of the driver's leak check over insmod/rmmod
# cycles (docs/vm-harness.md, "Leak check"), sourced by the guest's shell
# in a kernel booted with slub_debug=U (every slab object keeps the stack
# that allocated it; Debian's kernel has no kmemleak). Debian's busybox sh
# and awk.
#
#   leak_snap FILE        the kernel's memory now, into FILE, after sync,
#                         dropping the page cache, dentries and inodes, and
#                         1 s for RCU's deferred frees:
#                           site FUNC N    live slab objects allocated at
#                                          FUNC (from
#                                          /sys/kernel/debug/slab/*/alloc_traces)
#                           module N       live slab objects with a frame of
#                                          the wse module in their
#                                          allocation stack (named [wse], or
#                                          a bare address once unloaded),
#                                          but vmap_area structs: the
#                                          kernel keeps those of freed
#                                          vmalloc areas as its free-space
#                                          records
#                           vmalloc N      vmalloc areas the module made
#                                          (/proc/vmallocinfo)
#                           mem KEY KB     MemFree and Slab of /proc/meminfo
#   leak_check A B CYCLES  compare two snapshots CYCLES load cycles apart,
#                         the module unloaded at both; prints the sites
#                         that grew and a LEAK-OK or LEAK-FAIL line, and
#                         fails on:
#                           - a live object or vmalloc area of the module in B;
#                           - a site that grew by G = max(CYCLES,
#                             LEAK_MIN_SITE) objects or more (one per
#                             cycle, over enough cycles to stand out of
#                             the dentries and inodes a shell command may
#                             leave), or the live objects' total by
#                             G + LEAK_SLACK_OBJS or more;
#                           - MemFree down by more than
#                             LEAK_SLACK_KB + LEAK_CYCLE_KB * CYCLES (the
#                             rings' DMA memory and the read queue come from
#                             the page allocator, which keeps no owner: 264
#                             and 256 KiB a load).

LEAK_MIN_SITE=${LEAK_MIN_SITE:-16}
LEAK_SLACK_OBJS=${LEAK_SLACK_OBJS:-64}
LEAK_SLACK_KB=${LEAK_SLACK_KB:-2048}
LEAK_CYCLE_KB=${LEAK_CYCLE_KB:-64}

leak_snap() {
	[ -d /sys/kernel/debug/slab ] || mount -t debugfs none /sys/kernel/debug || return 1
	[ -d /sys/kernel/debug/slab ] || { echo "leak: no /sys/kernel/debug/slab"; return 1; }
	# The first open of each debugfs file allocates its record, for good:
	# every file opened once before the first snapshot counts.
	[ -e /tmp/leak-opened ] || { cat /sys/kernel/debug/slab/*/alloc_traces > /dev/null; : > /tmp/leak-opened; }
	sync
	echo 3 > /proc/sys/vm/drop_caches
	sleep 1
	cat /sys/kernel/debug/slab/*/alloc_traces | awk '
		/^ *[0-9]+ / { cur = $1; site = $2; sub(/\+.*/, "", site); total[site] += cur
			       if (site == "alloc_vmap_area") cur = 0; next }
		/\[wse\]|^ *0xffffffff[0-9a-f]+$/ { mod += cur; cur = 0 }
		/^ *$/ { cur = 0 }
		END { for (s in total) print "site", s, total[s]; print "module", mod + 0 }' > "$1"
	awk '$3 ~ /\[wse\]|^0x/ { n++ } END { print "vmalloc", n + 0 }' /proc/vmallocinfo >> "$1"
	awk '/^(MemFree|Slab):/ { sub(":", "", $1); print "mem", $1, $2 }' /proc/meminfo >> "$1"
	grep -q '^site ' "$1" || { echo "leak: no allocation traces (boot with slub_debug=U)"; return 1; }
}

leak_check() {
	awk -v cycles="$3" -v min_site="$LEAK_MIN_SITE" -v slack="$LEAK_SLACK_OBJS" -v slack_kb="$LEAK_SLACK_KB" \
	    -v cycle_kb="$LEAK_CYCLE_KB" '
		FNR == 1 { f++ }
		$1 == "site" { n[f, $2] = $3; sites[$2] = 1; tot[f] += $3 }
		$1 == "module" { mod[f] = $2 }
		$1 == "vmalloc" { vm[f] = $2 }
		$1 == "mem" { mem[f, $2] = $3 }
		END {
			bad = 0; g = cycles > min_site ? cycles : min_site
			for (s in sites) {
				d = n[2, s] - n[1, s]
				if (d > 0)
					printf "leak: %s +%d objects\n", s, d
				if (d >= g) { bad = 1; printf "leak: %s grew by %d or more\n", s, g }
			}
			dt = tot[2] - tot[1]; dm = mem[1, "MemFree"] - mem[2, "MemFree"]
			ds = mem[2, "Slab"] - mem[1, "Slab"]
			if (mod[2] || vm[2]) { bad = 1; printf "leak: %d objects, %d vmalloc areas of the module live after rmmod\n", mod[2], vm[2] }
			if (dt >= g + slack) { bad = 1; print "leak: the live objects grew by", dt }
			if (dm > slack_kb + cycle_kb * cycles) { bad = 1; print "leak: MemFree down by", dm, "kB" }
			printf "LEAK-%s cycles %d: module objects %d, vmalloc %d, live objects %+d (of %d), Slab %+d kB, MemFree %+d kB\n",
			       bad ? "FAIL" : "OK", cycles, mod[2], vm[2], dt, tot[1], ds, -dm
			exit bad
		}' "$1" "$2"
}
