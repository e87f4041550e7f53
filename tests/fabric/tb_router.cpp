// Testbench of one wse_router: the testbench drives all five ports (four
// links and the RAMP) as credit-based link ends, writes the route table
// through the router's route port, and checks every wavelet against the
// reference route model and the router's own counters.
//
// Usage: tb_router [TEST...] [+verilator+seed+N]
//   TEST: directed fanout drops full random isolation bench (default: all
//   but bench). SEED=n reproduces a run; CYCLES=n scales the random test.
#include <memory>

#include "Vwse_router.h"
#include "tb_common.h"
#include "tb_link.h"
#include "tb_vl.h"
#include "verilated.h"
#include "verilated_cov.h"
#include "wse_cfg.h"

using namespace tb;

static const int kVc = WSE_CFG_NUM_VC;
static const int kDepth = WSE_CFG_VC_DEPTH;
static const int kRampDepth = WSE_CFG_RAMP_COLOR_DEPTH;
static const int kW = WSE_WAVELET_BITS;

struct RouterTb {
  std::unique_ptr<VerilatedContext> ctx;
  std::unique_ptr<Vwse_router> dut;
  MeshModel m{1, 1};
  Scoreboard sb{m};
  Rng rng;
  TxEnd tx[kPorts];
  RxEnd rx[kPorts];
  uint64_t cycle = 0;
  uint64_t exp_drop[kPorts] = {}, exp_fwd[kPorts] = {};
  Digest dig;

  // Endpoint of port p: the RAMP is tile 0, a link the edge endpoint.
  int ep(int p) const { return p == RAMP ? 0 : m.edge_endpoint(0, p); }
  int port_of_ep(int e) const {
    if (e == 0) return RAMP;
    return m.inject_point(e).second;
  }

  RouterTb(int argc, char **argv, uint64_t seed) : rng(seed) {
    ctx.reset(new VerilatedContext);
    ctx->commandArgs(argc, argv);
    dut.reset(new Vwse_router(ctx.get(), "TOP"));
    for (int p = 0; p < kPorts; p++) {
      tx[p] = TxEnd(std::string("router.in.") + port_name(p), kVc, kDepth);
      if (p == RAMP)
        rx[p] = RxEnd("router.out.RAMP", ep(p), true, kColors, kRampDepth);
      else
        rx[p] = RxEnd(std::string("router.out.") + port_name(p), ep(p), false, kVc, kDepth);
    }
  }

  void clear_inputs() {
    dut->link_in_valid_i = 0;
    dut->ramp_in_valid_i = 0;
    dut->link_out_credit_i = 0;
    dut->ramp_out_credit_i = 0;
    dut->route_we_i = 0;
    dut->cnt_clear_i = 0;
  }

  void tick() {
    dut->clk_i = 0;
    dut->eval();
    dut->clk_i = 1;
    dut->eval();
    ctx->timeInc(1);
    cycle++;
  }

  void reset() {
    clear_inputs();
    dut->rst_ni = 1;
    dut->clk_i = 0;
    dut->eval();
    dut->rst_ni = 0;
    dut->eval();
    for (int i = 0; i < 3; i++) tick();
    dut->rst_ni = 1;
    tick();
  }

