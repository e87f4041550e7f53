// Tiles' putchar output across the clocks, with credits back so that no
// character is lost (docs/host-if.md, "Console").
//
// Forward: each mesh cycle with any character queues the whole vector (all
// tiles' valid bits and characters) for the link clock, where it is
// presented for one cycle to the event sender's console buffers.
//
// Back: a tile may have at most ConDepth characters that its console
// buffer has not sent yet, counting those still crossing. Each tile starts
// with ConDepth credits here; a character takes one, and the event sender
// returns a CONSOLE event's characters ({tile, count}) through a second
// FIFO when the event has gone out. putc_ready_o is registered: it is high
// in a cycle only if the tile has a credit and the vector queue has room
// for that cycle's vector, so a tile that sees it high may print at once.
// While it is low a printing store waits in the tile (wse_pe_hostio).
`include "prim_assert.svh"

module hif_putc_cdc #(
  parameter int unsigned NumTiles = 4,
  parameter int unsigned Depth    = 16,  // vectors in flight, power of two
  parameter int unsigned ConDepth = 32,  // console characters buffered per tile (hif_evt)
  parameter int unsigned TW       = (NumTiles > 1) ? $clog2(NumTiles) : 1
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic [NumTiles-1:0]   putc_valid_i,
  input  logic [NumTiles*8-1:0] putc_char_i,
  output logic [NumTiles-1:0]   putc_ready_o,
  output logic                  busy_o,
  input  logic                  clk_link_i,
  input  logic                  rst_link_ni,
  output logic [NumTiles-1:0]   putc_valid_o,
  output logic [NumTiles*8-1:0] putc_char_o,
  // Link clock: the event sender has sent ret_n_i characters of tile
  // ret_tile_i. Taken only while ret_ready_o.
  input  logic                  ret_valid_i,
  output logic                  ret_ready_o,
  input  logic [TW-1:0]         ret_tile_i,
  input  logic [3:0]            ret_n_i
);
  localparam int unsigned AW = $clog2(Depth);
  localparam int unsigned CW = $clog2(ConDepth + 1);

  // ---- forward: the vectors ----
  logic                  wready, rvalid;
  logic [NumTiles-1:0]   rvalid_bits;
  logic [AW:0]           wfill, unused_rfill;

  prim_fifo_async #(.Width(NumTiles * 9), .Depth(Depth)) u_fifo (
    .wclk_i(clk_i), .wrst_ni(rst_ni),
    .wvalid_i(|putc_valid_i), .wready_o(wready), .wdata_i({putc_valid_i, putc_char_i}),
    .wfill_o(wfill),
    .rclk_i(clk_link_i), .rrst_ni(rst_link_ni),
    .rvalid_o(rvalid), .rready_i(1'b1), .rdata_o({rvalid_bits, putc_char_o}),
    .rfill_o(unused_rfill)
  );
  assign putc_valid_o = rvalid ? rvalid_bits : '0;

  // ---- back: the characters sent ----
  // One entry per CONSOLE event; the event sender starts one only while
  // this has room, and the mesh side takes an entry every cycle.
  logic          bvalid;
  logic [TW-1:0] btile;
  logic [3:0]    bn;
  logic [2:0]    unused_bwfill, unused_brfill;
  prim_fifo_async #(.Width(TW + 4), .Depth(4)) u_ret (
    .wclk_i(clk_link_i), .wrst_ni(rst_link_ni),
    .wvalid_i(ret_valid_i), .wready_o(ret_ready_o), .wdata_i({ret_tile_i, ret_n_i}),
    .wfill_o(unused_bwfill),
    .rclk_i(clk_i), .rrst_ni(rst_ni),
    .rvalid_o(bvalid), .rready_i(1'b1), .rdata_o({btile, bn}),
    .rfill_o(unused_brfill)
  );

  // ---- credits, mesh clock ----
  logic [CW-1:0]       cred_q [NumTiles];
  logic [CW-1:0]       cred_d [NumTiles];
  logic [NumTiles-1:0] ready_q, ready_d;
  logic                room;

  // Room for next cycle's vector: this cycle's may still take a place, and
  // the reader can only free places.
  assign room = 32'(wfill) + 32'(|putc_valid_i) < Depth;

  always_comb begin
    for (int t = 0; t < NumTiles; t++) begin
      cred_d[t] = cred_q[t] - CW'(putc_valid_i[t]);
      if (bvalid && btile == TW'(t)) cred_d[t] = cred_d[t] + CW'(bn);
      ready_d[t] = (cred_d[t] != '0) && room;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ready_q <= '0;
      for (int t = 0; t < NumTiles; t++) cred_q[t] <= CW'(ConDepth);
    end else begin
      ready_q <= ready_d;
      for (int t = 0; t < NumTiles; t++) cred_q[t] <= cred_d[t];
    end
  end

  assign putc_ready_o = ready_q;
  // A character still crossing, or credits on their way back.
  assign busy_o = (wfill != '0) || bvalid;

  logic unused_putc_cdc;
  assign unused_putc_cdc = ^{unused_rfill, unused_bwfill, unused_brfill};

  // A queued vector always carries a character.
  `ASSERT(PutcVectorNotEmpty, rvalid |-> |rvalid_bits, clk_link_i, rst_link_ni)
  `ASSERT_KNOWN(PutcValidKnown, putc_valid_o, clk_link_i, rst_link_ni)
  // The tiles print only when told they may, so the queue never overflows.
  `ASSERT(PutcOnlyWhenReady, (putc_valid_i & ~ready_q) == '0)
  `ASSERT(PutcQueueRoom, |putc_valid_i |-> wready)
  for (genvar t = 0; t < NumTiles; t++) begin : g_asrt
    logic [CW-1:0] cred_t;
    assign cred_t = cred_q[t];
    // No tile gets back more characters than it has sent.
    `ASSERT(PutcCreditBound, 32'(cred_t) <= ConDepth)
  end
endmodule
