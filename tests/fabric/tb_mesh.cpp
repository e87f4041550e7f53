// Testbench of wse_fabric_mesh (RTL or gate-level netlist). Route tables
// are written and counters read through the management port only.
//
// Usage: tb_mesh [TEST...] [+verilator+seed+N]
//   TEST: mgmt directed uniform transpose hotspot multicast drops isolation
//         (default: all of them), or bench (figures for make bench-fabric).
//   SEED=n reproduces a run; CYCLES=n sets the length of each random phase.
#include <algorithm>
#include <cmath>

#include "tb_mesh.h"
#include "verilated_cov.h"

using namespace tb;

// ---- Color plan ---------------------------------------------------------
// Destination tiles that own a unicast color (at most 16, spread over
// VC0..VC2), colors for the edge outlets (VC3: host I/O), and the colors
// left for multicast trees.
struct ColorPlan {
  std::vector<int> tile_color;          // per tile, -1 if not a destination
  std::vector<std::pair<int, int>> outlet;  // (endpoint, color)
  std::vector<int> spare;               // unused user colors
};

static ColorPlan make_plan(MeshTb &t) {
  ColorPlan p;
  p.tile_color.assign(kTiles, -1);
  std::vector<int> dests;
  for (int i = 0; i < kTiles; i++) dests.push_back(i);
  if (kTiles > 16) {
    // Sixteen destinations in a random subset.
    for (int i = kTiles - 1; i > 0; i--) std::swap(dests[i], dests[t.rng.below((uint32_t)i + 1)]);
    dests.resize(16);
  }
  std::vector<bool> used(kColors, false);
  for (size_t k = 0; k < dests.size(); k++) {
    int c = dest_color((int)k, 16);
    p.tile_color[dests[k]] = c;
    used[c] = true;
  }
  int oc = 24;
  for (int y = 0; y < kRows && oc < 32; y++) p.outlet.push_back({t.east_ep(y), oc++});
  for (int y = 0; y < kRows && oc < 32; y++) p.outlet.push_back({t.west_ep(y), oc++});
  for (int c = 0; c < 24; c++)
    if (!used[c]) p.spare.push_back(c);
  return p;
}

// XY unicast to every destination tile from every tile and from every
// edge intake; XY to each outlet from every tile.
static void plan_unicast(MeshTb &t, const ColorPlan &p) {
  MeshModel &m = t.m;
  std::vector<int> intakes;
  for (int y = 0; y < kRows; y++) {
    intakes.push_back(t.west_ep(y));
    intakes.push_back(t.east_ep(y));
  }
  for (int d = 0; d < kTiles; d++) {
    int c = p.tile_color[d];
    if (c < 0) continue;
    for (int s = 0; s < kTiles; s++) m.add_path(c, RAMP, m.xy_path(s, d), RAMP);
    for (int ep : intakes) {
      auto ip = m.inject_point(ep);
      m.add_path(c, ip.second, m.xy_path(ip.first, d), RAMP);
    }
  }
  for (auto &o : p.outlet) {
    auto ip = m.inject_point(o.first);  // (edge tile, direction)
    for (int s = 0; s < kTiles; s++) m.add_path(o.second, RAMP, m.xy_path(s, ip.first), ip.second);
  }
}

// A multicast tree: XY paths from the root to each target, merged.
static void plan_tree(MeshTb &t, int color, int root_ep, const std::vector<int> &targets) {
  auto ip = t.m.inject_point(root_ep);
  for (int d : targets) t.m.add_path(color, ip.second, t.m.xy_path(ip.first, d), RAMP);
}

static std::vector<int> random_targets(MeshTb &t, int n) {
  std::vector<int> all;
  for (int i = 0; i < kTiles; i++) all.push_back(i);
  for (int i = kTiles - 1; i > 0; i--) std::swap(all[i], all[t.rng.below((uint32_t)i + 1)]);
  all.resize(std::min(n, kTiles));
  return all;
}

