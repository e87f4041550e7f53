// Harness around the wse_fabric_mesh model (RTL or gate-level netlist):
// every RAMP and every west/east edge port is a testbench link end, the
// management port is driven by a request queue, and route tables and
// counters go through the management network only.
#pragma once

#include <deque>
#include <memory>

#include "Vwse_fabric_mesh.h"
#include "tb_common.h"
#include "tb_link.h"
#include "tb_vl.h"
#include "verilated.h"
#include "wse_cfg.h"

namespace tb {

constexpr int kCols = WSE_CFG_NUM_COLS;
constexpr int kRows = WSE_CFG_NUM_ROWS;
constexpr int kTiles = kCols * kRows;
constexpr int kVc = WSE_CFG_NUM_VC;
constexpr int kDepth = WSE_CFG_VC_DEPTH;
constexpr int kRampDepth = WSE_CFG_RAMP_COLOR_DEPTH;
constexpr int kWw = WSE_WAVELET_BITS;

// Register map (docs/register-map.md).
constexpr uint32_t kAddrTileId = 0x0, kAddrTileCtrl = 0x4, kAddrTileStatus = 0x8;
constexpr uint32_t kAddrRoute = 0x1000, kAddrCnt = 0x2000, kAddrCsr = 0x10000;
inline uint32_t addr_route(int c) { return kAddrRoute + 4u * (uint32_t)c; }
inline uint32_t addr_cnt(int p, int kind) { return kAddrCnt + 16u * (uint32_t)p + 4u * (uint32_t)kind; }
enum { CNT_FWD = 0, CNT_STALL = 1, CNT_DROP = 2 };

struct MgmtReq {
  bool write = false, bcast = false;
  int x = 0, y = 0;
  uint32_t addr = 0, wdata = 0;
  // Filled in on the response.
  bool done = false, err = false;
  uint32_t rdata = 0;
  uint64_t id = 0;
};

class MeshTb {
 public:
  std::unique_ptr<VerilatedContext> ctx;
  std::unique_ptr<Vwse_fabric_mesh> dut;
  MeshModel m{kCols, kRows};
  Scoreboard sb{m};
  Rng rng;
  uint64_t cycle = 0;
  std::vector<TxEnd> tx;  // by endpoint
  std::vector<RxEnd> rx;
  std::vector<bool> has_port;                // endpoint is a testbench port
  std::vector<Route> hw;                     // [tile*32+color] last written
  uint64_t exp_drop[kTiles][kPorts] = {}, exp_fwd[kTiles][kPorts] = {};
  Digest dig;
  // Management requests: queued, one being offered, one in flight.
  std::deque<MgmtReq> mq;
  std::deque<MgmtReq> inflight;
  std::vector<MgmtReq> completed;
  uint64_t mg_next_id = 1;
  int mg_gap = 0;        // cycles before the next request is offered
  bool mg_random_gap = false;
  uint64_t mgmt_reqs = 0;

  MeshTb(int argc, char **argv, uint64_t seed) : rng(seed) {
    ctx.reset(new VerilatedContext);
    ctx->commandArgs(argc, argv);
    dut.reset(new Vwse_fabric_mesh(ctx.get(), "TOP"));
    int n = m.num_endpoints();
    tx.resize(n);
    rx.resize(n);
    has_port.assign(n, false);
    for (int e = 0; e < n; e++) {
      auto ip = m.inject_point(e);
      bool is_ramp = e < kTiles;
      bool edge_we = !is_ramp && (ip.second == W || ip.second == E);
      if (!is_ramp && !edge_we) continue;  // north/south edges absorb
      has_port[e] = true;
      tx[e] = TxEnd(m.ep_name(e) + ".in", kVc, kDepth);
      if (is_ramp)
        rx[e] = RxEnd(m.ep_name(e) + ".out", e, true, kColors, kRampDepth);
      else
        rx[e] = RxEnd(m.ep_name(e) + ".out", e, false, kVc, kDepth);
    }
    hw.assign(kTiles * kColors, Route{});
  }

  int west_ep(int y) const { return m.edge_endpoint(m.tile(0, y), W); }
  int east_ep(int y) const { return m.edge_endpoint(m.tile(kCols - 1, y), E); }

