#!/bin/bash
# check-lpf.sh BOARD.lpf DOC.md: a board's pin constraints against the pin
# table of its documentation (rows "| `port` | SITE | ..."): the same ports
# on the same sites, no site used twice, and an IOBUF with an I/O standard
# for every located port.
set -u
lpf=$1; doc=$2
fail=0
bad() { echo "FAIL check-lpf: $*"; fail=1; }

lpf_pins=$(sed -n 's/^LOCATE COMP "\([^"]*\)" SITE "\([A-Z]*[0-9]*\)";.*/\1 \2/p' "$lpf" | sort)
doc_pins=$(sed -n 's/^| `\([^`]*\)` | \([A-Z][A-Z]*[0-9][0-9]*\) |.*/\1 \2/p' "$doc" | sort)
[ -n "$lpf_pins" ] || bad "$lpf: no LOCATE COMP lines"
if [ "$lpf_pins" != "$doc_pins" ]; then
	bad "$lpf and $doc differ:"
	diff <(echo "$lpf_pins") <(echo "$doc_pins") | sed 's/^/  /'
fi
dups=$(echo "$lpf_pins" | awk '{print $2}' | sort | uniq -d)
[ -z "$dups" ] || bad "sites used twice: $dups"
while read -r port site; do
	grep -qF "IOBUF PORT \"$port\" IO_TYPE=LVCMOS33" "$lpf" || bad "$port ($site): no LVCMOS33 IOBUF"
done <<< "$lpf_pins"
[ "$fail" = 0 ] && echo "check-lpf: $(echo "$lpf_pins" | wc -l) pins of $lpf as in $doc"
exit $fail
