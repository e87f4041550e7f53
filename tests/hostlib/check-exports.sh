#!/bin/sh
# A library exports its API and nothing else: the global symbols defined
# by the shared library (nm -D) and by the static archive (nm -g) are
# exactly the names of the export map.
# Usage: check-exports.sh MAP SO ARCHIVE WORKDIR
set -eu
map=$1 so=$2 ar=$3 dir=$4
mkdir -p "$dir"
name=$(basename "$so" | sed 's/\..*//')
sed -n 's/^[[:space:]]*\(wse_[a-z0-9_; ]*\)/\1/p' "$map" | tr ';' '\n' |
	tr -d ' \t' | grep . | sort > "$dir/$name.exports.want"
nm -D --defined-only "$so" | awk '$2 == "T" || $2 == "D" || $2 == "B" || $2 == "R" {print $3}' |
	sed 's/@.*//' | sort > "$dir/$name.exports.so"
nm -g --defined-only "$ar" | awk 'NF == 3 {print $3}' | sort > "$dir/$name.exports.a"
diff -u "$dir/$name.exports.want" "$dir/$name.exports.so"
diff -u "$dir/$name.exports.want" "$dir/$name.exports.a"
echo "exports: $(wc -l < "$dir/$name.exports.want") symbols in $(basename "$so") and $(basename "$ar"), all in $(basename "$map"), nothing else"