  // One cycle of traffic: take the DUT's outputs of the last edge, let the
  // sinks drain and the sources send, then clock.
  void step() {
    for (int d = 0; d < 4; d++) {
      if (get_bit(dut->link_out_valid_o, d)) {
        uint64_t w = get_bits(dut->link_out_data_o, d * kW, kW);
        rx[d].arrive(w, cycle);
      }
      for (int v = 0; v < kVc; v++)
        if (get_bit(dut->link_in_credit_o, d * kVc + v)) tx[d].credit(v, cycle);
    }
    if (dut->ramp_out_valid_o) rx[RAMP].arrive(get_bits(dut->ramp_out_data_o, 0, kW), cycle);
    for (int v = 0; v < kVc; v++)
      if (get_bit(dut->ramp_in_credit_o, v)) tx[RAMP].credit(v, cycle);

    // Sinks: credits go back for what they consumed.
    uint64_t lc = 0;
    for (int d = 0; d < 4; d++) lc |= rx[d].consume(rng, sb, cycle) << (d * kVc);
    set_bits(dut->link_out_credit_i, 0, 4 * kVc, lc);
    set_bits(dut->ramp_out_credit_i, 0, kColors, rx[RAMP].consume(rng, sb, cycle));

    // Sources. Idle data is random so that a router that looks at data
    // without valid shows up as corruption.
    uint32_t lv = 0;
    for (int p = 0; p < kPorts; p++) {
      Pending pk;
      uint64_t w;
      bool v = tx[p].pick(pk);
      if (v) {
        w = wav_make(pk.data, pk.color, pk.ctrl);
        sb.injected(pk.data, cycle);
      } else {
        w = rng.next() & ((1ull << kW) - 1);
      }
      if (p == RAMP) {
        dut->ramp_in_valid_i = v;
        set_bits(dut->ramp_in_data_i, 0, kW, w);
      } else {
        lv |= (uint32_t)v << p;
        set_bits(dut->link_in_data_i, p * kW, kW, w);
      }
    }
    dut->link_in_valid_i = lv;
    tick();
  }

  void write_route(int color, Route r) {
    dut->route_we_i = 1;
    dut->route_color_i = color;
    dut->route_wdata_i = ((uint32_t)r.rx << 5) | r.tx;
    tick();
    dut->route_we_i = 0;
    m.rt[0][color] = r;
  }

  // Queues one wavelet at input port p; the reference model says where it
  // must arrive.
  void send(int p, int color, bool ctrl) {
    std::vector<int> dests;
    std::vector<std::pair<int, int>> drops;
    m.propagate(0, p, color, dests, drops);
    for (auto &d : drops) exp_drop[d.second]++;
    for (int e : dests) exp_fwd[port_of_ep(e)]++;
    uint32_t data = sb.expect(ep(p), color, ctrl, dests, (int)drops.size(), cycle);
    tx[p].push(Pending{data, (uint8_t)color, ctrl});
  }

  bool busy() const {
    for (int p = 0; p < kPorts; p++)
      if (!tx[p].idle() || rx[p].held()) return true;
    return sb.outstanding() != 0;
  }

  // Runs until everything sent was delivered and all credits are home.
  bool drain(const char *what, uint64_t limit = 20000) {
    uint64_t t0 = cycle;
    while (busy() && cycle - t0 < limit) step();
    for (int i = 0; i < 4; i++) step();  // late duplicates show up here
    if (busy()) {
      fail("%s: not drained after %llu cycles", what, (unsigned long long)limit);
      sb.all_delivered(true);
      return false;
    }
    return true;
  }

  void set_sinks(const SinkPolicy &p) {
    for (auto &r : rx) r.set_policy(p);
  }
  void random_sinks() {
    for (int p = 0; p < kPorts; p++) {
      int n = p == RAMP ? kColors : kVc;
      for (int b = 0; b < n; b++) rx[p].set_policy(b, random_sink_policy(rng));
    }
  }

  // Counters against the model: drops exactly per input port, forwards
  // exactly per output port.
  void check_counters(const char *what) {
    for (int p = 0; p < kPorts; p++) {
      uint64_t drop = get_bits(dut->cnt_drop_o, p * 32, 32);
      uint64_t fwd = get_bits(dut->cnt_fwd_o, p * 32, 32);
      if (drop != exp_drop[p])
        fail("%s: CNT_DROP[%s] = %llu, expected %llu", what, port_name(p), (unsigned long long)drop,
             (unsigned long long)exp_drop[p]);
      if (fwd != exp_fwd[p])
        fail("%s: CNT_FWD[%s] = %llu, expected %llu", what, port_name(p), (unsigned long long)fwd,
             (unsigned long long)exp_fwd[p]);
      dig.add(drop);
      dig.add(fwd);
    }
  }