static int pick_dest(MeshTb &t, const ColorPlan &p, Pattern pat, int s, int hotspot) {
  for (int tries = 0; tries < 8; tries++) {
    int d = pattern_dest(pat, t.m, s, t.rng, hotspot);
    if (d < 0) return -1;
    if (p.tile_color[d] >= 0) return d;
    if (pat == Pattern::Transpose) return -1;
  }
  return -1;
}

// ---- Tests ----------------------------------------------------------------
static void test_directed(MeshTb &t) {
  t.clear_routes();
  t.clear_counters();
  ColorPlan p = make_plan(t);
  plan_unicast(t, p);
  t.program_routes();
  t.set_sinks(SinkPolicy{});
  // Every tile to every destination, every intake to every destination,
  // every tile to every outlet: a few wavelets each.
  for (int s = 0; s < kTiles; s++)
    for (int d = 0; d < kTiles; d++)
      if (p.tile_color[d] >= 0)
        for (int i = 0; i < 2; i++) t.send(s, p.tile_color[d], i == 1);
  for (int y = 0; y < kRows; y++)
    for (int d = 0; d < kTiles; d++)
      if (p.tile_color[d] >= 0) {
        t.send(t.west_ep(y), p.tile_color[d], false);
        t.send(t.east_ep(y), p.tile_color[d], false);
      }
  for (int s = 0; s < kTiles; s++)
    for (auto &o : p.outlet) t.send(s, o.second, false);
  t.drain("directed-unicast");
  t.check_counters("directed-unicast");

  // Multicast: a broadcast tree from a west intake to every tile, and a
  // five-way fork at an inner tile (RAMP + four neighbours).
  t.clear_routes();
  t.clear_counters();
  int cb = 6, cf = 13;
  std::vector<int> all;
  for (int i = 0; i < kTiles; i++) all.push_back(i);
  plan_tree(t, cb, t.west_ep(kRows / 2), all);
  if (kCols >= 3 && kRows >= 3) {
    int r = t.m.tile(1, 1);
    plan_tree(t, cf, r, {r, t.m.tile(0, 1), t.m.tile(2, 1), t.m.tile(1, 0), t.m.tile(1, 2)});
  } else {
    plan_tree(t, cf, 0, all);
  }
  t.program_routes();
  t.random_sinks();
  for (int i = 0; i < 30; i++) {
    t.send(t.west_ep(kRows / 2), cb, false);
    t.send(kCols >= 3 && kRows >= 3 ? t.m.tile(1, 1) : 0, cf, false);
  }
  t.drain("directed-multicast");
  t.check_counters("directed-multicast");
  t.result("directed");
}

