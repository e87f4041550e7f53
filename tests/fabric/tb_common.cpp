// Shared testbench pieces; see tb_common.h.
#include "tb_common.h"
#include "tb_link.h"
#include "wse_cfg.h"

#include <algorithm>
#include <chrono>

namespace tb {

int g_errors = 0;
int g_color_vc[kColors];

void init_color_vc() {
  static const int map[] = WSE_CFG_COLOR_VC_MAP;
  for (int c = 0; c < kColors; c++) g_color_vc[c] = map[c];
}

uint64_t g_seed = 0;
const char *g_prog = "tb";

void fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stdout, "%s: ERROR: ", g_prog);
  vfprintf(stdout, fmt, ap);
  fprintf(stdout, "\n");
  va_end(ap);
  if (++g_errors >= 20) {
    fprintf(stdout, "%s: too many errors; reproduce with SEED=%llu\n", g_prog,
            (unsigned long long)g_seed);
    fflush(stdout);
    exit(1);
  }
}

void note(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stdout, "%s: ", g_prog);
  vfprintf(stdout, fmt, ap);
  fprintf(stdout, "\n");
  va_end(ap);
}

static uint64_t splitmix(uint64_t &x) {
  uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void Rng::reseed(uint64_t seed) {
  uint64_t x = seed;
  for (auto &s : s_) s = splitmix(x);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t Rng::next() {
  uint64_t r = rotl(s_[1] * 5, 7) * 9;
  uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return r;
}

uint64_t seed_from_env(const char *prog) {
  g_prog = prog;
  const char *e = getenv("SEED");
  uint64_t s;
  if (e && *e) {
    s = strtoull(e, nullptr, 0);
  } else {
    s = (uint64_t)std::chrono::steady_clock::now().time_since_epoch().count();
    s = (s ^ (s >> 29)) % 1000000007ull;
  }
  g_seed = s;
  printf("%s: SEED=%llu (rerun with SEED=%llu to reproduce)\n", prog, (unsigned long long)s,
         (unsigned long long)s);
  return s;
}

// Modular inverse of kTagMul (odd) mod 2^32, by Newton iteration.
static uint32_t inv32(uint32_t a) {
  uint32_t x = a;
  for (int i = 0; i < 5; i++) x *= 2 - a * x;
  return x;
}
uint32_t tag_to_data(uint32_t tag) { return tag * kTagMul; }
uint32_t data_to_tag(uint32_t data) {
  static const uint32_t inv = inv32(kTagMul);
  return data * inv;
}

int opposite(int dir) {
  switch (dir) {
    case N: return S;
    case S: return N;
    case E: return W;
    case W: return E;
    default: return RAMP;
  }
}

const char *port_name(int p) {
  static const char *n[] = {"N", "E", "S", "W", "RAMP"};
  return (p >= 0 && p < kPorts) ? n[p] : "?";
}

// ---- MeshModel -----------------------------------------------------------
MeshModel::MeshModel(int c, int r) : cols(c), rows(r), tiles(c * r) {
  rt.assign(tiles, std::vector<Route>(kColors));
  for (int t = 0; t < tiles; t++)
    for (int d = 0; d < 4; d++)
      if (neighbour(t, d) < 0) {
        int id = tiles + (int)edge_list_.size();
        edge_[{t, d}] = id;
        edge_list_.push_back({t, d});
      }
}

int MeshModel::neighbour(int t, int dir) const {
  int x = tx_of(t), y = ty_of(t);
  switch (dir) {
    case N: y--; break;
    case S: y++; break;
    case E: x++; break;
    case W: x--; break;
    default: return -1;
  }
  if (x < 0 || y < 0 || x >= cols || y >= rows) return -1;
  return tile(x, y);
}

int MeshModel::edge_endpoint(int t, int dir) const {
  auto it = edge_.find({t, dir});
  return it == edge_.end() ? -1 : it->second;
}

std::pair<int, int> MeshModel::inject_point(int ep) const {
  if (ep < tiles) return {ep, RAMP};
  return edge_list_[ep - tiles];
}

std::string MeshModel::ep_name(int ep) const {
  char b[64];
  if (ep < tiles)
    snprintf(b, sizeof b, "ramp(%d,%d)", tx_of(ep), ty_of(ep));
  else {
    auto p = edge_list_[ep - tiles];
    snprintf(b, sizeof b, "edge(%d,%d).%s", tx_of(p.first), ty_of(p.first), port_name(p.second));
  }
  return b;
}

bool MeshModel::propagate(int t, int in, int color, std::vector<int> &dests,
                          std::vector<std::pair<int, int>> &drops,
                          std::vector<std::pair<int, int>> *fwds) const {
  struct Hop {
    int t, in, depth;
  };
  std::vector<Hop> work{{t, in, 0}};
  while (!work.empty()) {
    Hop h = work.back();
    work.pop_back();
    if (h.depth > 4 * tiles + 8) return false;  // loop in the plan
    const Route &r = rt[h.t][color];
    // The router drops a wavelet whose arrival port is not in the rx mask,
    // and one whose tx mask is empty; both are counted as drops.
    if (!((r.rx >> h.in) & 1) || r.tx == 0) {
      drops.push_back({h.t, h.in});
      continue;
    }
    for (int o = 0; o < kPorts; o++) {
      if (!((r.tx >> o) & 1)) continue;
      if (fwds) fwds->push_back({h.t, o});
      if (o == RAMP) {
        dests.push_back(h.t);
        continue;
      }
      int nb = neighbour(h.t, o);
      if (nb < 0)
        dests.push_back(edge_endpoint(h.t, o));
      else
        work.push_back({nb, opposite(o), h.depth + 1});
    }
  }
  return true;
}

void MeshModel::clear() {
  for (auto &v : rt)
    for (auto &r : v) r = Route{};
}

void MeshModel::clear_color(int c) {
  for (auto &v : rt) v[c] = Route{};
}

int MeshModel::dir_to(int a, int b) const {
  for (int d = 0; d < 4; d++)
    if (neighbour(a, d) == b) return d;
  return -1;
}

void MeshModel::add_path(int color, int in0, const std::vector<int> &path, int out) {
  int in = in0;
  for (size_t i = 0; i < path.size(); i++) {
    Route &r = rt[path[i]][color];
    r.rx |= (uint8_t)(1u << in);
    int o = (i + 1 < path.size()) ? dir_to(path[i], path[i + 1]) : out;
    r.tx |= (uint8_t)(1u << o);
    in = opposite(o);
  }
}

std::vector<int> MeshModel::xy_path(int a, int b) const {
  std::vector<int> p{a};
  int x = tx_of(a), y = ty_of(a);
  while (x != tx_of(b)) {
    x += x < tx_of(b) ? 1 : -1;
    p.push_back(tile(x, y));
  }
  while (y != ty_of(b)) {
    y += y < ty_of(b) ? 1 : -1;
    p.push_back(tile(x, y));
  }
  return p;
}

// ---- Scoreboard ----------------------------------------------------------
uint32_t Scoreboard::expect(int src, int color, bool ctrl, const std::vector<int> &dests, int ndrops,
                            uint64_t cycle) {
  Rec r;
  r.src = src;
  r.color = (uint8_t)color;
  r.ctrl = ctrl;
  r.t_inject = cycle;
  r.pending = dests;
  std::sort(r.pending.begin(), r.pending.end());
  if (std::adjacent_find(r.pending.begin(), r.pending.end()) != r.pending.end())
    fail("route plan reaches an endpoint twice for color %d from %s", color, m_.ep_name(src).c_str());
  uint32_t tag = (uint32_t)recs_.size();
  recs_.push_back(std::move(r));
  n_expected++;
  n_exp_deliveries += dests.size();
  outstanding_ += dests.size();
  if (ndrops) n_exp_drop_wavelets++;
  return tag_to_data(tag);
}

void Scoreboard::injected(uint32_t data, uint64_t cycle) {
  uint32_t tag = data_to_tag(data);
  if (tag < recs_.size()) recs_[tag].t_inject = cycle;
  n_injected++;
  if (cycle >= window_start && cycle < window_end) window_injected++;
}

void Scoreboard::receive(int dst, uint32_t data, int color, bool ctrl, uint64_t cycle) {
  uint32_t tag = data_to_tag(data);
  if (tag >= recs_.size()) {
    fail("cycle %llu: %s received unknown wavelet data=0x%08x color=%d (corrupted or invented)",
         (unsigned long long)cycle, m_.ep_name(dst).c_str(), data, color);
    return;
  }
  Rec &r = recs_[tag];
  if (r.color != color || r.ctrl != ctrl) {
    fail("cycle %llu: %s received tag %u with color %d ctrl %d, sent with color %d ctrl %d",
         (unsigned long long)cycle, m_.ep_name(dst).c_str(), tag, color, ctrl, r.color, r.ctrl);
    return;
  }
  auto it = std::find(r.pending.begin(), r.pending.end(), dst);
  if (it == r.pending.end()) {
    bool dup = std::find(r.done.begin(), r.done.end(), dst) != r.done.end();
    fail("cycle %llu: %s received tag %u (color %d from %s) %s", (unsigned long long)cycle,
         m_.ep_name(dst).c_str(), tag, color, m_.ep_name(r.src).c_str(),
         dup ? "twice (duplicate)" : "but it is not routed there (misrouted)");
    return;
  }
  r.pending.erase(it);
  r.done.push_back(dst);
  outstanding_--;
  n_delivered++;
  delivered_color[color & (kColors - 1)]++;
  if ((size_t)dst >= delivered_ep.size()) delivered_ep.resize((size_t)dst + 1, 0);
  delivered_ep[(size_t)dst]++;
  auto key = std::make_tuple(r.src, dst, (int)color);
  auto l = last_.find(key);
  if (l != last_.end() && l->second >= tag)
    fail("cycle %llu: %s received tag %u after tag %u on color %d from %s (reordered)",
         (unsigned long long)cycle, m_.ep_name(dst).c_str(), tag, l->second, color,
         m_.ep_name(r.src).c_str());
  last_[key] = tag;
  uint64_t lat = cycle - r.t_inject;
  lat_sum += lat;
  if (lat > lat_max) lat_max = lat;
  if (lat < lat_min) lat_min = lat;
  if (cycle >= window_start && cycle < window_end) window_delivered++;
}

bool Scoreboard::all_delivered(bool report) {
  if (outstanding_ == 0) return true;
  if (report) {
    int shown = 0;
    for (size_t i = 0; i < recs_.size() && shown < 10; i++)
      for (int d : recs_[i].pending) {
        if (shown++ >= 10) break;
        fail("lost: tag %zu color %d from %s never reached %s", i, recs_[i].color,
             m_.ep_name(recs_[i].src).c_str(), m_.ep_name(d).c_str());
      }
    fail("%llu deliveries missing in total", (unsigned long long)outstanding_);
  }
  return false;
}

// ---- Sinks ---------------------------------------------------------------
SinkPolicy random_sink_policy(Rng &r) {
  SinkPolicy p;
  switch (r.below(4)) {
    case 0: p.p_take = 1.0; break;  // always ready
    case 1: p.p_take = 0.3 + 0.6 * r.uniform(); break;
    case 2:
      p.p_take = 0.8;
      p.p_stall = 0.02;
      p.max_stall = 40;
      break;
    default:
      p.p_take = 0.5;
      p.p_stall = 0.05;
      p.max_stall = 10;
      break;
  }
  return p;
}

// ---- Patterns ------------------------------------------------------------
const char *pattern_name(Pattern p) {
  switch (p) {
    case Pattern::Uniform: return "uniform";
    case Pattern::Transpose: return "transpose";
    case Pattern::Hotspot: return "hotspot";
    case Pattern::Neighbour: return "neighbour";
  }
  return "?";
}

int pattern_dest(Pattern p, const MeshModel &m, int s, Rng &r, int hotspot) {
  switch (p) {
    case Pattern::Uniform: {
      if (m.tiles < 2) return -1;
      int d = (int)r.below((uint32_t)m.tiles - 1);
      return d >= s ? d + 1 : d;
    }
    case Pattern::Transpose: {
      int x = m.tx_of(s), y = m.ty_of(s);
      if (x == y || y >= m.cols || x >= m.rows) return -1;
      return m.tile(y, x);
    }
    case Pattern::Hotspot: {
      if (s != hotspot && r.chance(0.5)) return hotspot;
      return pattern_dest(Pattern::Uniform, m, s, r, hotspot);
    }
    case Pattern::Neighbour: {
      int d = m.neighbour(s, (int)r.below(4));
      return d;
    }
  }
  return -1;
}

int dest_color(int t, int tiles) {
  // Up to 24 destinations: VC0 colors 0..7, VC1 8..15, VC2 16..23, taken
  // round-robin so that neighbouring destinations use different VCs.
  if (tiles <= 24) return (t % 3) * 8 + t / 3;
  return t % 24;
}

void plan_xy_unicast(MeshModel &m, const std::vector<int> &extra_srcs) {
  for (int d = 0; d < m.tiles; d++) {
    int c = dest_color(d, m.tiles);
    for (int s = 0; s < m.tiles; s++) m.add_path(c, RAMP, m.xy_path(s, d), RAMP);
    for (int ep : extra_srcs) {
      auto ip = m.inject_point(ep);
      m.add_path(c, ip.second, m.xy_path(ip.first, d), RAMP);
    }
  }
}

}  // namespace tb