  void clear_counters() {
    dut->cnt_clear_i = 1;
    tick();
    dut->cnt_clear_i = 0;
    for (int p = 0; p < kPorts; p++) exp_drop[p] = exp_fwd[p] = 0;
  }

  void clear_routes() {
    for (int c = 0; c < kColors; c++) write_route(c, Route{});
  }

  void result(const char *test) {
    printf("RESULT router %s injected=%llu delivered=%llu drops=%llu,%llu,%llu,%llu,%llu cycles=%llu\n", test,
           (unsigned long long)sb.n_injected, (unsigned long long)sb.n_delivered, (unsigned long long)exp_drop[0],
           (unsigned long long)exp_drop[1], (unsigned long long)exp_drop[2], (unsigned long long)exp_drop[3],
           (unsigned long long)exp_drop[4], (unsigned long long)cycle);
    dig.add(sb.n_injected);
    dig.add(sb.n_delivered);
    dig.add(cycle);
  }
};

static int color_on_vc(int vc, int k) {
  int n = 0;
  for (int c = 0; c < kColors; c++)
    if (g_color_vc[c] == vc && n++ == k) return c;
  return vc * (kColors / kVc) + k;
}

// Every input to every output (U-turn included), one color each.
static void test_directed(RouterTb &t) {
  t.set_sinks(SinkPolicy{});
  for (int p = 0; p < kPorts; p++)
    for (int o = 0; o < kPorts; o++) {
      int c = (p * kPorts + o) % kColors;
      t.write_route(c, Route{(uint8_t)(1u << p), (uint8_t)(1u << o)});
      for (int i = 0; i < 3; i++) t.send(p, c, i == 1);
      t.drain("directed");
      t.write_route(c, Route{});
    }
  // All five inputs at once to five distinct outputs (a permutation).
  for (int c = 0; c < kPorts; c++) t.write_route(c, Route{(uint8_t)(1u << c), (uint8_t)(1u << ((c + 2) % kPorts))});
  for (int i = 0; i < 50; i++)
    for (int p = 0; p < kPorts; p++) t.send(p, p, false);
  t.drain("directed-permutation");
  t.check_counters("directed");
  t.result("directed");
  t.clear_routes();
}

// Multicast to 2..5 outputs, sinks with back-pressure so that the fork's
// branches leave in different cycles.
static void test_fanout(RouterTb &t) {
  t.random_sinks();
  for (int k = 2; k <= kPorts; k++) {
    for (int rep = 0; rep < 3; rep++) {
      uint8_t tx = 0;
      while (__builtin_popcount(tx) != k) tx |= (uint8_t)(1u << t.rng.below(kPorts));
      int c = (int)t.rng.below(kColors);
      t.write_route(c, Route{0x1f, tx});
      for (int i = 0; i < 40; i++) t.send((int)t.rng.below(kPorts), c, t.rng.chance(0.1));
      t.drain("fanout");
      t.write_route(c, Route{});
    }
  }
  t.check_counters("fanout");
  t.result("fanout");
}

// Drops: arrival port not in the rx mask, and an empty tx mask. The drop
// counters must match the number sent against the mask exactly, and the
// accepted ports keep working.
static void test_drops(RouterTb &t) {
  t.random_sinks();
  t.clear_counters();
  for (int rep = 0; rep < 6; rep++) {
    int c = (int)t.rng.below(kColors);
    uint8_t rx = (uint8_t)(t.rng.below(31) + 1) & 0x1f;
    uint8_t tx = rep == 5 ? 0 : (uint8_t)(t.rng.below(31) + 1);
    t.write_route(c, Route{rx, tx});
    for (int i = 0; i < 60; i++) t.send((int)t.rng.below(kPorts), c, false);
    t.drain("drops");
  }
  t.check_counters("drops");
  t.result("drops");
  t.clear_routes();
}

