// Asynchronous FIFO: carries a stream between two clock domains (in the
// host interface, each crossing between the link clock and the mesh clock:
// the edge ports, the management port, the putchar vector). Gray-coded
// pointers cross through prim_flop_2sync, so each crossing changes one bit
// at a time; the data array is written in the write domain and read in the
// read domain only at entries the synchronized pointers prove stable.
`include "prim_assert.svh"

module prim_fifo_async #(
  parameter int unsigned Width = 64,
  parameter int unsigned Depth = 8,  // power of two, >= 4
  localparam int unsigned AW = $clog2(Depth)
) (
  // Write side (e.g. the link clock).
  input  logic             wclk_i,
  input  logic             wrst_ni,
  input  logic             wvalid_i,
  output logic             wready_o,  // not full
  input  logic [Width-1:0] wdata_i,
  output logic [AW:0]      wfill_o,   // entries in use, as seen by the writer (pessimistic)
  // Read side (e.g. the mesh clock).
  input  logic             rclk_i,
  input  logic             rrst_ni,
  output logic             rvalid_o,  // not empty
  input  logic             rready_i,
  output logic [Width-1:0] rdata_o,
  output logic [AW:0]      rfill_o    // entries in use, as seen by the reader (pessimistic)
);
  // Pointers are AW+1 bits: the extra bit tells full from empty.
  logic [AW:0] wbin_q, wbin_d, wgray_q, wgray_d, wgray_rsync;
  logic [AW:0] rbin_q, rbin_d, rgray_q, rgray_d, rgray_wsync;
  logic [AW:0] rbin_wsync, wbin_rsync;
  logic [Width-1:0] mem_q [Depth];
  logic full, empty, wpush, rpop;

  function automatic logic [AW:0] bin2gray(logic [AW:0] b);
    bin2gray = b ^ (b >> 1);
  endfunction

  function automatic logic [AW:0] gray2bin(logic [AW:0] g);
    logic [AW:0] b;
    b[AW] = g[AW];
    for (int i = AW - 1; i >= 0; i--) b[i] = b[i+1] ^ g[i];
    gray2bin = b;
  endfunction

  // ---- write domain ----------------------------------------------------
  prim_flop_2sync #(.Width(AW + 1)) u_sync_rptr (
    .clk_i  (wclk_i),
    .rst_ni (wrst_ni),
    .d_i    (rgray_q),
    .q_o    (rgray_wsync)
  );

  // Full: the writer is one lap (Depth entries) ahead of the reader, i.e.
  // the two top gray bits differ and the rest match.
  assign full     = (wgray_q == {~rgray_wsync[AW:AW-1], rgray_wsync[AW-2:0]});
  assign wready_o = !full;
  assign wpush    = wvalid_i && !full;
  assign rbin_wsync = gray2bin(rgray_wsync);
  assign wfill_o  = wbin_q - rbin_wsync;

  always_comb begin
    wbin_d  = wbin_q;
    if (wpush) wbin_d = wbin_q + 1'b1;
    wgray_d = bin2gray(wbin_d);
  end

  always_ff @(posedge wclk_i or negedge wrst_ni) begin
    if (!wrst_ni) begin
      wbin_q  <= '0;
      wgray_q <= '0;
    end else begin
      wbin_q  <= wbin_d;
      wgray_q <= wgray_d;
    end
  end

  // Storage: no reset, written only in the write domain.
  always_ff @(posedge wclk_i) begin
    if (wpush) mem_q[wbin_q[AW-1:0]] <= wdata_i;
  end

  // ---- read domain -----------------------------------------------------
  prim_flop_2sync #(.Width(AW + 1)) u_sync_wptr (
    .clk_i  (rclk_i),
    .rst_ni (rrst_ni),
    .d_i    (wgray_q),
    .q_o    (wgray_rsync)
  );

  assign empty    = (rgray_q == wgray_rsync);
  assign rvalid_o = !empty;
  assign rpop     = rready_i && !empty;
  assign rdata_o  = mem_q[rbin_q[AW-1:0]];
  assign wbin_rsync = gray2bin(wgray_rsync);
  assign rfill_o  = wbin_rsync - rbin_q;

  always_comb begin
    rbin_d  = rbin_q;
    if (rpop) rbin_d = rbin_q + 1'b1;
    rgray_d = bin2gray(rbin_d);
  end

  always_ff @(posedge rclk_i or negedge rrst_ni) begin
    if (!rrst_ni) begin
      rbin_q  <= '0;
      rgray_q <= '0;
    end else begin
      rbin_q  <= rbin_d;
      rgray_q <= rgray_d;
    end
  end

  // ---- assertions --------------------------------------------------------
  // Parameters the design relies on.
  if (Depth < 4 || (Depth & (Depth - 1)) != 0) begin : gen_bad_depth
    $error("prim_fifo_async: Depth must be a power of two >= 4");
  end

  // Each domain's gray pointer moves by at most one bit per cycle: the
  // property that makes its two-flop crossing safe.
  `ASSERT_ONEHOT0(WGrayOneStep, wgray_d ^ wgray_q, wclk_i, wrst_ni)
  `ASSERT_ONEHOT0(RGrayOneStep, rgray_d ^ rgray_q, rclk_i, rrst_ni)
  // The gray registers always hold the code of their binary twins.
  `ASSERT(WGrayMatchesBin, wgray_q == bin2gray(wbin_q), wclk_i, wrst_ni)
  `ASSERT(RGrayMatchesBin, rgray_q == bin2gray(rbin_q), rclk_i, rrst_ni)
  // Neither side ever sees more than Depth entries in use: no overflow
  // (writer laps the reader) and no underflow (reader passes the writer).
  `ASSERT(WNoOverflow, wfill_o <= (AW + 1)'(Depth), wclk_i, wrst_ni)
  `ASSERT(RNoUnderflow, rfill_o <= (AW + 1)'(Depth), rclk_i, rrst_ni)
  // Full and empty stop the pointers.
  `ASSERT_NEXT(WHoldWhenFull, full && wvalid_i, wbin_q == $past(wbin_q), wclk_i, wrst_ni)
  `ASSERT_NEXT(RHoldWhenEmpty, empty, rbin_q == $past(rbin_q), rclk_i, rrst_ni)
  `ASSERT_KNOWN(WReadyKnown, wready_o, wclk_i, wrst_ni)
  `ASSERT_KNOWN(RValidKnown, rvalid_o, rclk_i, rrst_ni)
  `COVER(WFull, full, wclk_i, wrst_ni)
  `COVER(REmptyAfterData, empty && $past(rpop), rclk_i, rrst_ni)
endmodule