// Seeded random unicast traffic of one pattern, plus multicast trees on the
// spare colors, with random back-pressure at every sink.
static void test_pattern(MeshTb &t, Pattern pat, uint64_t cycles) {
  t.clear_routes();
  t.clear_counters();
  ColorPlan p = make_plan(t);
  plan_unicast(t, p);
  // Two random multicast trees (one from a tile, one from an intake).
  std::vector<std::pair<int, int>> trees;  // (root endpoint, color)
  if (p.spare.size() >= 2) {
    int r0 = (int)t.rng.below(kTiles);
    plan_tree(t, p.spare[0], r0, random_targets(t, 2 + (int)t.rng.below(kTiles - 1)));
    trees.push_back({r0, p.spare[0]});
    int r1 = t.west_ep((int)t.rng.below(kRows));
    plan_tree(t, p.spare[1], r1, random_targets(t, 2 + (int)t.rng.below(kTiles - 1)));
    trees.push_back({r1, p.spare[1]});
  }
  t.program_routes();
  t.random_sinks();
  int hotspot = -1;
  for (int d = 0; d < kTiles && hotspot < 0; d++)
    if (p.tile_color[(d + (int)t.rng.below(kTiles)) % kTiles] >= 0) hotspot = (d + 0) % kTiles;
  while (p.tile_color[hotspot] < 0) hotspot = (hotspot + 1) % kTiles;
  std::vector<double> rate(t.m.num_endpoints());
  for (double &r : rate) r = 0.1 + 0.6 * t.rng.uniform();
  for (uint64_t c = 0; c < cycles; c++) {
    for (int s = 0; s < kTiles; s++) {
      if (!t.rng.chance(rate[s]) || t.tx[s].queued() >= 12) continue;
      int d = pick_dest(t, p, pat, s, hotspot);
      if (d >= 0) t.send(s, p.tile_color[d], t.rng.chance(0.05));
    }
    for (int y = 0; y < kRows; y++) {
      int e = t.west_ep(y);
      if (t.rng.chance(rate[e] * 0.3) && t.tx[e].queued() < 12) {
        int d = pick_dest(t, p, Pattern::Uniform, t.m.tile(0, y), hotspot);
        if (d >= 0) t.send(e, p.tile_color[d], false);
      }
    }
    if (!p.outlet.empty() && t.rng.chance(0.1)) {
      auto &o = p.outlet[t.rng.below((uint32_t)p.outlet.size())];
      int s = (int)t.rng.below(kTiles);
      if (t.tx[s].queued() < 12) t.send(s, o.second, false);
    }
    for (auto &tr : trees)
      if (t.rng.chance(0.05) && t.tx[tr.first].queued() < 12) t.send(tr.first, tr.second, false);
    t.step();
  }
  t.drain(pattern_name(pat));
  t.check_counters(pattern_name(pat));
  t.result(pattern_name(pat));
}

// Random multicast trees only, several per phase, fan-outs up to every tile.
static void test_multicast(MeshTb &t, uint64_t cycles) {
  t.clear_routes();
  t.clear_counters();
  std::vector<std::pair<int, int>> trees;
  std::vector<int> colors = {0, 8, 16, 24, 3, 11, 19, 27};
  for (int c : colors) {
    int root = t.rng.chance(0.3) ? t.west_ep((int)t.rng.below(kRows)) : (int)t.rng.below(kTiles);
    plan_tree(t, c, root, random_targets(t, 1 + (int)t.rng.below(kTiles)));
    trees.push_back({root, c});
  }
  t.program_routes();
  t.random_sinks();
  for (uint64_t c = 0; c < cycles; c++) {
    for (auto &tr : trees)
      if (t.rng.chance(0.08) && t.tx[tr.first].queued() < 12) t.send(tr.first, tr.second, t.rng.chance(0.05));
    t.step();
  }
  t.drain("multicast");
  t.check_counters("multicast");
  t.result("multicast");
}

// Drops: wavelets sent into colors whose rx masks exclude the arrival port,
// at the source and in the middle of a tree; counted exactly per port.
static void test_drops(MeshTb &t) {
  t.clear_routes();
  t.clear_counters();
  ColorPlan p = make_plan(t);
  plan_unicast(t, p);
  // A tree with one rx bit removed at a random tile on it.
  int c = p.spare.empty() ? 23 : p.spare[0];
  int root = (int)t.rng.below(kTiles);
  plan_tree(t, c, root, random_targets(t, kTiles));
  std::vector<int> on;
  for (int i = 0; i < kTiles; i++)
    if (i != root && t.m.rt[i][c].rx) on.push_back(i);
  if (!on.empty()) {
    int v = on[t.rng.below((uint32_t)on.size())];
    t.m.rt[v][c].rx = 0;
  }
  // A color routed nowhere but accepted (empty tx mask) at one tile.
  int cz = p.spare.size() > 1 ? p.spare[1] : 22;
  int tz = (int)t.rng.below(kTiles);
  t.m.rt[tz][cz] = Route{0x1f, 0};
  t.program_routes();
  t.random_sinks();
  for (int i = 0; i < 200; i++) {
    int s = (int)t.rng.below(kTiles);
    switch (t.rng.below(4)) {
      case 0: t.send(root, c, false); break;
      case 1: t.send(s, c, false); break;           // not the root: dropped at once
      case 2: t.send(tz, cz, false); break;
      default: {
        int d = pick_dest(t, p, Pattern::Uniform, s, 0);
        if (d >= 0) t.send(s, p.tile_color[d], false);
      }
    }
    if (t.rng.chance(0.5)) t.step();
  }
  t.drain("drops");
  t.check_counters("drops");
  t.result("drops");
}

