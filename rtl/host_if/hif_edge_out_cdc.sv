// Edge port outlet across the clocks: wavelets one edge router sends out
// on the mesh clock reach the event sender (hif_evt) on the link clock. To
// the router it looks like a receiver with VcDepth entries per VC; to the
// event sender like a router that started with OutCredits credits per VC.
`include "prim_assert.svh"

module hif_edge_out_cdc #(
  parameter int unsigned         NumVc      = 4,
  parameter int unsigned         VcW        = 2,
  parameter logic [32*VcW-1:0]   ColorVcMap = '0,
  parameter int unsigned         VcDepth    = 4,   // credits the router starts with, per VC
  parameter int unsigned         OutCredits = 8,   // credits the event sender grants, per VC
  parameter int unsigned         Depth      = 32,  // FIFO entries, power of two
  localparam int unsigned        WW         = wse_pkg::WaveletW,
  localparam int unsigned        AW         = $clog2(Depth)
) (
  // Mesh clock: the edge router's output.
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             valid_i,
  input  logic [WW-1:0]    data_i,
  output logic [NumVc-1:0] credit_o,
  output logic             busy_o,         // wavelets still on their way (mesh clock)
  // Link clock: the event sender's side.
  input  logic             clk_link_i,
  input  logic             rst_link_ni,
  output logic             valid_o,
  output logic [WW-1:0]    data_o,
  input  logic [NumVc-1:0] credit_i        // the event sender's credit returns
);
  localparam int unsigned PendW = $clog2(VcDepth + 1);
  localparam int unsigned Held  = NumVc * VcDepth;

  // A wavelet's VC, from its color.
  function automatic logic [VcW-1:0] vc_of(logic [wse_pkg::ColorW-1:0] color);
    vc_of = ColorVcMap[32'(color)*VcW +: VcW];
  endfunction

  logic          wready, rvalid, rpop;
  logic [WW-1:0] rdata;
  logic [AW:0]   wfill, unused_rfill;

  prim_fifo_async #(.Width(WW), .Depth(Depth)) u_fifo (
    .wclk_i(clk_i), .wrst_ni(rst_ni),
    .wvalid_i(valid_i), .wready_o(wready), .wdata_i(data_i), .wfill_o(wfill),
    .rclk_i(clk_link_i), .rrst_ni(rst_link_ni),
    .rvalid_o(rvalid), .rready_i(rpop), .rdata_o(rdata), .rfill_o(unused_rfill)
  );

  // ---- mesh clock: credits back to the router -----------------------------
  // A wavelet's credit goes back at once while the FIFO has room for all the
  // router may send after it (the fill as this side sees it, which is never
  // less than the truth, plus every credit the router would then hold), so
  // a stream of one VC runs at a wavelet per cycle; else when the reader
  // has made room. One credit per cycle, the VCs taking turns from the
  // lowest after the last one served.
  logic [PendW-1:0] pend_q [NumVc];
  logic [PendW-1:0] pend_d [NumVc];
  logic [VcW-1:0]   last_q, last_d;
  logic [31:0]      owed;
  logic             room;
  logic [VcW-1:0]   in_vc;

  assign in_vc = vc_of(data_i[wse_pkg::ColorLsb +: wse_pkg::ColorW]);

  always_comb begin
    owed = '0;
    for (int v = 0; v < NumVc; v++) owed = owed + 32'(pend_q[v]);
  end
  // After a return the router holds Held - owed + 1 credits.
  assign room = (32'(wfill) + 32'(Held) - owed + 32'd1) <= 32'(Depth);

  always_comb begin
    logic [VcW-1:0] v;
    logic           found;
    v        = '0;
    for (int k = 0; k < NumVc; k++) pend_d[k] = pend_q[k];
    last_d   = last_q;
    credit_o = '0;
    found    = 1'b0;
    if (valid_i) pend_d[in_vc] = pend_d[in_vc] + 1'b1;
    if (room) begin
      for (int k = 1; k <= NumVc; k++) begin
        v = VcW'(32'(last_q) + 32'(k));
        if (!found && pend_q[v] != '0) begin
          found       = 1'b1;
          credit_o[v] = 1'b1;
          pend_d[v]   = pend_d[v] - 1'b1;
          last_d      = v;
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int k = 0; k < NumVc; k++) pend_q[k] <= '0;
      last_q <= '0;
    end else begin
      for (int k = 0; k < NumVc; k++) pend_q[k] <= pend_d[k];
      last_q <= last_d;
    end
  end

  assign busy_o = (wfill != '0);

  // ---- link clock: to the event sender against its credits -----------------
  hif_vc_gate #(
    .NumVc(NumVc), .VcW(VcW), .ColorVcMap(ColorVcMap), .Credits(OutCredits)
  ) u_gate (
    .clk_i(clk_link_i), .rst_ni(rst_link_ni), .head_valid_i(rvalid), .head_i(rdata),
    .pop_o(rpop), .credit_i(credit_i)
  );
  assign valid_o = rpop;
  assign data_o  = rdata;

  logic unused_cdc;
  assign unused_cdc = ^unused_rfill;

  // ---- assertions --------------------------------------------------------
  if (Held >= Depth) begin : gen_bad_depth
    $error("hif_edge_out_cdc: the FIFO must hold more than the router's credits");
  end
  // The router sends only against a credit, which always had room behind it.
  `ASSERT(OutNoOverflow, valid_i |-> wready, clk_i, rst_ni)
  for (genvar k = 0; k < NumVc; k++) begin : g_vc_asrt
    logic [PendW-1:0] pc;
    assign pc = pend_q[k];
    `ASSERT(PendBound, 32'(pc) <= VcDepth, clk_i, rst_ni)
  end
endmodule
