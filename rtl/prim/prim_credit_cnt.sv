// Credit counter of one sender for one receiver buffer (a virtual channel,
// or a color at the RAMP). Starts at Depth credits; take_i spends one when a
// wavelet is sent, give_i returns one when the receiver frees a slot. Both
// may happen in the same cycle. avail_o depends on the register only.
`include "prim_assert.svh"

module prim_credit_cnt #(
  parameter int unsigned Depth = 4,
  // Derived; do not override.
  parameter int unsigned CntW  = $clog2(Depth + 1)
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            take_i,
  input  logic            give_i,
  output logic            avail_o,
  output logic [CntW-1:0] count_o
);
  localparam logic [CntW-1:0] MaxCnt = CntW'(Depth);

  logic [CntW-1:0] cnt_q, cnt_d;

  always_comb begin
    cnt_d = cnt_q;
    if (take_i && !give_i) cnt_d = cnt_q - 1'b1;
    if (give_i && !take_i) cnt_d = cnt_q + 1'b1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) cnt_q <= MaxCnt;
    else         cnt_q <= cnt_d;
  end

  assign avail_o = (cnt_q != '0);
  assign count_o = cnt_q;

  // Assertions
  `ASSERT(CreditNoTakeWhenZero, !(take_i && cnt_q == '0))
  `ASSERT(CreditNeverAboveDepth, cnt_q <= MaxCnt)
  `ASSERT(CreditNoGiveWhenFull, !(give_i && !take_i && cnt_q == MaxCnt))
  `COVER(CreditZero, cnt_q == '0)
endmodule
