#!/usr/bin/python3
"""The board flow's fit check, before the board top is synthesized: does
the mesh a board's .dts asks for fit its FPGA? From the synthesized tile
and host interface (Yosys stat, as bench-fpga counts them: tests/fpga/
report.py), a mesh of N tiles fits when N tiles and the host interface
take at most 85% of the part's LUT4 and fit its block RAM and multipliers.
Exit 0 when it fits, 1 (with the board and the figures named) when not.

Usage: fit.py BOARD TILES DEVICE --tile DIR [--hostif DIR]
"""
import argparse
import sys

import report


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("board")
    ap.add_argument("tiles", type=int)
    ap.add_argument("device", help="e.g. LFE5U-85F")
    ap.add_argument("--tile", required=True)
    ap.add_argument("--hostif")
    a = ap.parse_args()
    dev = a.device.split("-")[-1].lower()
    if dev not in [d[0] for d in report.DEVICES]:
        sys.exit(f"{a.board}: FPGA {a.device}: unknown part")
    t = report.read_times(a.tile)
    if t is None or t[0] != "ok":
        sys.exit(f"{a.board}: no synthesized tile in {a.tile} to size the mesh by")
    r = report.resources(report.read_stat(a.tile)[1])
    h, note = None, "host interface not measured (its synthesis did not finish)"
    t = report.read_times(a.hostif) if a.hostif else None
    if t is not None and t[0] == "ok":
        h = report.resources(report.read_stat(a.hostif)[1])
        note = (f"host interface {report.lut_positions(h)} LUT positions, "
                f"{h['ebr']} EBR, {h['mult']} MULT18X18D")
    n, limits, luts = report.tiles_fit(r, h, dev)
    figures = (f"a tile takes {report.lut_positions(r)} LUT positions, "
               f"{r['ebr']} EBR, {r['mult']} MULT18X18D; {note}; "
               f"at most {int(report.LUT_SHARE * 100)}% of {luts} LUT4")
    if a.tiles > n:
        by = ", ".join(f"{k} {v}" for k, v in limits.items())
        print(f"{a.board}: the .dts asks for {a.tiles} tiles; the {a.device} holds "
              f"{n} ({by}): {figures}", file=sys.stderr)
        sys.exit(1)
    print(f"{a.board}: {a.tiles} tiles fit the {a.device} (up to {n}): {figures}")


if __name__ == "__main__":
    main()
