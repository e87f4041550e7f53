// Shared pieces of the fabric testbenches: seeded random numbers, wavelet
// tags, the reference route model, the scoreboard and the traffic patterns.
// Independent of the RTL's port names; the per-top glue lives in tb_*.cpp.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "wsemu/wse_wire.h"

namespace tb {

// ---- Errors --------------------------------------------------------------
extern int g_errors;
extern uint64_t g_seed;
extern const char *g_prog;

void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// ---- Random numbers (splitmix64 seeding, xoshiro256**) -------------------
class Rng {
 public:
  explicit Rng(uint64_t seed = 1) { reseed(seed); }
  void reseed(uint64_t seed);
  uint64_t next();
  uint32_t below(uint32_t n) { return n ? (uint32_t)((next() >> 32) % n) : 0; }
  double uniform() { return (double)(next() >> 11) * (1.0 / 9007199254740992.0); }
  bool chance(double p) { return uniform() < p; }

 private:
  uint64_t s_[4];
};

// SEED from the environment, or a fresh one; printed either way so that
// `SEED=n` reproduces the run.
uint64_t seed_from_env(const char *prog);

// ---- Wavelets and tags ---------------------------------------------------
// Every injected wavelet carries a unique tag in its data field, scrambled
// by an odd multiplier so that every data bit toggles.
constexpr uint32_t kTagMul = 0x9E3779B1u;
uint32_t tag_to_data(uint32_t tag);
uint32_t data_to_tag(uint32_t data);

// ---- Reference route model ----------------------------------------------
// Ports: N=0 E=1 S=2 W=3 RAMP=4. Tile index = y * cols + x.
enum { N = WSE_PORT_NORTH, E = WSE_PORT_EAST, S = WSE_PORT_SOUTH, W = WSE_PORT_WEST, RAMP = WSE_PORT_RAMP };
constexpr int kPorts = WSE_NUM_PORTS;
constexpr int kColors = WSE_NUM_COLORS;
int opposite(int dir);
const char *port_name(int p);

struct Route {
  uint8_t rx = 0, tx = 0;
};

// Endpoints: 0..T-1 are tile RAMPs; T.. are the links that leave the mesh
// at an edge, one per (edge tile, direction).
class MeshModel {
 public:
  MeshModel(int cols, int rows);
  int cols, rows, tiles;
  std::vector<std::vector<Route>> rt;  // [tile][color]

  int tile(int x, int y) const { return y * cols + x; }
  int tx_of(int t) const { return t % cols; }
  int ty_of(int t) const { return t / cols; }
  // Neighbour tile through dir, or -1 off the mesh.
  int neighbour(int t, int dir) const;
  int num_endpoints() const { return tiles + (int)edge_.size(); }
  int edge_endpoint(int t, int dir) const;  // -1 if not an edge link
  // Where an endpoint injects: (tile, input port).
  std::pair<int, int> inject_point(int ep) const;
  std::string ep_name(int ep) const;

  // Follows a wavelet of `color` that enters tile t through port `in`.
  // Appends reached endpoints and (tile, in-port) drop sites.
  // Also appends every (tile, out-port) the wavelet leaves through to fwds.
  bool propagate(int t, int in, int color, std::vector<int> &dests,
                 std::vector<std::pair<int, int>> &drops,
                 std::vector<std::pair<int, int>> *fwds = nullptr) const;

  void clear();
  void clear_color(int c);
  // OR the bits of a path: a wavelet entering `path[0]` through `in0` and
  // hopping along the tiles of `path`, leaving the last tile through `out`.
  void add_path(int color, int in0, const std::vector<int> &path, int out);
  // Tiles of the dimension-ordered (X then Y) path from a to b.
  std::vector<int> xy_path(int a, int b) const;
  // Direction from tile a to its neighbour b.
  int dir_to(int a, int b) const;

 private:
  std::map<std::pair<int, int>, int> edge_;  // (tile, dir) -> endpoint
  std::vector<std::pair<int, int>> edge_list_;
};

// ---- Scoreboard ----------------------------------------------------------
struct Delivery {
  uint64_t latency;
};

class Scoreboard {
 public:
  explicit Scoreboard(const MeshModel &m) : m_(m) {}
  // Registers a wavelet that the source will inject at `cycle` and returns
  // its data word; dests/drops from the reference model.
  uint32_t expect(int src, int color, bool ctrl, const std::vector<int> &dests, int ndrops, uint64_t cycle);
  // Call when the DUT accepted the wavelet (start of its latency).
  void injected(uint32_t data, uint64_t cycle);
  void receive(int dst, uint32_t data, int color, bool ctrl, uint64_t cycle);
  // Everything delivered? Reports each missing delivery.
  bool all_delivered(bool report);
  uint64_t outstanding() const { return outstanding_; }

  uint64_t n_expected = 0, n_injected = 0, n_delivered = 0, n_exp_deliveries = 0;
  uint64_t n_exp_drop_wavelets = 0;
  uint64_t lat_sum = 0, lat_max = 0, lat_min = ~0ull;
  uint64_t window_start = 0, window_end = ~0ull, window_delivered = 0;
  uint64_t window_injected = 0;
  uint64_t delivered_color[kColors] = {};  // per color, for rate classes
  std::vector<uint64_t> delivered_ep;      // per endpoint, for rate classes

 private:
  struct Rec {
    int src;
    uint8_t color;
    bool ctrl;
    uint64_t t_inject;
    std::vector<int> pending;
    std::vector<int> done;
  };
  const MeshModel &m_;
  std::vector<Rec> recs_;
  std::map<std::tuple<int, int, int>, uint32_t> last_;  // (src,dst,color) -> tag
  uint64_t outstanding_ = 0;
};

// ---- Sources and sinks ---------------------------------------------------
struct Pending {
  uint32_t data;
  uint8_t color;
  bool ctrl;
};

// Back-pressure profile of a sink: each cycle it consumes with probability
// `p_take`; with probability `p_stall` it enters a stall of up to
// `max_stall` cycles. `never` models a consumer that never reads.
struct SinkPolicy {
  double p_take = 1.0;
  double p_stall = 0.0;
  int max_stall = 0;
  bool never = false;
};

class SinkState {
 public:
  SinkPolicy pol;
  int stall = 0;
  bool take(Rng &r) {
    if (pol.never) return false;
    if (stall > 0) {
      --stall;
      return false;
    }
    if (pol.p_stall > 0 && r.chance(pol.p_stall)) {
      stall = 1 + (int)r.below((uint32_t)pol.max_stall);
      return false;
    }
    return r.chance(pol.p_take);
  }
};

SinkPolicy random_sink_policy(Rng &r);

// ---- Traffic patterns (destination tile of a unicast source tile) -------
enum class Pattern { Uniform, Transpose, Hotspot, Neighbour };
const char *pattern_name(Pattern p);
// Returns -1 when the source sends nothing under the pattern.
int pattern_dest(Pattern p, const MeshModel &m, int src_tile, Rng &r, int hotspot);

// Per-destination colors for dimension-ordered routing: color of tile t.
// Spread over user colors so that destinations use VC0..VC2 in turn.
int dest_color(int t, int tiles);
// Configure XY unicast trees: every tile (and the given edge injection
// endpoints) reaches every tile on dest_color(tile).
void plan_xy_unicast(MeshModel &m, const std::vector<int> &extra_srcs);

// ---- Summary -------------------------------------------------------------
// A stable, seed-dependent digest of a run (for X-propagation comparison).
struct Digest {
  uint64_t h = 1469598103934665603ull;
  void add(uint64_t v) {
    for (int i = 0; i < 8; i++) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  }
};

}  // namespace tb
