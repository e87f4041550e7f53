#!/bin/sh
# wsemu-sim dispatcher: runs the model built for --board NAME.
dir="${WSEMU_SIM_DIR:-@DIR@}"
board=sim-4x4
prev=
for a in "$@"; do
  [ "$prev" = "--board" ] && board="$a"
  prev="$a"
done
case "$board" in
  */*|.*) echo "wsemu-sim: bad board name $board" >&2; exit 3 ;;
esac
if [ ! -x "$dir/$board/wsemu-sim" ]; then
  echo "wsemu-sim: no model built for board $board (make wsemu-sim)" >&2
  exit 3
fi
exec "$dir/$board/wsemu-sim" "$@"