// Color isolation: color A (VC0) and colors B, C (VC1, VC2) share the links
// of row 0 eastwards. A's sink never reads A; B (to the east outlet) and C
// (to the same RAMP as A) must keep flowing.
static void test_isolation(MeshTb &t) {
  t.clear_routes();
  t.clear_counters();
  const int ca = 1, cb = 9, cc = 17;
  int src = t.m.tile(0, 0), dst = t.m.tile(kCols - 1, 0), out = t.east_ep(0);
  t.m.add_path(ca, RAMP, t.m.xy_path(src, dst), RAMP);
  t.m.add_path(cc, RAMP, t.m.xy_path(src, dst), RAMP);
  t.m.add_path(cb, RAMP, t.m.xy_path(src, dst), E);
  t.program_routes();
  t.set_sinks(SinkPolicy{});
  SinkPolicy stop;
  stop.never = true;
  t.rx[dst].set_policy(ca, stop);
  if (g_color_vc[ca] == g_color_vc[cb] || g_color_vc[ca] == g_color_vc[cc])
    fail("isolation: colors %d/%d/%d must be on different VCs", ca, cb, cc);
  // Fill A's path first, then offer B and C at full rate.
  for (int i = 0; i < 64; i++) t.send(src, ca, false);
  for (int i = 0; i < 200; i++) t.step();
  uint64_t b0 = t.rx[out].consumed, c0 = t.rx[dst].consumed, t0 = t.cycle;
  const int n = 1000;
  for (int i = 0; i < n; i++) {
    if (t.tx[src].queued_vc(g_color_vc[cb]) < 4) t.send(src, cb, false);
    if (t.tx[src].queued_vc(g_color_vc[cc]) < 4) t.send(src, cc, false);
    t.step();
  }
  double dt = (double)(t.cycle - t0);
  double tb = (double)(t.rx[out].consumed - b0) / dt, tc = (double)(t.rx[dst].consumed - c0) / dt;
  note("isolation: color %d (VC%d) never read; color %d (VC%d) %.3f/cycle, color %d (VC%d) %.3f/cycle", ca,
       g_color_vc[ca], cb, g_color_vc[cb], tb, cc, g_color_vc[cc], tc);
  if (tb + tc < 0.9 || tb < 0.4 || tc < 0.4)
    fail("isolation: blocked color %d slows colors %d/%d to %.3f + %.3f per cycle (need >= 0.9 together)", ca, cb,
         cc, tb, tc);
  printf("RESULT isolation blocked=%d flowing=%d,%d\n", ca, cb, cc);
  // Release A: everything arrives, in order.
  t.set_sinks(SinkPolicy{});
  t.drain("isolation");
  t.check_counters("isolation");
  t.result("isolation");
}

// ---- Benchmarks ---------------------------------------------------------
// Accepted vs offered load for a traffic generator callback; returns the
// accepted deliveries per cycle over the measurement window.
struct Point {
  double offered, accepted, latency;
};

