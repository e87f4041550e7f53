// Edge port intake across the clocks: wavelets the executor injects on the
// link clock reach one edge router's input on the mesh clock. To the
// executor it looks like a router with IntakeCredits entries per VC; to
// the router like a sender holding its VcDepth credits per VC.
`include "prim_assert.svh"

module hif_edge_in_cdc #(
  parameter int unsigned         NumVc         = 4,
  parameter int unsigned         VcW           = 2,
  parameter logic [32*VcW-1:0]   ColorVcMap    = '0,
  parameter int unsigned         VcDepth       = 4,   // the router's buffer per VC
  parameter int unsigned         Depth         = 32,  // FIFO entries, power of two
  parameter int unsigned         IntakeCredits = Depth / NumVc,
  localparam int unsigned        WW            = wse_pkg::WaveletW,
  localparam int unsigned        AW            = $clog2(Depth)
) (
  // Link clock: the executor's side.
  input  logic             clk_link_i,
  input  logic             rst_link_ni,
  input  logic             valid_i,        // sent only against a credit of its VC
  input  logic [WW-1:0]    data_i,
  output logic [NumVc-1:0] credit_o,       // one pulse per entry freed, per VC
  // Mesh clock: the edge router's input.
  input  logic             clk_i,
  input  logic             rst_ni,
  output logic             valid_o,
  output logic [WW-1:0]    data_o,
  input  logic [NumVc-1:0] credit_i,       // the router's credit returns
  output logic             busy_o          // wavelets still on their way (mesh clock)
);
  // A wavelet's VC, from its color.
  function automatic logic [VcW-1:0] vc_of(logic [wse_pkg::ColorW-1:0] color);
    vc_of = ColorVcMap[32'(color)*VcW +: VcW];
  endfunction

  logic          wready, rvalid, rpop;
  logic [WW-1:0] rdata;
  logic [AW:0]   wfill, unused_rfill;

  prim_fifo_async #(.Width(WW), .Depth(Depth)) u_fifo (
    .wclk_i(clk_link_i), .wrst_ni(rst_link_ni),
    .wvalid_i(valid_i), .wready_o(wready), .wdata_i(data_i), .wfill_o(wfill),
    .rclk_i(clk_i), .rrst_ni(rst_ni),
    .rvalid_o(rvalid), .rready_i(rpop), .rdata_o(rdata), .rfill_o(unused_rfill)
  );

  // ---- link clock: credits back to the executor --------------------------
  // The VC of every entry is kept beside the FIFO in this domain; once the
  // reader's pointer, as synchronized here, has passed an entry, its VC
  // gets its credit back (one per cycle: the reader frees at most one
  // entry per mesh cycle, and the link clock is never the slower one).
  logic [VcW-1:0] vcs_q [Depth];
  logic [AW:0]    wcnt_q, wcnt_d, done_q, done_d, rptr_seen;
  logic           give;

  assign rptr_seen = wcnt_q - wfill;  // the FIFO's read pointer as seen here
  assign give      = (done_q != rptr_seen);

  always_comb begin
    wcnt_d   = wcnt_q;
    done_d   = done_q;
    credit_o = '0;
    if (valid_i) wcnt_d = wcnt_q + 1'b1;
    if (give) begin
      credit_o[vcs_q[done_q[AW-1:0]]] = 1'b1;
      done_d = done_q + 1'b1;
    end
  end

  always_ff @(posedge clk_link_i or negedge rst_link_ni) begin
    if (!rst_link_ni) begin
      wcnt_q <= '0;
      done_q <= '0;
    end else begin
      wcnt_q <= wcnt_d;
      done_q <= done_d;
    end
  end

  // VC storage: no reset, written with the FIFO entry.
  always_ff @(posedge clk_link_i) begin
    if (valid_i) vcs_q[wcnt_q[AW-1:0]] <= vc_of(data_i[wse_pkg::ColorLsb +: wse_pkg::ColorW]);
  end

  // ---- mesh clock: into the router against its credits -------------------
  hif_vc_gate #(
    .NumVc(NumVc), .VcW(VcW), .ColorVcMap(ColorVcMap), .Credits(VcDepth)
  ) u_gate (
    .clk_i(clk_i), .rst_ni(rst_ni), .head_valid_i(rvalid), .head_i(rdata), .pop_o(rpop),
    .credit_i(credit_i)
  );
  assign valid_o = rpop;
  assign data_o  = rdata;
  assign busy_o  = rvalid;

  logic unused_cdc;
  assign unused_cdc = ^unused_rfill;

  // ---- assertions --------------------------------------------------------
  if (NumVc * IntakeCredits > Depth) begin : gen_bad_credits
    $error("hif_edge_in_cdc: the executor's credits must fit the FIFO");
  end
  // The executor never sends without room: its credits cover the FIFO.
  `ASSERT(InNoOverflow, valid_i |-> wready, clk_link_i, rst_link_ni)
  // Credits handed back never pass the entries written.
  `ASSERT(InCreditsBehindWrites, (wcnt_q - done_q) <= (AW + 1)'(Depth), clk_link_i, rst_link_ni)
endmodule