// Queues fill and credits run out: all sinks stop for a while, all inputs
// keep sending, then the sinks resume.
static void test_full(RouterTb &t) {
  t.clear_counters();
  for (int c = 0; c < kColors; c++) t.write_route(c, Route{0x1f, (uint8_t)(1u << (c % kPorts))});
  SinkPolicy stop;
  stop.never = true;
  t.set_sinks(stop);
  for (int i = 0; i < 30; i++)
    for (int p = 0; p < kPorts; p++) t.send(p, (int)t.rng.below(kColors), false);
  for (int i = 0; i < 200; i++) t.step();
  t.random_sinks();
  t.drain("full");
  t.check_counters("full");
  t.result("full");
  t.clear_routes();
}

// Seeded random: random route tables (multicast, drops, U-turns), random
// colors and rates on every input, random back-pressure per buffer.
static void test_random(RouterTb &t, uint64_t cycles) {
  t.clear_counters();
  for (int phase = 0; phase < 4; phase++) {
    for (int c = 0; c < kColors; c++) {
      uint8_t rx = t.rng.chance(0.8) ? 0x1f : (uint8_t)t.rng.below(32);
      uint8_t tx = t.rng.chance(0.05) ? 0 : (uint8_t)(1u << t.rng.below(kPorts));
      if (t.rng.chance(0.3)) tx |= (uint8_t)t.rng.below(32);
      t.write_route(c, Route{rx, tx});
    }
    t.random_sinks();
    double rate[kPorts];
    for (double &r : rate) r = 0.2 + 0.8 * t.rng.uniform();
    for (uint64_t i = 0; i < cycles / 4; i++) {
      for (int p = 0; p < kPorts; p++)
        if (t.rng.chance(rate[p]) && t.tx[p].queued() < 16) t.send(p, (int)t.rng.below(kColors), t.rng.chance(0.1));
      t.step();
    }
    t.drain("random");
  }
  t.check_counters("random");
  t.result("random");
  t.clear_routes();
}

// Two colors on different VCs share output E; the E sink never reads the
// first one's VC. The second must keep flowing at full rate.
static void test_isolation(RouterTb &t) {
  t.clear_counters();
  int ca = color_on_vc(0, 1), cb = color_on_vc(1, 2);
  t.write_route(ca, Route{0x1f, 1u << E});
  t.write_route(cb, Route{0x1f, 1u << E});
  SinkPolicy stop;
  stop.never = true;
  t.set_sinks(SinkPolicy{});
  t.rx[E].set_policy(g_color_vc[ca], stop);
  const int n = 400;
  uint64_t got0 = t.rx[E].consumed, t0 = t.cycle;
  for (int i = 0; i < n; i++) {
    if (i < 40) t.send(RAMP, ca, false);
    if (i < 40) t.send(W, ca, false);
    t.send(RAMP, cb, false);
    t.step();
  }
  uint64_t got = t.rx[E].consumed - got0, dt = t.cycle - t0;
  double thr = (double)got / (double)dt;
  note("isolation: color %d (VC%d) blocked, color %d (VC%d) got %llu in %llu cycles = %.3f/cycle", ca,
       g_color_vc[ca], cb, g_color_vc[cb], (unsigned long long)got, (unsigned long long)dt, thr);
  if (thr < 0.9) fail("isolation: color %d throughput %.3f < 0.9 while color %d is blocked", cb, thr, ca);
  // Release the blocked VC: everything arrives.
  t.set_sinks(SinkPolicy{});
  t.drain("isolation");
  t.check_counters("isolation");
  t.result("isolation");
  t.clear_routes();
}

