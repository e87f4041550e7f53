// Tiles' putchar output across the clocks: each mesh cycle with any
// character queues the whole vector (all tiles' valid bits and characters)
// for the link clock, where it is presented for one cycle. A vector that
// finds the queue full is dropped and counted (drops_o, mesh clock); the
// link clock is never the slower one, so that takes output on most tiles
// in nearly every cycle.
`include "prim_assert.svh"

module hif_putc_cdc #(
  parameter int unsigned NumTiles = 4,
  parameter int unsigned Depth    = 16
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic [NumTiles-1:0]   putc_valid_i,
  input  logic [NumTiles*8-1:0] putc_char_i,
  output logic [31:0]           drops_o,
  output logic                  busy_o,
  input  logic                  clk_link_i,
  input  logic                  rst_link_ni,
  output logic [NumTiles-1:0]   putc_valid_o,
  output logic [NumTiles*8-1:0] putc_char_o
);
  localparam int unsigned AW = $clog2(Depth);

  logic                  wready, rvalid;
  logic [NumTiles-1:0]   rvalid_bits;
  logic [AW:0]           wfill, unused_rfill;
  logic [31:0]           drops_q, drops_d;

  prim_fifo_async #(.Width(NumTiles * 9), .Depth(Depth)) u_fifo (
    .wclk_i(clk_i), .wrst_ni(rst_ni),
    .wvalid_i(|putc_valid_i), .wready_o(wready), .wdata_i({putc_valid_i, putc_char_i}),
    .wfill_o(wfill),
    .rclk_i(clk_link_i), .rrst_ni(rst_link_ni),
    .rvalid_o(rvalid), .rready_i(1'b1), .rdata_o({rvalid_bits, putc_char_o}),
    .rfill_o(unused_rfill)
  );
  assign putc_valid_o = rvalid ? rvalid_bits : '0;

  always_comb begin
    drops_d = drops_q;
    if (|putc_valid_i && !wready && drops_q != 32'hFFFF_FFFF) drops_d = drops_q + 1'b1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) drops_q <= '0;
    else         drops_q <= drops_d;
  end

  assign drops_o = drops_q;
  assign busy_o  = (wfill != '0);

  logic unused_putc_cdc;
  assign unused_putc_cdc = ^unused_rfill;

  // A queued vector always carries a character.
  `ASSERT(PutcVectorNotEmpty, rvalid |-> |rvalid_bits, clk_link_i, rst_link_ni)
  `ASSERT_KNOWN(PutcValidKnown, putc_valid_o, clk_link_i, rst_link_ni)
endmodule
