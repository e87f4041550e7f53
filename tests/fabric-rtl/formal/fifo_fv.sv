// Formal harness of prim_fifo_sync: a user that obeys the flow control
// (no push when full, no pop when empty); the FIFO's own assertions are
// the properties.
module fifo_fv #(
  parameter int unsigned Depth = 4
) (
  input logic       clk_i,
  input logic       rst_ni,
  input logic       push_i,
  input logic [7:0] wdata_i,
  input logic       pop_i
);
  logic [7:0] rdata;
  logic       empty, full;
  logic [$clog2(Depth+1)-1:0] usage;
  logic       init_q = 1'b1;

  prim_fifo_sync #(
    .Width (8),
    .Depth (Depth)
  ) u_dut (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .push_i  (push_i),
    .wdata_i (wdata_i),
    .pop_i   (pop_i),
    .rdata_o (rdata),
    .empty_o (empty),
    .full_o  (full),
    .usage_o (usage)
  );

  always @(posedge clk_i) init_q <= 1'b0;
  always @(*) begin
    if (init_q) assume (!rst_ni);
    assume (!(push_i && full));
    assume (!(pop_i && empty));
  end
  always @(posedge clk_i) begin
    if (rst_ni) begin
      UsageFlags: assert ((usage == 0) == empty && (32'(usage) == Depth) == full);
    end
  end
endmodule
