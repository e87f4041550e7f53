#!/usr/bin/env python3
"""Check that the RTL package rtl/host_if/hif_pkg.sv mirrors the link
protocol section of include/wsemu/wse_wire.h: every numeric #define of that
section has a localparam of the same value in the package (WSE_OP_MEM_READ
-> OpMemRead), and the package defines nothing else.
   check_wire.py WIRE_H PKG_SV       (exit 1 on any difference)
   check_wire.py --emit WIRE_H       (print a package body)"""
import re
import sys

def camel(name):
    return "".join(w.capitalize() for w in name[len("WSE_"):].split("_"))

def c_defs(path):
    text = open(path).read()
    sec = text[text.index("Link protocol"):]
    out = {}
    for m in re.finditer(r"^#define\s+(WSE_\w+)\s+(0x[0-9A-Fa-f]+|\d+)u?\b", sec, re.M):
        out[camel(m.group(1))] = (m.group(1), int(m.group(2), 0))
    return out

def sv_defs(path):
    out = {}
    for m in re.finditer(r"localparam\s+int\s+unsigned\s+(\w+)\s*=\s*(?:32'h([0-9A-Fa-f_]+)|(\d+))\s*;",
                         open(path).read()):
        out[m.group(1)] = int(m.group(2).replace("_", ""), 16) if m.group(2) else int(m.group(3))
    return out

if sys.argv[1] == "--emit":
    for k, (c, v) in c_defs(sys.argv[2]).items():
        val = "32'h%08X" % v if v > 0xFFFF else str(v)
        print("  localparam int unsigned %-22s = %s;  // %s" % (k, val, c))
    sys.exit(0)

c, sv = c_defs(sys.argv[1]), sv_defs(sys.argv[2])
bad = 0
for k, (name, v) in c.items():
    if k not in sv:
        print("missing in %s: %s (%s = %d)" % (sys.argv[2], k, name, v)); bad = 1
    elif sv[k] != v:
        print("differs: %s = %d in C, %d in SV" % (name, v, sv[k])); bad = 1
for k in sv:
    if k not in c:
        print("only in %s: %s" % (sys.argv[2], k)); bad = 1
if not bad:
    print("check_wire: %d protocol constants agree between wse_wire.h and hif_pkg.sv" % len(c))
sys.exit(bad)
