#!/usr/bin/python3
"""The board flow's pin check, before synthesis: every port of the board's
top (boards/<board>/*_top.sv) must have a site in the board's LPF, and no
two ports may share a site. A port without one asks for a pin the board
does not have (or that its constraint file does not name): refused by
name, exit 1.

Usage: pins.py BOARD TOP.sv BOARD.lpf
"""
import re
import sys


def top_ports(path):
    """The top module's ports, vectors expanded to name[i]."""
    text = re.sub(r"//[^\n]*", "", open(path).read())
    m = re.search(r"\bmodule\s+(\w+)\s*(?:#\s*\(.*?\)\s*)?\((.*?)\);", text, re.S)
    if not m:
        sys.exit(f"{path}: no module header found")
    ports = []
    for decl in m.group(2).split(","):
        d = re.match(r"\s*(?:input|output|inout)\s+(?:logic|wire)?\s*(\[\s*(\d+)\s*:\s*(\d+)\s*\])?\s*(\w+)\s*$",
                     decl)
        if not d:
            sys.exit(f"{path}: port declaration not understood: {decl.strip()}")
        if d.group(1):
            hi, lo = int(d.group(2)), int(d.group(3))
            ports += [f"{d.group(4)}[{i}]" for i in range(min(hi, lo), max(hi, lo) + 1)]
        else:
            ports.append(d.group(4))
    return m.group(1), ports


def lpf_sites(path):
    sites = {}
    for n, line in enumerate(open(path), 1):
        m = re.match(r'\s*LOCATE\s+COMP\s+"([^"]+)"\s+SITE\s+"([^"]+)"\s*;', line)
        if m:
            sites[m.group(1)] = (m.group(2), n)
    return sites


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[-1])
    board, top, lpf = sys.argv[1:]
    name, ports = top_ports(top)
    sites = lpf_sites(lpf)
    bad = [p for p in ports if p not in sites]
    for p in bad:
        print(f"{board}: port {p} of {name} has no site in {lpf}: "
              f"the board has no such pin", file=sys.stderr)
    used = {}
    for p in ports:
        if p in sites:
            s = sites[p][0]
            if s in used:
                print(f"{board}: ports {used[s]} and {p} of {name} share site {s} in {lpf}",
                      file=sys.stderr)
                bad.append(p)
            used[s] = p
    if bad:
        sys.exit(1)
    print(f"{board}: {len(ports)} ports of {name}, each on its own site of {lpf}")


if __name__ == "__main__":
    main()
