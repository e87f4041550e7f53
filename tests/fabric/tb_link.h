// Testbench ends of the credit-based fabric links (docs/fabric.md):
//  - TxEnd: the testbench sends into the DUT. One queue per VC, one credit
//    counter per VC starting at the DUT's buffer depth; a credit pulse from
//    the DUT returns one. Checks that the DUT never returns more credits
//    than it was given.
//  - RxEnd: the DUT sends to the testbench. One buffer per VC (links) or per
//    color (RAMP), of the depth the DUT was given credits for; a wavelet that
//    arrives at a full buffer is a flow-control violation. Each buffer is
//    drained by a sink with its own back-pressure policy; every consumed
//    wavelet goes to the scoreboard and returns one credit.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "tb_common.h"

namespace tb {

extern int g_color_vc[kColors];
void init_color_vc();  // from the board's wse_cfg.h

inline uint64_t wav_make(uint32_t data, int color, bool ctrl) { return wse_wavelet(data, (wse_u32)color, ctrl); }

class TxEnd {
 public:
  TxEnd() = default;
  TxEnd(std::string name, int nvc, int depth) : name_(std::move(name)), depth_(depth), credits_(nvc, depth), q_(nvc) {}

  void push(const Pending &p) { q_[g_color_vc[p.color]].push_back(p); }
  size_t queued() const {
    size_t n = 0;
    for (auto &q : q_) n += q.size();
    return n;
  }
  size_t queued_vc(int v) const { return q_[v].size(); }
  // Picks the next wavelet to send this cycle (round robin over VCs that
  // hold credit); false when nothing can go.
  bool pick(Pending &out) {
    int n = (int)q_.size();
    for (int i = 0; i < n; i++) {
      int v = (rr_ + i) % n;
      if (!q_[v].empty() && credits_[v] > 0) {
        out = q_[v].front();
        q_[v].pop_front();
        credits_[v]--;
        rr_ = (v + 1) % n;
        return true;
      }
    }
    return false;
  }
  void credit(int v, uint64_t cycle) {
    if (++credits_[v] > depth_)
      fail("cycle %llu: %s: VC%d credit returned beyond the depth %d", (unsigned long long)cycle, name_.c_str(), v,
           depth_);
  }
  bool idle() const {
    for (size_t v = 0; v < q_.size(); v++)
      if (!q_[v].empty() || credits_[v] != depth_) return false;
    return true;
  }
  int credits(int v) const { return credits_[v]; }

 private:
  std::string name_;
  int depth_ = 0;
  int rr_ = 0;
  std::vector<int> credits_;
  std::vector<std::deque<Pending>> q_;
};

class RxEnd {
 public:
  RxEnd() = default;
  // per_color: one buffer per color (RAMP), else one per VC.
  RxEnd(std::string name, int ep, bool per_color, int nbuf, int depth)
      : name_(std::move(name)), ep_(ep), per_color_(per_color), depth_(depth), buf_(nbuf), sink_(nbuf) {}

  int buf_of(int color) const { return per_color_ ? color : g_color_vc[color]; }
  void arrive(uint64_t w, uint64_t cycle) {
    int c = wse_wavelet_color(w);
    auto &b = buf_[buf_of(c)];
    if ((int)b.size() >= depth_)
      fail("cycle %llu: %s: wavelet color %d arrived at a full buffer (sent without credit)",
           (unsigned long long)cycle, name_.c_str(), c);
    b.push_back(w);
    arrived++;
  }
  // Drains by the sink policies; returns the mask of buffers that return a
  // credit this cycle.
  uint64_t consume(Rng &r, Scoreboard &sb, uint64_t cycle) {
    uint64_t mask = 0;
    for (size_t i = 0; i < buf_.size(); i++) {
      auto &b = buf_[i];
      bool take = sink_[i].take(r);
      if (b.empty() || !take) continue;
      uint64_t w = b.front();
      b.pop_front();
      sb.receive(ep_, wse_wavelet_data(w), (int)wse_wavelet_color(w), wse_wavelet_ctrl(w) != 0, cycle);
      consumed++;
      mask |= 1ull << i;
    }
    return mask;
  }
  void set_policy(const SinkPolicy &p) {
    for (auto &s : sink_) s.pol = p;
  }
  void set_policy(int buf, const SinkPolicy &p) { sink_[buf].pol = p; }
  size_t held() const {
    size_t n = 0;
    for (auto &b : buf_) n += b.size();
    return n;
  }
  uint64_t arrived = 0, consumed = 0;

 private:
  std::string name_;
  int ep_ = 0;
  bool per_color_ = false;
  int depth_ = 0;
  std::vector<std::deque<uint64_t>> buf_;
  std::vector<SinkState> sink_;
};

}  // namespace tb
