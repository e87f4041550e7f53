#!/bin/sh
# Install the Debian packages the build needs, when any is missing.
# Usage: install-deps.sh PKG...   (only the missing ones are fetched)
set -eu
missing=""
for p in "$@"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0
echo "installing missing Debian packages:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y --no-install-recommends $missing ||
	{ $SUDO apt-get update && $SUDO apt-get install -y --no-install-recommends $missing; }
