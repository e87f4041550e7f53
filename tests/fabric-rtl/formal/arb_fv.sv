// Formal harness of prim_arb_rr: any requests, any updates. The properties
// are the arbiter's own assertions: one-hot grant, only to requesters,
// work-conserving, and (formal only) a requester that keeps requesting is
// granted before N used grants go to others.
module arb_fv #(
  parameter int unsigned N = 5
) (
  input logic         clk_i,
  input logic         rst_ni,
  input logic [N-1:0] req_i,
  input logic         update_i
);
  logic [N-1:0] gnt;
  logic         init_q = 1'b1;

  prim_arb_rr #(
    .N (N)
  ) u_dut (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .req_i    (req_i),
    .update_i (update_i),
    .gnt_o    (gnt)
  );

  always @(posedge clk_i) init_q <= 1'b0;
  always @(*) if (init_q) assume (!rst_ni);

endmodule