  void tick() {
    dut->clk_i = 0;
    dut->eval();
    dut->clk_i = 1;
    dut->eval();
    ctx->timeInc(1);
    cycle++;
  }

  void reset() {
    dut->ramp_in_valid_i = 0;
    dut->west_in_valid_i = 0;
    dut->east_in_valid_i = 0;
    dut->mgmt_req_valid_i = 0;
    for (int t = 0; t < kTiles; t++) set_bits(dut->ramp_out_credit_i, t * kColors, kColors, 0);
    dut->west_out_credit_i = 0;
    dut->east_out_credit_i = 0;
    dut->rst_ni = 1;
    dut->clk_i = 0;
    dut->eval();
    dut->rst_ni = 0;
    dut->eval();
    for (int i = 0; i < 4; i++) tick();
    dut->rst_ni = 1;
    for (int i = 0; i < 4; i++) tick();  // reset synchronizer
  }

  // ---- Per-cycle link handling -------------------------------------------
  template <typename V, typename D>
  void link_out(int e, const V &valid, int vbit, const D &data, int dlsb) {
    if (get_bit(valid, vbit)) rx[e].arrive(get_bits(data, dlsb, kWw), cycle);
  }
  template <typename C>
  void link_credit_in(int e, const C &credit, int lsb) {
    for (int v = 0; v < kVc; v++)
      if (get_bit(credit, lsb + v)) tx[e].credit(v, cycle);
  }
  // Picks what endpoint e sends this cycle; returns valid and the word.
  bool source(int e, uint64_t &w) {
    Pending pk;
    if (tx[e].pick(pk)) {
      w = wav_make(pk.data, pk.color, pk.ctrl);
      sb.injected(pk.data, cycle);
      return true;
    }
    w = rng.next() & ((1ull << kWw) - 1);
    return false;
  }

  void step() {
    // Outputs of the last edge.
    for (int t = 0; t < kTiles; t++) {
      link_out(t, dut->ramp_out_valid_o, t,
                                                                                      dut->ramp_out_data_o, t * kWw);
      link_credit_in(t, dut->ramp_in_credit_o, t * kVc);
    }
    for (int y = 0; y < kRows; y++) {
      int we = west_ep(y), ee = east_ep(y);
      link_out(we, dut->west_out_valid_o, y,
                                                                                      dut->west_out_data_o, y * kWw);
      link_out(ee, dut->east_out_valid_o, y,
                                                                                      dut->east_out_data_o, y * kWw);
      link_credit_in(we, dut->west_in_credit_o, y * kVc);
      link_credit_in(ee, dut->east_in_credit_o, y * kVc);
    }
    mgmt_sample();

    // Sinks return credits for what they consumed.
    for (int t = 0; t < kTiles; t++) set_bits(dut->ramp_out_credit_i, t * kColors, kColors, rx[t].consume(rng, sb, cycle));
    for (int y = 0; y < kRows; y++) {
      set_bits(dut->west_out_credit_i, y * kVc, kVc, rx[west_ep(y)].consume(rng, sb, cycle));
      set_bits(dut->east_out_credit_i, y * kVc, kVc, rx[east_ep(y)].consume(rng, sb, cycle));
    }
    // Sources.
    for (int t = 0; t < kTiles; t++) {
      uint64_t w;
      bool v = source(t, w);
      set_bit(dut->ramp_in_valid_i, t, v);
      set_bits(dut->ramp_in_data_i, t * kWw, kWw, w);
    }
    for (int y = 0; y < kRows; y++) {
      uint64_t w;
      bool v = source(west_ep(y), w);
      set_bit(dut->west_in_valid_i, y, v);
      set_bits(dut->west_in_data_i, y * kWw, kWw, w);
      v = source(east_ep(y), w);
      set_bit(dut->east_in_valid_i, y, v);
      set_bits(dut->east_in_data_i, y * kWw, kWw, w);
    }
    bool offered = mgmt_drive();
    bool ready = dut->mgmt_req_ready_o;
    tick();
    if (offered && ready) {
      inflight.push_back(mq.front());
      mq.pop_front();
      mgmt_reqs++;
      mg_gap = mg_random_gap ? (int)rng.below(4) : 0;
    }
  }

