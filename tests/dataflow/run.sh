#!/bin/sh
# Runs dataflow firmware programs on the PE harness (tb_df); each must pass
# (tohost = 1). Harness options per program come from tests/dataflow/opts
# (lines "NAME OPTIONS..."; NAME matches the ELF name without a -SEED suffix).
# Usage: run.sh OUTDIR TB_DF ELF...
set -u
out=$1; tb=$2; shift 2
here=$(dirname "$0")
mkdir -p "$out"
fails=0; n=0
for elf in "$@"; do
	name=$(basename "$elf" .elf)
	base=${name%%-*}
	opts=$(awk -v n="$base" '$1 == n { $1 = ""; print }' "$here/opts")
	n=$((n + 1))
	# shellcheck disable=SC2086
	if "$tb" "$elf" --max-cycles "${DF_MAX_CYCLES:-3000000}" --stats $opts >"$out/$name.out" 2>"$out/$name.err"; then
		:
	else
		fails=$((fails + 1))
		echo "FAIL $name: $(tail -n 1 "$out/$name.err")"
		tail -n 5 "$out/$name.out"
	fi
done
echo "test-pe-dataflow: $((n - fails))/$n programs passed"
[ $fails -eq 0 ]
