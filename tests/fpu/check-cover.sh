#!/bin/sh
# Fails unless every cover point in a Verilator --coverage-user data file
# was hit at least once; prints the table.
# Usage: check-cover.sh coverage.dat
set -eu
awk '/^C / {
	n = $NF; name = $0; sub(/^.*\.fpu\./, "", name); sub(/'"'"' [0-9]+$/, "", name)
	printf "  cover %-40s %12d\n", name, n
	total++; if (n == 0) missed++
}
END {
	printf "rtl cover points: %d, missed %d\n", total, missed
	if (total == 0 || missed > 0) exit 1
}' "$1"