  // ---- Management ----------------------------------------------------------
  void mgmt_sample() {
    if (!dut->mgmt_rsp_valid_o) return;
    if (inflight.empty()) {
      fail("cycle %llu: management response without a request", (unsigned long long)cycle);
      return;
    }
    MgmtReq r = inflight.front();
    inflight.pop_front();
    r.done = true;
    r.err = dut->mgmt_rsp_err_o;
    r.rdata = dut->mgmt_rsp_rdata_o;
    completed.push_back(r);
  }
  bool mgmt_drive() {
    if (mq.empty() || mg_gap > 0) {
      if (mg_gap > 0) mg_gap--;
      dut->mgmt_req_valid_i = 0;
      // Idle request fields are random: the port must ignore them.
      dut->mgmt_req_addr_i = (uint32_t)rng.next();
      dut->mgmt_req_wdata_i = (uint32_t)rng.next();
      return false;
    }
    const MgmtReq &r = mq.front();
    dut->mgmt_req_valid_i = 1;
    dut->mgmt_req_write_i = r.write;
    dut->mgmt_req_bcast_i = r.bcast;
    dut->mgmt_req_x_i = (uint8_t)r.x;
    dut->mgmt_req_y_i = (uint8_t)r.y;
    dut->mgmt_req_addr_i = r.addr;
    dut->mgmt_req_wdata_i = r.wdata;
    return true;
  }
  uint64_t mgmt_post(MgmtReq r) {
    r.id = mg_next_id++;
    mq.push_back(r);
    return r.id;
  }
  // Runs until request `id` was answered.
  MgmtReq mgmt_wait(uint64_t id, uint64_t limit = 100000) {
    uint64_t t0 = cycle;
    for (;;) {
      for (size_t i = 0; i < completed.size(); i++)
        if (completed[i].id == id) {
          MgmtReq r = completed[i];
          completed.erase(completed.begin() + (long)i);
          return r;
        }
      if (cycle - t0 > limit) {
        fail("management request %llu not answered in %llu cycles", (unsigned long long)id,
             (unsigned long long)limit);
        return MgmtReq{};
      }
      step();
    }
  }
  MgmtReq mgmt(bool write, bool bcast, int x, int y, uint32_t addr, uint32_t wdata) {
    MgmtReq r;
    r.write = write;
    r.bcast = bcast;
    r.x = x;
    r.y = y;
    r.addr = addr;
    r.wdata = wdata;
    return mgmt_wait(mgmt_post(r));
  }
  uint32_t rd(int t, uint32_t addr) {
    MgmtReq r = mgmt(false, false, m.tx_of(t), m.ty_of(t), addr, 0);
    if (r.err) fail("management read of tile %d addr 0x%x answered with an error", t, addr);
    return r.rdata;
  }
  void wr(int t, uint32_t addr, uint32_t v) {
    MgmtReq r = mgmt(true, false, m.tx_of(t), m.ty_of(t), addr, v);
    if (r.err) fail("management write of tile %d addr 0x%x answered with an error", t, addr);
  }
  void bcast_wr(uint32_t addr, uint32_t v) {
    MgmtReq r = mgmt(true, true, 0, 0, addr, v);
    if (r.err) fail("management broadcast write addr 0x%x answered with an error", addr);
  }

  // Writes every route entry whose planned value (m.rt) differs from what
  // the hardware holds, posting the writes back to back.
  void program_routes() {
    uint64_t last = 0;
    for (int t = 0; t < kTiles; t++)
      for (int c = 0; c < kColors; c++) {
        Route &want = m.rt[t][c];
        Route &have = hw[t * kColors + c];
        if (want.rx == have.rx && want.tx == have.tx) continue;
        MgmtReq r;
        r.write = true;
        r.x = m.tx_of(t);
        r.y = m.ty_of(t);
        r.addr = addr_route(c);
        r.wdata = ((uint32_t)want.rx << 8) | want.tx;
        last = mgmt_post(r);
        have = want;
      }
    while (!mq.empty() || !inflight.empty()) step();
    for (auto &r : completed)
      if (r.err) fail("route write to (%d,%d) 0x%x answered with an error", r.x, r.y, r.addr);
    completed.clear();
    (void)last;
  }
  // Clears every route entry by broadcast.
  void clear_routes() {
    m.clear();
    for (int c = 0; c < kColors; c++) bcast_wr(addr_route(c), 0);
    for (auto &h : hw) h = Route{};
  }
  // TILE_CTRL broadcast: keep HALT, pulse CNT_CLEAR.
  void clear_counters() {
    bcast_wr(kAddrTileCtrl, 0x5);
    for (auto &a : exp_drop)
      for (auto &b : a) b = 0;
    for (auto &a : exp_fwd)
      for (auto &b : a) b = 0;
  }