// An unread color must not block other colors at RAMP (issue: "An unread
// color never blocks other colors at RAMP"), also when both colors share a
// VC and arrive through the same input port.
static void test_ramp_same_vc(RouterTb &t) {
  t.clear_counters();
  int ca = color_on_vc(0, 1), cb = color_on_vc(0, 2);
  t.write_route(ca, Route{0x1f, 1u << RAMP});
  t.write_route(cb, Route{0x1f, 1u << RAMP});
  SinkPolicy stop;
  stop.never = true;
  t.set_sinks(SinkPolicy{});
  t.rx[RAMP].set_policy(ca, stop);
  for (int i = 0; i < 8; i++) t.send(W, ca, false);
  for (int i = 0; i < 100; i++) t.step();
  uint64_t got0 = t.rx[RAMP].consumed, t0 = t.cycle;
  for (int i = 0; i < 400; i++) {
    if (t.tx[W].queued() < 4) t.send(W, cb, false);
    t.step();
  }
  double thr = (double)(t.rx[RAMP].consumed - got0) / (double)(t.cycle - t0);
  note("ramp-same-vc: color %d unread at RAMP; color %d (same VC%d, same input W) %.3f/cycle", ca, cb,
       g_color_vc[ca], thr);
  if (thr < 0.5) fail("ramp-same-vc: unread color %d blocks color %d at RAMP (%.3f/cycle)", ca, cb, thr);
  t.set_sinks(SinkPolicy{});
  t.drain("ramp-same-vc");
  t.result("ramp-same-vc");
  t.clear_routes();
}

// Bench figures from one router: latency RAMP -> E at zero load and the
// throughput of one port under a saturating flow.
static void test_bench(RouterTb &t) {
  t.set_sinks(SinkPolicy{});
  int c = color_on_vc(2, 0);
  t.write_route(c, Route{1u << RAMP, 1u << E});
  uint64_t l0 = t.sb.lat_sum, n0 = t.sb.n_delivered;
  for (int i = 0; i < 20; i++) {
    t.send(RAMP, c, false);
    t.drain("bench-latency");
  }
  double lat = (double)(t.sb.lat_sum - l0) / (double)(t.sb.n_delivered - n0);
  uint64_t got0 = t.rx[E].consumed, c0 = t.cycle;
  for (int i = 0; i < 2000; i++) {
    if (t.tx[RAMP].queued() < 8) t.send(RAMP, c, false);
    t.step();
  }
  double thr = (double)(t.rx[E].consumed - got0) / (double)(t.cycle - c0);
  t.drain("bench-throughput");
  printf("BENCH-ROUTER latency %.2f cycles throughput %.3f wavelets/cycle\n", lat, thr);
  t.clear_routes();
}

int main(int argc, char **argv) {
  uint64_t seed = seed_from_env("tb_router");
  init_color_vc();
  std::vector<std::string> tests;
  for (int i = 1; i < argc; i++)
    if (argv[i][0] != '+') tests.push_back(argv[i]);
  if (tests.empty()) tests = {"directed", "fanout", "drops", "full", "random", "isolation"};
  uint64_t cycles = getenv("CYCLES") ? strtoull(getenv("CYCLES"), nullptr, 0) : 20000;

  RouterTb t(argc, argv, seed);
  t.reset();
  for (auto &n : tests) {
    if (n == "directed") test_directed(t);
    else if (n == "fanout") test_fanout(t);
    else if (n == "drops") test_drops(t);
    else if (n == "full") test_full(t);
    else if (n == "random") test_random(t, cycles);
    else if (n == "isolation") test_isolation(t);
    else if (n == "bench") test_bench(t);
    else if (n == "ramp-same-vc") test_ramp_same_vc(t);
    else {
      fail("unknown test %s", n.c_str());
    }
  }
  t.sb.all_delivered(true);
  printf("RESULT router digest=%016llx\n", (unsigned long long)t.dig.h);
  t.dut->final();
#if VM_COVERAGE
  if (const char *cf = getenv("COVERAGE_FILE")) t.ctx->coveragep()->write(cf);
#endif
  if (g_errors) {
    printf("tb_router: FAIL (%d errors); reproduce with SEED=%llu\n", g_errors, (unsigned long long)seed);
    return 1;
  }
  printf("tb_router: PASS (%llu wavelets, %llu deliveries, %llu cycles)\n", (unsigned long long)t.sb.n_injected,
         (unsigned long long)t.sb.n_delivered, (unsigned long long)t.cycle);
  return 0;
}
