#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The driver's udev rule (docs/driver.md): `udevadm verify` where systemd
# has it (254 and later); otherwise each rule line is a comma-separated
# list of KEY OP "value" with a key udev knows and an operator the key
# takes (== != for matches, = += -= := for assignments). Then the rule's
# own keys: /dev/wseN of the misc class, group plugdev, mode 0660, uaccess.
# Usage: udev-check.sh RULES-FILE
set -eu
rules=$1
fail() { echo "udev-check: $rules: $*" >&2; exit 1; }

if udevadm verify --help > /dev/null 2>&1; then
	udevadm verify --no-style "$rules" || fail "udevadm verify"
else
	match='ACTION|DEVPATH|KERNEL|KERNELS|NAME|SYMLINK|SUBSYSTEM|SUBSYSTEMS|DRIVER|DRIVERS|TAG|TAGS|TEST|PROGRAM|RESULT|CONST\{[a-z]+\}|ENV\{[A-Za-z0-9_]+\}|ATTR\{[^}]+\}|ATTRS\{[^}]+\}|SYSCTL\{[^}]+\}'
	assign='NAME|SYMLINK|OWNER|GROUP|MODE|TAG|ENV\{[A-Za-z0-9_]+\}|ATTR\{[^}]+\}|SYSCTL\{[^}]+\}|RUN(\{[a-z]+\})?|IMPORT\{[a-z]+\}|LABEL|GOTO|OPTIONS|SECLABEL\{[^}]+\}'
	item="[[:space:]]*(($match)(==|!=)|($assign)(=|\\+=|-=|:=))\"[^\"]*\"[[:space:]]*"
	n=0
	while IFS= read -r line; do
		n=$((n + 1))
		case $line in '' | '#'*) continue ;; esac
		echo "$line" | grep -Eqx "$item(,$item)*" ||
			fail "line $n: not KEY OP \"value\", ...: $line"
	done < "$rules"
fi

rule=$(grep -v '^#' "$rules" | tr -d ' ')
for kv in 'KERNEL=="wse[0-9]*"' 'SUBSYSTEM=="misc"' 'GROUP="plugdev"' \
	  'MODE="0660"' 'TAG+="uaccess"'; do
	echo "$rule" | grep -qF "$kv" || fail "no $kv"
done
# The KERNEL glob: every /dev/wseN, nothing else.
for name in wse0 wse7 wse12; do
	case $name in wse[0-9]*) ;; *) fail "KERNEL does not match $name" ;; esac
done
for name in wse wsex0 mywse0; do
	case $name in wse[0-9]*) fail "KERNEL matches $name" ;; esac
done
echo "udev-check: $rules: /dev/wseN, misc, plugdev 0660, uaccess"