  // ---- Traffic ---------------------------------------------------------------
  // Queues one wavelet at endpoint src (the reference model gives its
  // destinations, drops and forwards).
  void send(int src, int color, bool ctrl) {
    std::vector<int> dests;
    std::vector<std::pair<int, int>> drops, fwds;
    auto ip = m.inject_point(src);
    if (!m.propagate(ip.first, ip.second, color, dests, drops, &fwds)) {
      fail("route plan of color %d loops", color);
      return;
    }
    for (auto &d : drops) exp_drop[d.first][d.second]++;
    for (auto &f : fwds) exp_fwd[f.first][f.second]++;
    std::vector<int> real;
    for (int d : dests)
      if (has_port[d]) real.push_back(d);  // N/S edges absorb
    uint32_t data = sb.expect(src, color, ctrl, real, (int)drops.size(), cycle);
    tx[src].push(Pending{data, (uint8_t)color, ctrl});
  }

  bool busy() const {
    for (size_t e = 0; e < tx.size(); e++)
      if (has_port[e] && (!tx[e].idle() || rx[e].held())) return true;
    return sb.outstanding() != 0;
  }
  bool drain(const char *what, uint64_t limit = 200000) {
    uint64_t t0 = cycle;
    while (busy() && cycle - t0 < limit) step();
    for (int i = 0; i < 2 * (kCols + kRows); i++) step();
    if (busy()) {
      fail("%s: not drained after %llu cycles", what, (unsigned long long)limit);
      sb.all_delivered(true);
      return false;
    }
    return true;
  }

  void set_sinks(const SinkPolicy &p) {
    for (size_t e = 0; e < rx.size(); e++)
      if (has_port[e]) rx[e].set_policy(p);
  }
  void random_sinks() {
    for (size_t e = 0; e < rx.size(); e++) {
      if (!has_port[e]) continue;
      int n = (int)e < kTiles ? kColors : kVc;
      for (int b = 0; b < n; b++) rx[e].set_policy(b, random_sink_policy(rng));
    }
  }

  // Reads CNT_DROP and CNT_FWD of every port of every tile through the
  // management network and compares them with the model.
  void check_counters(const char *what) {
    for (int t = 0; t < kTiles; t++)
      for (int p = 0; p < kPorts; p++) {
        uint32_t drop = rd(t, addr_cnt(p, CNT_DROP));
        uint32_t fwd = rd(t, addr_cnt(p, CNT_FWD));
        if (drop != exp_drop[t][p])
          fail("%s: tile (%d,%d) CNT_DROP[%s] = %u, expected %llu", what, m.tx_of(t), m.ty_of(t), port_name(p),
               drop, (unsigned long long)exp_drop[t][p]);
        if (fwd != exp_fwd[t][p])
          fail("%s: tile (%d,%d) CNT_FWD[%s] = %u, expected %llu", what, m.tx_of(t), m.ty_of(t), port_name(p), fwd,
               (unsigned long long)exp_fwd[t][p]);
        dig.add(drop);
        dig.add(fwd);
      }
  }

  void result(const char *test) {
    uint64_t drops = 0;
    for (auto &a : exp_drop)
      for (auto b : a) drops += b;
    printf("RESULT mesh%dx%d %s injected=%llu delivered=%llu drops=%llu mgmt=%llu cycles=%llu\n", kCols, kRows,
           test, (unsigned long long)sb.n_injected, (unsigned long long)sb.n_delivered, (unsigned long long)drops,
           (unsigned long long)mgmt_reqs, (unsigned long long)cycle);
    dig.add(sb.n_injected);
    dig.add(sb.n_delivered);
    dig.add(drops);
    dig.add(cycle);
  }
};

int mgmt_tests(MeshTb &t);

}  // namespace tb
