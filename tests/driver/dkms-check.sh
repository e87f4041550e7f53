#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# dkms.conf against the driver (docs/driver.md, "DKMS"), without dkms: the
# tree `make dkms-install` wrote under STAGE/usr/src/wse-<version> has
# dkms.conf's PACKAGE_VERSION in the name and as the driver's version
# (WSE_DRIVER_MAJOR.WSE_DRIVER_MINOR of wse_core.h), every source Kbuild
# names and every header they include; dkms.conf's MAKE line, run as dkms
# runs it (in dkms_tree/<name>/<version>/build), builds BUILT_MODULE_NAME
# with that version in modinfo, and CLEAN removes it.
# Usage: dkms-check.sh STAGE KERNEL_BUILD_DIR
set -eu
stage=$1
kernel_source_dir=$2
fail() { echo "dkms-check: $*" >&2; exit 1; }

hdr=driver/wse_core.h
major=$(sed -n 's/^#define WSE_DRIVER_MAJOR \([0-9]*\)$/\1/p' $hdr)
minor=$(sed -n 's/^#define WSE_DRIVER_MINOR \([0-9]*\)$/\1/p' $hdr)
[ -n "$major" ] && [ -n "$minor" ] || fail "no WSE_DRIVER_MAJOR/MINOR in $hdr"
version=$major.$minor
src=$stage/usr/src/wse-$version
[ -f "$src/dkms.conf" ] || fail "$src/dkms.conf missing"
grep -q '^MODULE_VERSION(__stringify(WSE_DRIVER_MAJOR)' driver/wse_main.c ||
	fail "wse_main.c: MODULE_VERSION is not WSE_DRIVER_MAJOR.MINOR"

dkms_tree=$stage/dkms
. "$src/dkms.conf"
[ "$PACKAGE_NAME" = wse ] || fail "PACKAGE_NAME $PACKAGE_NAME, not wse"
[ "$PACKAGE_VERSION" = "$version" ] ||
	fail "PACKAGE_VERSION $PACKAGE_VERSION, the driver's is $version"
[ "$AUTOINSTALL" = yes ] || fail "AUTOINSTALL is not yes"
case ${DEST_MODULE_LOCATION[0]:-} in
/updates/*|/kernel/*|/extra*) ;;
*) fail "DEST_MODULE_LOCATION[0] '${DEST_MODULE_LOCATION[0]:-}'" ;;
esac
mod=${BUILT_MODULE_NAME[0]}
grep -q "^obj-m += $mod.o\$" "$src/Kbuild" || fail "Kbuild builds no $mod.o"

# Every object's source; every quoted or <linux/wse.h> include found.
for o in $(sed -n "s/^$mod-y := //p" "$src/Kbuild"); do
	[ -f "$src/${o%.o}.c" ] || fail "${o%.o}.c missing"
done
[ -f "$src/Makefile" ] || fail "Makefile missing"
for f in "$src"/*.c "$src"/*.h; do
	for inc in $(sed -n -e 's/^#include "\(.*\)"$/\1/p' \
			 -e 's/^#include <\(linux\/wse\.h\)>$/\1/p' "$f"); do
		[ -f "$src/$inc" ] || [ -f "$src/include/$inc" ] ||
			[ -f "$src/include/uapi/$inc" ] ||
			fail "$inc, included by ${f##*/}, missing"
	done
done

build=$dkms_tree/$PACKAGE_NAME/$PACKAGE_VERSION/build
rm -rf "$dkms_tree" && mkdir -p "$build"
cp -R "$src/." "$build/"
(cd "$build" && eval "${MAKE[0]}") > "$stage/dkms-make.log" 2>&1 ||
	{ cat "$stage/dkms-make.log"; fail "MAKE[0] failed"; }
[ -f "$build/$mod.ko" ] || fail "MAKE[0] built no $mod.ko"
v=$(/sbin/modinfo -F version "$build/$mod.ko")
[ "$v" = "$version" ] || fail "$mod.ko has version '$v', not $version"
(cd "$build" && eval "$CLEAN") >> "$stage/dkms-make.log" 2>&1 ||
	fail "CLEAN failed"
[ ! -e "$build/$mod.ko" ] || fail "CLEAN left $mod.ko"
echo "dkms-check: wse $version: dkms.conf, sources and build agree"