template <typename Gen>
static Point measure(MeshTb &t, double rate, uint64_t warm, uint64_t win, Gen gen) {
  uint64_t d0 = 0, l0 = t.sb.lat_sum, n0 = t.sb.n_delivered;
  for (uint64_t c = 0; c < warm + win; c++) {
    if (c == warm) {
      d0 = t.sb.n_delivered;
      l0 = t.sb.lat_sum;
      n0 = t.sb.n_delivered;
    }
    gen(rate);
    t.step();
  }
  Point p;
  p.offered = rate;
  p.accepted = (double)(t.sb.n_delivered - d0) / (double)win;
  p.latency = (double)(t.sb.lat_sum - l0) / std::max<double>(1, (double)(t.sb.n_delivered - n0));
  t.drain("bench", 2000000);
  return p;
}

static void bench_basic(MeshTb &t) {
  t.clear_routes();
  ColorPlan p = make_plan(t);
  plan_unicast(t, p);
  t.program_routes();
  t.set_sinks(SinkPolicy{});
  // Zero-load latency from tile 0 to each destination, by hop count.
  std::map<int, std::pair<double, int>> byhop;
  for (int d = 0; d < kTiles; d++) {
    if (p.tile_color[d] < 0 || d == 0) continue;
    int h = std::abs(t.m.tx_of(d)) + std::abs(t.m.ty_of(d));
    uint64_t l0 = t.sb.lat_sum, n0 = t.sb.n_delivered;
    t.send(0, p.tile_color[d], false);
    t.drain("latency");
    byhop[h].first += (double)(t.sb.lat_sum - l0) / (double)(t.sb.n_delivered - n0);
    byhop[h].second++;
  }
  printf("hops  latency(cycles, RAMP to RAMP)\n");
  for (auto &kv : byhop) printf("%4d  %.2f\n", kv.first, kv.second.first / kv.second.second);
  auto lo = *byhop.begin(), hi = *byhop.rbegin();
  double slope = (hi.second.first / hi.second.second - lo.second.first / lo.second.second) / (hi.first - lo.first);
  printf("BENCH fabric.hop_latency %.2f cycles\n", slope);
  // One port under a saturating flow: west intake of row 0 to the east
  // outlet of row 0 (through every router of the row).
  int oc = -1;
  for (auto &o : p.outlet)
    if (o.first == t.east_ep(0)) oc = o.second;
  int src = t.west_ep(0);
  t.m.add_path(oc, W, t.m.xy_path(t.m.tile(0, 0), t.m.tile(kCols - 1, 0)), E);
  t.program_routes();
  Point pt = measure(t, 1.0, 200, 2000, [&](double) {
    if (t.tx[src].queued() < 8) t.send(src, oc, false);
  });
  printf("BENCH fabric.port_throughput %.3f wavelets/cycle\n", pt.accepted);
}

