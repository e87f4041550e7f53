// Bound of one wait on the DMA bus: counts the cycles wait_i stays high
// (a request not taken, a completion not come) and raises expired_o after
// Timeout of them, so that a host that never answers ends in an error
// status instead of a hang. Any cycle without the wait starts it afresh.
`include "prim_assert.svh"

module hif_pcie_wdog #(
  parameter int unsigned Timeout = 1 << 20,  // cycles
  // Derived; do not override.
  parameter int unsigned CntW    = $clog2(Timeout + 1)
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic wait_i,
  output logic expired_o
);
  localparam logic [CntW-1:0] Limit = CntW'(Timeout);
  logic [CntW-1:0] cnt_q, cnt_d;

  always_comb begin
    cnt_d = '0;
    if (wait_i) cnt_d = (cnt_q == Limit) ? cnt_q : cnt_q + CntW'(1);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) cnt_q <= '0;
    else         cnt_q <= cnt_d;
  end

  assign expired_o = wait_i && cnt_q == Limit;

  // The count saturates at the limit: expired_o stays up while waiting.
  `ASSERT(CntInRange, cnt_q <= Limit)
endmodule
