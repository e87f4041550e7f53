// Two-flop synchronizer: brings a signal from another clock domain into
// clk_i. Only for single bits, or for multi-bit values that change in at
// most one bit between samples (gray-coded pointers), since the bits of a
// bus are not guaranteed to be caught in the same cycle.
module prim_flop_2sync #(
  parameter int unsigned     Width      = 1,
  parameter logic [Width-1:0] ResetValue = '0
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic [Width-1:0] d_i,   // from the other domain
  output logic [Width-1:0] q_o
);
  // The first stage may go metastable; the second gives it a full cycle
  // to resolve before anything in this domain looks at it.
  logic [Width-1:0] meta_q, sync_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      meta_q <= ResetValue;
      sync_q <= ResetValue;
    end else begin
      meta_q <= d_i;
      sync_q <= meta_q;
    end
  end

  assign q_o = sync_q;
endmodule
