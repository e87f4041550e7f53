#!/usr/bin/python3
"""The FPGA flow's figures: ECP5 resources of each synthesized block (Yosys
stat, hierarchy kept), how many tiles fit each ECP5 size, and the tile's
Fmax and critical paths from nextpnr-ecp5's report. Prints BENCH lines.
With --check, only checks that every synthesis finished and that its
netlist holds ECP5 primitives only (no generic cell left unmapped).

LUT4 counts logic LUTs: each LUT4 cell, and two for each CCU2C (a carry
cell is the two LUT4s of a slice). A TRELLIS_DPR16X4 (16x4 distributed RAM)
takes the six LUT positions of three slices (two hold the RAM, the third
its write port), counted apart from the logic LUTs.
"""
import argparse
import json
import os
import re
import sys

# name: (LUT4, EBR, MULT18X18D), from Lattice's ECP5 family data sheet.
DEVICES = [("85f", 84000, 208, 156), ("45f", 44000, 108, 72), ("25f", 24000, 56, 28),
           ("12f", 12000, 32, 28)]
# The parts bench-fpga reports; the board flow (fit.py) knows them all.
BENCH_DEVICES = ("85f", "45f", "12f")
LUT_SHARE = 0.85
DPR_LUTS = 6


def read_times(d):
    """(result, wall s, CPU s) of a step, or None when it has not run."""
    try:
        with open(os.path.join(d, "times")) as f:
            r, wall, cpu = f.read().split()
        return r, int(wall), int(cpu) if cpu.isdigit() else None
    except (OSError, ValueError):
        return None


def read_stat(d):
    """Cell counts by module from a `stat` of a hierarchical design, and
    the whole design's (the hierarchy section, or the one module). Reads
    both layouts of Yosys's `stat`: "Number of cells: N" followed by
    "TYPE N" lines (Yosys 0.23), and "N cells" followed by "N   TYPE"
    lines, then "N submodules" and the instances as "N   MODULE" lines
    (Yosys 0.5x and later)."""
    mods, cur, cells = {}, None, False
    with open(os.path.join(d, "stat.txt")) as f:
        for line in f:
            m = re.match(r"^=== (.*) ===$", line.strip())
            if m:
                cur, cells = m.group(1), False
                mods[cur] = {}
                continue
            if cur is None:
                continue
            if re.match(r"^\s+Number of cells:", line) or re.match(r"^\s+\d+ cells$", line):
                cells = True
                continue
            m = re.match(r"^\s+(\S+)\s+(\d+)$", line) or re.match(r"^\s+(\d+)\s+(\S+)$", line)
            if m and m.group(2) == "submodules":
                cells = True  # the instances of submodules follow, as cells
                continue
            if cells and m:
                name, n = (m.group(1), m.group(2)) if m.group(2).isdigit() else (m.group(2), m.group(1))
                mods[cur][name] = int(n)
            elif cells and (line.strip() or m):
                cells = False
    total = mods.pop("design hierarchy", None)
    if total is None:
        total = next(iter(mods.values()))
    return mods, total

def resources(cells):
    g = cells.get
    return {
        "lut4": g("LUT4", 0) + 2 * g("CCU2C", 0),
        "ff": g("TRELLIS_FF", 0),
        "dpr": g("TRELLIS_DPR16X4", 0),
        "ebr": g("DP16KD", 0) + g("PDPW16KD", 0),
        "mult": g("MULT18X18D", 0),
        "alu": g("ALU54B", 0),
    }


def short(m):
    """A module's name without Yosys's parameter suffix."""
    return m.split("\\")[1] if m.startswith("$paramod") else m


def subtree(mods, m, memo):
    """Cell counts of module m with everything it instantiates."""
    if m not in memo:
        tot = {}
        for c, n in mods[m].items():
            for k, v in (subtree(mods, c, memo).items() if c in mods else [(c, 1)]):
                tot[k] = tot.get(k, 0) + n * v
        memo[m] = tot
    return memo[m]


def instances(mods, top):
    """How many times each module is instantiated under top."""
    cnt = {top: 1}
    order = [top]
    for m in order:
        for c, n in mods[m].items():
            if c in mods:
                if c not in cnt:
                    order.append(c)
                cnt[c] = cnt.get(c, 0) + cnt[m] * n
    return cnt


