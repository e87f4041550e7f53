// Formal harness of prim_credit_cnt: a sender that spends credits only when
// it has one, and a receiver that returns only credits that were spent.
module credit_fv #(
  parameter int unsigned Depth = 4
) (
  input logic clk_i,
  input logic rst_ni,
  input logic take_i,
  input logic give_i
);
  logic avail;
  logic [$clog2(Depth+1)-1:0] count;
  // Wavelets in flight or buffered at the receiver: Depth - credits.
  logic [$clog2(Depth+1)-1:0] owed_q;
  logic init_q = 1'b1;

  prim_credit_cnt #(
    .Depth (Depth)
  ) u_dut (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .take_i  (take_i),
    .give_i  (give_i),
    .avail_o (avail),
    .count_o (count)
  );

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) owed_q <= '0;
    else         owed_q <= owed_q + take_i - give_i;
  end

  always @(posedge clk_i) init_q <= 1'b0;
  always @(*) begin
    if (init_q) assume (!rst_ni);
    assume (!(take_i && !avail));
    assume (!(give_i && owed_q == 0));
  end
  always @(posedge clk_i) begin
    if (rst_ni) begin
      Conserved: assert (32'(count) + 32'(owed_q) == Depth);
      AvailIff: assert (avail == (count != 0));
    end
  end
endmodule
