// Formal harness of prim_prio_enc: any requests. The encoder is
// combinational; the properties are what its users rely on: valid exactly
// when a bit is set, and then the index names a set bit with none below it.
module prio_fv #(
  parameter int unsigned N = 96,
  // Derived; do not override.
  parameter int unsigned IdxW = (N > 1) ? $clog2(N) : 1
) (
  input logic         clk_i,
  input logic [N-1:0] req_i
);
  logic            valid;
  logic [IdxW-1:0] idx;

  prim_prio_enc #(
    .N (N)
  ) u_dut (
    .req_i   (req_i),
    .valid_o (valid),
    .idx_o   (idx)
  );

  logic below;
  always @(*) begin
    below = 1'b0;
    for (int i = 0; i < N; i++) if (i < 32'(idx) && req_i[i]) below = 1'b1;
  end

  always @(posedge clk_i) begin
    assert (valid == (req_i != '0));
    if (valid) begin
      assert (32'(idx) < N);
      assert (req_i[idx]);
      assert (!below);
    end
  end
endmodule