def lut_positions(r):
    return r["lut4"] + DPR_LUTS * r["dpr"]


def tiles_fit(r, h, dev):
    """How many tiles of resources r fit device dev beside a host interface
    of resources h (None: not measured, counted as nothing): (tiles,
    {limiting resource: tiles}, LUT4 of the device). The host interface
    takes its LUT positions, its block RAM (request slots, outlet buffers)
    and its multipliers from the device first."""
    _, luts, ebr, mult = next(d for d in DEVICES if d[0] == dev)
    h = h or {"lut4": 0, "dpr": 0, "ebr": 0, "mult": 0}
    hif = lut_positions(h)
    limits = {"LUT": int((LUT_SHARE * luts - hif) // lut_positions(r))}
    if r["ebr"]:
        limits["EBR"] = max(0, ebr - h["ebr"]) // r["ebr"]
    if r["mult"]:
        limits["MULT18X18D"] = max(0, mult - h["mult"]) // r["mult"]
    return max(0, min(limits.values())), limits, luts


def check(blocks):
    ok = True
    for name, d in blocks:
        t = read_times(d)
        if t is None or t[0] != "ok":
            print(f"FAIL fpga {name}: synthesis {t[0] if t else 'did not run'}")
            ok = False
            continue
        mods, total = read_stat(d)
        # Yosys 0.5x and later list a hierarchical design's submodule
        # instances among its cells: those are modules, not generic cells.
        generic = sorted(c for c in total if c.startswith("$") and c not in mods)
        if generic:
            print(f"FAIL fpga {name}: generic cells left: {' '.join(generic)}")
            ok = False
            continue
        r = resources(total)
        print(f"ok   fpga {name}: no latch, no loop, ECP5 cells only "
              f"({r['lut4']} LUT4, {r['ff']} FF, {t[1]} s wall, {t[2]} s CPU)")
    return ok


def bench(name, value, unit):
    if value is None:
        print(f"fpga.{name}: not recorded")
    else:
        print(f"BENCH fpga.{name} {value} {unit}")


def report_block(name, d):
    t = read_times(d)
    if t is None:
        print(f"fpga {name}: synthesis did not run")
        return None
    bench(f"{name}_synth_seconds", t[1], "s")
    bench(f"{name}_synth_cpu_seconds", t[2], "s")
    if t[0] != "ok":
        print(f"fpga {name}: synthesis {t[0]} after {t[1]} s; no figures")
        return None
    if os.path.exists(os.path.join(d, "abc9-plain")):
        print(f"fpga {name}: ABC9 mapped without &dch and &mfs, after its abort "
              "(tests/fpga/synth.sh): more LUT4 than the default mapping")
    mods, total = read_stat(d)
    r = resources(total)
    bench(f"{name}_lut4", r["lut4"], "LUT4")
    bench(f"{name}_ff", r["ff"], "FF")
    bench(f"{name}_dpr16x4", r["dpr"], "TRELLIS_DPR16X4")
    bench(f"{name}_ebr", r["ebr"], "DP16KD")
    bench(f"{name}_mult18", r["mult"], "MULT18X18D")
    return r, mods


def through(logic):
    """The signals a path's logic cells drive, in order, each with how many
    cells in a row (names from the netlist, cell-type suffixes dropped)."""
    seq = []
    for x in logic:
        base = re.split(r"_(?:LUT4|PFUMX|CCU2C|L6MUX21|TRELLIS|MULT18X18D)", x["from"]["cell"])[0]
        base = re.sub(r"\$CCU2_COMB\d", "", base)
        if seq and seq[-1][0] == base:
            seq[-1][1] += 1
        else:
            seq.append([base, 1])
    return " -> ".join(f"{b}({n})" for b, n in seq)


def pnr_report(name, d):
    """Prints the block's figures; returns its Fmax (MHz) or None."""
    t = read_times(d)
    if t is None:
        print(f"fpga {name} place and route: did not run")
        return None
    bench(f"{name}_pnr_seconds", t[1], "s")
    bench(f"{name}_pnr_cpu_seconds", t[2], "s")
    try:
        with open(os.path.join(d, "report.json")) as f:
            rep = json.load(f)
    except (OSError, ValueError):
        print(f"fpga {name} place and route: {t[0]} after {t[1]} s; no report")
        return None
    fmax = rep.get("fmax", {})
    worst = None
    if fmax:
        worst = min(v["achieved"] for v in fmax.values())
        bench(f"{name}_fmax_mhz", f"{worst:.1f}", "MHz")
        for clk, v in sorted(fmax.items()):
            print(f"fpga {name} clock {clk}: {v['achieved']:.1f} MHz achieved, "
                  f"{v['constraint']:.1f} MHz asked")
    for res in ("TRELLIS_COMB", "TRELLIS_FF", "TRELLIS_RAMW", "DP16KD", "MULT18X18D"):
        u = rep.get("utilization", {}).get(res)
        if u:
            print(f"fpga {name} placed: {res} {u['used']} of {u['available']}")
    for p in rep.get("critical_paths", []):
        steps = p.get("path", [])
        logic = [s for s in steps if s.get("type") == "logic"]
        delay = sum(s.get("delay", 0) for s in steps)
        src = steps[0]["from"]["cell"] if steps else "?"
        dst = steps[-1]["to"]["cell"] if steps else "?"
        print(f"fpga {name} critical path {p.get('from')} -> {p.get('to')}: "
              f"{delay:.2f} ns, {len(logic)} cells of logic")
        print(f"  from {src}")
        print(f"  to   {dst}")
        print(f"  routing {sum(x.get('delay', 0) for x in steps if x.get('type') == 'routing'):.2f} ns, "
              f"logic {sum(x.get('delay', 0) for x in logic):.2f} ns")
        print(f"  through {through(logic)}")
    return worst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tile")
    ap.add_argument("--router")
    ap.add_argument("--hostif")
    ap.add_argument("--fpu", help="the FPU alone (reported, not in the estimate)")
    ap.add_argument("--pnr", action="append", default=[], metavar="BLOCK=DIR")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    blocks = [(n, d) for n, d in (("tile", a.tile), ("router", a.router),
                                  ("hostif", a.hostif), ("fpu", a.fpu)) if d]
    if a.check:
        sys.exit(0 if check(blocks) else 1)

    got = {n: report_block(n, d) for n, d in blocks}
    if got.get("tile"):
        r, mods = got["tile"]
        top = max(mods, key=lambda m: sum(subtree(mods, m, {}).values()))
        memo, cnt = {}, instances(mods, top)
        print("fpga tile, module by module (one instance with what it contains; "
              "instances; LUT4 FF DPR16X4 EBR MULT18X18D):")
        for m in sorted(mods, key=lambda m: -resources(subtree(mods, m, memo))["lut4"]):
            x = resources(subtree(mods, m, memo))
            print(f"  {short(m):24s} {cnt.get(m, 0):3d}x {x['lut4']:7d} {x['ff']:6d} "
                  f"{x['dpr']:4d} {x['ebr']:3d} {x['mult']:3d}")
        h = got["hostif"][0] if got.get("hostif") else None
        hif = lut_positions(h) if h else 0
        if not h:
            print("fpga tiles per device: without the host interface (no figure for it)")
        per = lut_positions(r)
        for dev in BENCH_DEVICES:
            n, limits, luts = tiles_fit(r, h, dev)
            name = "ulx3s_tiles_estimate" if dev == "85f" else f"tiles_estimate_{dev}"
            bench(name, n, "tiles")
            print(f"fpga {dev}: {n} tiles (by " +
                  ", ".join(f"{k} {v}" for k, v in limits.items()) +
                  f"; {per} LUT positions a tile, host interface {hif}"
                  f" and {h['ebr'] if h else 0} EBR, "
                  f"{int(LUT_SHARE * 100)}% of {luts} LUT4)")
    fmax = {}
    for p in a.pnr:
        name, d = p.split("=", 1)
        fmax[name] = pnr_report(name, d)
    # Without the tile's own place and route, the slowest block placed
    # apart bounds the tile's clock from above.
    apart = {n: f for n, f in fmax.items() if f is not None}
    if "tile" not in fmax and apart:
        n = min(apart, key=apart.get)
        bench("tile_fmax_mhz", f"{apart[n]:.1f}", "MHz")
        print(f"fpga tile_fmax_mhz: the {n}'s, the lowest of the blocks placed and "
              f"routed apart ({', '.join(sorted(apart))}); an upper bound on the tile's")


if __name__ == "__main__":
    main()
