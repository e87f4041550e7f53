// Credit gate on a queue's head: the head wavelet leaves only while its VC
// holds a credit from the receiver, which starts with Credits per VC and
// returns one per credit_i pulse. Both edge port crossings send this way,
// each into the side that grants its credits.
`include "prim_assert.svh"

module hif_vc_gate #(
  parameter int unsigned       NumVc      = 4,
  parameter int unsigned       VcW        = 2,
  parameter logic [32*VcW-1:0] ColorVcMap = '0,
  parameter int unsigned       Credits    = 4,
  localparam int unsigned      WW         = wse_pkg::WaveletW
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             head_valid_i,
  input  logic [WW-1:0]    head_i,
  output logic             pop_o,          // the head leaves (valid to the receiver)
  input  logic [NumVc-1:0] credit_i
);
  localparam int unsigned CredW = $clog2(Credits + 1);

  logic [CredW-1:0] cred_q [NumVc];
  logic [CredW-1:0] cred_d [NumVc];
  logic [VcW-1:0]   head_vc;
  logic [WW-1:0]    unused_head;

  assign head_vc = ColorVcMap[32'(head_i[wse_pkg::ColorLsb +: wse_pkg::ColorW])*VcW +: VcW];
  assign pop_o   = head_valid_i && (cred_q[head_vc] != '0);
  assign unused_head = head_i;

  always_comb begin
    for (int v = 0; v < NumVc; v++) begin
      cred_d[v] = cred_q[v] + CredW'(credit_i[v]);
      if (pop_o && head_vc == VcW'(v)) cred_d[v] = cred_d[v] - 1'b1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int v = 0; v < NumVc; v++) cred_q[v] <= CredW'(Credits);
    end else begin
      for (int v = 0; v < NumVc; v++) cred_q[v] <= cred_d[v];
    end
  end

  // The receiver never returns more credits than it was given.
  for (genvar v = 0; v < NumVc; v++) begin : g_vc_asrt
    logic [CredW-1:0] c;
    assign c = cred_q[v];
    `ASSERT(GateCreditBound, 32'(c) <= Credits)
  end
endmodule