static void bench_uniform(MeshTb &t) {
  t.clear_routes();
  ColorPlan p = make_plan(t);
  plan_unicast(t, p);
  t.program_routes();
  t.set_sinks(SinkPolicy{});
  // Bound: the load of the busiest channel (link or RAMP output) per unit
  // of offered load, with the destinations pick_dest draws (uniform over
  // the other tiles that own a color) and the routes as programmed. The
  // textbook 4/k assumes a tile may send to itself; here it may not, which
  // puts 16/15 of the 4/k load on the middle links of a 4x4 mesh.
  std::map<std::pair<int, int>, double> load;  // (tile, out port) -> wavelets per unit rate
  for (int s = 0; s < kTiles; s++) {
    std::vector<int> ds;
    for (int d = 0; d < kTiles; d++)
      if (d != s && p.tile_color[d] >= 0) ds.push_back(d);
    if (ds.empty()) continue;
    double a = (double)ds.size() / (double)(kTiles - 1);
    double per = (1.0 - std::pow(1.0 - a, 8)) / (double)ds.size();  // pick_dest: up to 8 tries
    for (int d : ds) {
      std::vector<int> dests;
      std::vector<std::pair<int, int>> drops, fwds;
      t.m.propagate(s, RAMP, p.tile_color[d], dests, drops, &fwds);
      for (auto &f : fwds) load[f] += per;
    }
  }
  double maxload = 0;
  for (auto &kv : load) maxload = std::max(maxload, kv.second);
  double bound = std::min(1.0, 1.0 / maxload);  // wavelets per cycle per node; 1 = the RAMP input
  int k = std::max(kCols, kRows);
  printf("uniform random %dx%d, one color per destination; bound %.4f per node (busiest channel %.4f x offered;"
         " 4/k = %.3f)\n", kCols, kRows, bound, maxload, 4.0 / k);
  printf("offered/node  accepted/node  fraction  latency\n");
  double best = 0;
  for (double r : {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0}) {
    Point pt = measure(t, r, 300, 2000, [&](double rate) {
      for (int s = 0; s < kTiles; s++) {
        if (!t.rng.chance(rate)) continue;
        int d = pick_dest(t, p, Pattern::Uniform, s, 0);
        if (d >= 0) t.send(s, p.tile_color[d], false);
      }
    });
    double acc = pt.accepted / kTiles;
    best = std::max(best, acc);
    printf("%12.2f  %13.3f  %8.3f  %7.1f\n", r, acc, acc / bound, pt.latency);
  }
  // The figure asked for: accepted throughput over the textbook 4/k bound;
  // then the same over the bound of this traffic on these routes.
  printf("BENCH fabric.uniform_saturation_%dx%d %.3f fraction\n", kCols, kRows, best / std::min(1.0, 4.0 / k));
  printf("BENCH fabric.uniform_saturation_%dx%d_channel_bound %.3f fraction\n", kCols, kRows, best / bound);
}

// The training kernels' pattern: weights multicast along each row from the
// west intake (VC0), partial sums passed down each column to the next tile
// (VC1, two colors alternating by row). Link bound: a RAMP below row 0
// takes both flows, so each stream can reach 1/2 wavelet per cycle. The
// multicast rate is that of rows 1.. (row 0's RAMP carries only the
// multicast and may take more; it is not averaged in).
static void bench_pattern(MeshTb &t) {
  t.clear_routes();
  const int ca = 0, cr[2] = {8, 9};
  for (int y = 0; y < kRows; y++) {
    std::vector<int> row;
    for (int x = 0; x < kCols; x++) row.push_back(t.m.tile(x, y));
    for (int x = 0; x < kCols; x++) t.m.add_path(ca, W, std::vector<int>(row.begin(), row.begin() + x + 1), RAMP);
  }
  for (int x = 0; x < kCols; x++)
    for (int y = 0; y + 1 < kRows; y++) t.m.add_path(cr[y % 2], RAMP, {t.m.tile(x, y), t.m.tile(x, y + 1)}, RAMP);
  t.program_routes();
  t.set_sinks(SinkPolicy{});
  const double lam_max = 0.5;
  printf("row multicast + column reduction %dx%d; link bound %.2f per stream\n", kCols, kRows, lam_max);
  printf("offered/stream  multicast/stream  reduction/stream  min/bound  latency\n");
  // Deliveries to the RAMPs of rows 1.. (both flows).
  auto below_row0 = [&]() {
    uint64_t n = 0;
    for (int y = 1; y < kRows; y++)
      for (int x = 0; x < kCols; x++) {
        size_t e = (size_t)t.m.tile(x, y);
        if (e < t.sb.delivered_ep.size()) n += t.sb.delivered_ep[e];
      }
    return n;
  };
  double best = 0;
  for (double r : {0.1, 0.2, 0.3, 0.4, 0.45, 0.5, 0.6, 0.8, 1.0}) {
    uint64_t mc0 = 0, rd0 = 0;
    const uint64_t warm = 300, win = 2000;
    uint64_t mc1 = 0, rd1 = 0;
    uint64_t l0 = 0, n0 = 0;
    for (uint64_t c = 0; c < warm + win; c++) {
      if (c == warm) {
        mc0 = below_row0();
        rd0 = t.sb.delivered_color[cr[0]] + t.sb.delivered_color[cr[1]];
        l0 = t.sb.lat_sum;
        n0 = t.sb.n_delivered;
      }
      for (int y = 0; y < kRows; y++)
        if (t.rng.chance(r)) t.send(t.west_ep(y), ca, false);
      for (int x = 0; x < kCols; x++)
        for (int y = 0; y + 1 < kRows; y++)
          if (t.rng.chance(r)) t.send(t.m.tile(x, y), cr[y % 2], false);
      t.step();
    }
    mc1 = below_row0();
    rd1 = t.sb.delivered_color[cr[0]] + t.sb.delivered_color[cr[1]];
    mc1 -= rd1 - rd0;  // the reductions all land below row 0
    double lat = (double)(t.sb.lat_sum - l0) / std::max<double>(1, (double)(t.sb.n_delivered - n0));
    // Accepted rate of one stream: deliveries per receiving RAMP per cycle.
    double mc = (double)(mc1 - mc0) / (double)(kCols * (kRows - 1) * win);
    double rd = (double)(rd1 - rd0) / (double)(kCols * (kRows - 1) * win);
    double frac = std::min(mc, rd) / lam_max;
    best = std::max(best, frac);
    printf("%14.2f  %16.3f  %16.3f  %9.3f  %7.1f\n", r, mc, rd, frac, lat);
    t.drain("bench", 2000000);
  }
  printf("BENCH fabric.pattern_saturation_%dx%d %.3f fraction\n", kCols, kRows, best);
}

