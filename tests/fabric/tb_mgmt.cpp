// Management network tests, run on the mesh model through its one
// management port: tile register map (docs/register-map.md), error answers,
// broadcast writes, back-to-back requests and valid/ready handling.
#include "tb_mesh.h"

namespace tb {

static uint32_t route_word(Route r) { return ((uint32_t)r.rx << 8) | r.tx; }

static void expect_rd(MeshTb &t, int tile, uint32_t addr, uint32_t want, const char *what) {
  uint32_t v = t.rd(tile, addr);
  if (v != want)
    fail("mgmt %s: tile (%d,%d) 0x%05x reads 0x%08x, expected 0x%08x", what, t.m.tx_of(tile), t.m.ty_of(tile), addr,
         v, want);
  t.dig.add(v);
}

static void expect_err(MeshTb &t, bool write, bool bcast, int x, int y, uint32_t addr, const char *what) {
  MgmtReq r = t.mgmt(write, bcast, x, y, addr, 0xffffffffu);
  if (!r.err) fail("mgmt %s: %s of (%d,%d) 0x%08x answered without error", what, write ? "write" : "read", x, y, addr);
}

static uint32_t halt_bits(MeshTb &t) { return (uint32_t)get_bits(t.dut->tile_halt_o, 0, kTiles); }

int mgmt_tests(MeshTb &t) {
  int e0 = g_errors;
  // Identity and reset values of every tile.
  for (int i = 0; i < kTiles; i++) {
    expect_rd(t, i, kAddrTileId, 0x57530000u | ((uint32_t)t.m.ty_of(i) << 8) | (uint32_t)t.m.tx_of(i), "TILE_ID");
    expect_rd(t, i, kAddrTileCtrl, 1, "TILE_CTRL after reset");
    for (int c = 0; c < kColors; c++)
      if (t.rng.chance(kTiles > 4 ? 0.03 : 0.25)) expect_rd(t, i, addr_route(c), 0, "ROUTE after reset");
  }
  uint64_t all = kTiles >= 64 ? ~0ull : ((1ull << kTiles) - 1);
  if (halt_bits(t) != all) fail("mgmt: tiles not halted after reset (0x%x)", halt_bits(t));

  // TILE_CTRL: release one tile, hold one core in reset, check the outputs.
  int a = (int)t.rng.below(kTiles);
  t.wr(a, kAddrTileCtrl, 0x0);
  expect_rd(t, a, kAddrTileCtrl, 0, "TILE_CTRL released");
  if (halt_bits(t) != (all & ~(1ull << a))) fail("mgmt: tile_halt_o = 0x%x after releasing tile %d", halt_bits(t), a);
  t.wr(a, kAddrTileCtrl, 0x2);
  if (!get_bit(t.dut->tile_core_rst_o, a)) fail("mgmt: tile_core_rst_o[%d] not set", a);
  t.bcast_wr(kAddrTileCtrl, 0x1);
  for (int i = 0; i < kTiles; i++) expect_rd(t, i, kAddrTileCtrl, 1, "TILE_CTRL after broadcast");
  if (get_bits(t.dut->tile_core_rst_o, 0, kTiles) != 0) fail("mgmt: tile_core_rst_o not cleared by broadcast");

  // Route entries: random writes (undefined bits set too), read back.
  std::vector<Route> shadow(kTiles * kColors);
  for (int n = 0; n < 6 * kTiles; n++) {
    int i = (int)t.rng.below(kTiles), c = (int)t.rng.below(kColors);
    uint32_t w = (uint32_t)t.rng.next();
    t.wr(i, addr_route(c), w);
    shadow[i * kColors + c] = Route{(uint8_t)((w >> 8) & 0x1f), (uint8_t)(w & 0x1f)};
  }
  // Back-to-back reads with random gaps; answers come in request order.
  t.mg_random_gap = true;
  std::vector<std::pair<uint64_t, uint32_t>> ids;
  // Every entry on small meshes, a sample of the written ones on larger.
  for (int i = 0; i < kTiles; i++)
    for (int c = 0; c < kColors; c++) {
      bool written = false;
      if (kTiles > 4) {
        written = shadow[i * kColors + c].rx || shadow[i * kColors + c].tx;
        if (!written && !t.rng.chance(0.05)) continue;
      }
      MgmtReq r;
      r.x = t.m.tx_of(i);
      r.y = t.m.ty_of(i);
      r.addr = addr_route(c);
      ids.push_back({t.mgmt_post(r), route_word(shadow[i * kColors + c])});
    }
  for (auto &id : ids) {
    MgmtReq r = t.mgmt_wait(id.first);
    if (r.err || r.rdata != id.second)
      fail("mgmt route readback: (%d,%d) 0x%x = 0x%08x err %d, expected 0x%08x", r.x, r.y, r.addr, r.rdata, r.err,
           id.second);
    t.dig.add(r.rdata);
  }
  t.mg_random_gap = false;
  // Broadcast route write reaches every tile.
  int cb = (int)t.rng.below(kColors);
  t.bcast_wr(addr_route(cb), 0x1503);
  for (int i = 0; i < kTiles; i++) {
    expect_rd(t, i, addr_route(cb), 0x1503, "broadcast ROUTE");
    shadow[i * kColors + cb] = Route{0x15, 0x03};
  }

  // Errors change nothing.
  int x = t.m.tx_of(a), y = t.m.ty_of(a);
  expect_err(t, true, false, x, y, kAddrTileId, "write to TILE_ID");
  expect_err(t, true, false, x, y, kAddrTileStatus, "write to TILE_STATUS");
  expect_err(t, true, false, x, y, addr_cnt(2, CNT_DROP), "write to CNT_DROP");
  expect_err(t, false, false, x, y, 0x3000, "unmapped");
  expect_err(t, false, false, x, y, 0x000C, "unmapped");
  expect_err(t, false, false, x, y, addr_cnt(5, CNT_FWD), "counter of port 5");
  expect_err(t, false, false, x, y, addr_cnt(0, 3), "counter kind 3");
  expect_err(t, true, false, x, y, addr_route(3) + 1, "unaligned");
  expect_err(t, false, false, kCols, 0, kAddrTileId, "tile outside the mesh");
  expect_err(t, false, false, 0, kRows, kAddrTileId, "tile outside the mesh");
  expect_err(t, false, true, 0, 0, kAddrTileId, "broadcast read");
  expect_err(t, false, false, x, y, kAddrCsr, "tile bus without a core");
  expect_rd(t, a, kAddrTileId, 0x57530000u | ((uint32_t)y << 8) | (uint32_t)x, "TILE_ID after errors");
  expect_rd(t, a, addr_route(3), route_word(shadow[a * kColors + 3]), "ROUTE after unaligned");

  // CNT_CLEAR reads back as 0 and keeps HALT.
  t.wr(a, kAddrTileCtrl, 0x5);
  expect_rd(t, a, kAddrTileCtrl, 1, "TILE_CTRL after CNT_CLEAR");
  for (int p = 0; p < kPorts; p++)
    for (int k = 0; k < 3; k++) expect_rd(t, a, addr_cnt(p, k), 0, "counters idle");

  // Leave every route entry cleared for the traffic tests.
  t.clear_routes();
  for (int i = 0; i < kTiles; i++) expect_rd(t, i, addr_route(cb), 0, "ROUTE cleared");
  printf("RESULT mgmt%dx%d requests=%llu errors=%d\n", kCols, kRows, (unsigned long long)t.mgmt_reqs,
         g_errors - e0);
  return g_errors - e0;
}

}  // namespace tb