int main(int argc, char **argv) {
  char prog[32];
  snprintf(prog, sizeof prog, "tb_mesh%dx%d", kCols, kRows);
  uint64_t seed = seed_from_env(strdup(prog));
  init_color_vc();
  std::vector<std::string> tests;
  for (int i = 1; i < argc; i++)
    if (argv[i][0] != '+') tests.push_back(argv[i]);
  if (tests.empty())
    tests = {"mgmt", "directed", "uniform", "transpose", "hotspot", "multicast", "drops", "isolation"};
  uint64_t cycles = getenv("CYCLES") ? strtoull(getenv("CYCLES"), nullptr, 0) : 3000;

  MeshTb t(argc, argv, seed);
  t.reset();
  for (auto &n : tests) {
    if (n == "mgmt") mgmt_tests(t);
    else if (n == "directed") test_directed(t);
    else if (n == "uniform") test_pattern(t, Pattern::Uniform, cycles);
    else if (n == "transpose") test_pattern(t, Pattern::Transpose, cycles);
    else if (n == "hotspot") test_pattern(t, Pattern::Hotspot, cycles);
    else if (n == "neighbour") test_pattern(t, Pattern::Neighbour, cycles);
    else if (n == "multicast") test_multicast(t, cycles);
    else if (n == "drops") test_drops(t);
    else if (n == "isolation") test_isolation(t);
    else if (n == "bench-basic") bench_basic(t);
    else if (n == "bench-uniform") bench_uniform(t);
    else if (n == "bench-pattern") bench_pattern(t);
    else fail("unknown test %s", n.c_str());
  }
  t.sb.all_delivered(true);
  printf("RESULT %s digest=%016llx\n", prog, (unsigned long long)t.dig.h);
  t.dut->final();
#if VM_COVERAGE
  if (const char *cf = getenv("COVERAGE_FILE")) t.ctx->coveragep()->write(cf);
#endif
  if (g_errors) {
    printf("%s: FAIL (%d errors); reproduce with SEED=%llu\n", prog, g_errors, (unsigned long long)seed);
    return 1;
  }
  printf("%s: PASS (%llu wavelets, %llu deliveries, %llu management requests, %llu cycles)\n", prog,
         (unsigned long long)t.sb.n_injected, (unsigned long long)t.sb.n_delivered,
         (unsigned long long)t.mgmt_reqs, (unsigned long long)t.cycle);
  return 0;
}
