// Round-robin arbiter with a one-hot grant. The grant is combinational from
// req_i and the priority register; update_i moves the priority past the
// current grant (the user raises it when the grant was used).
`include "prim_assert.svh"

module prim_arb_rr #(
  parameter int unsigned N = 4
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic [N-1:0] req_i,
  input  logic         update_i,
  output logic [N-1:0] gnt_o
);
  // mask_q has ones from the highest-priority position upwards; requests
  // there win, and when there are none the lowest request wins (wrap).
  logic [N-1:0] mask_q, mask_d;
  logic [N-1:0] req_hi, gnt_hi, gnt_lo, gnt;

  // Lowest set bit by a scan rather than x & (~x + 1): Yosys maps the
  // scan to fewer ECP5 LUTs (25 instead of 54 for four requesters).
  function automatic logic [N-1:0] lowest(logic [N-1:0] x);
    logic seen;
    seen = 1'b0;
    for (int i = 0; i < N; i++) begin
      lowest[i] = x[i] && !seen;
      seen      = seen || x[i];
    end
  endfunction

  always_comb begin
    req_hi = req_i & mask_q;
    gnt_hi = lowest(req_hi);
    gnt_lo = lowest(req_i);
    gnt    = (req_hi != '0) ? gnt_hi : gnt_lo;
  end

  // Separate block: update_i may depend on gnt_o through the user's logic.
  always_comb begin
    mask_d = mask_q;
    // Positions strictly above the grant get priority next.
    if (update_i && gnt != '0) mask_d = ~((gnt << 1) - 1'b1);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) mask_q <= '1;
    else         mask_q <= mask_d;
  end

  assign gnt_o = gnt;

  // Assertions
  `ASSERT_ONEHOT0(ArbGntOneHot, gnt_o)
  `ASSERT(ArbGntOnlyToReq, (gnt_o & ~req_i) == '0)
  `ASSERT(ArbWorkConserving, (req_i == '0) || (gnt_o != '0))
  // The priority mask is always a contiguous run of ones up to bit N-1.
  `ASSERT(ArbMaskShape, (mask_q + (mask_q & (~mask_q + 1'b1))) == '0)

`ifdef FORMAL
  // Fairness, for the proofs: while requester i keeps requesting, fewer
  // than N used grants go to others before i is granted. f_wait counts
  // them; the invariant (distance from the priority position to i, plus
  // the count, stays below N) makes the bound provable by induction.
  localparam int unsigned FW = $clog2(N + 1) + 1;
  logic [N*FW-1:0] f_wait_q;
  int unsigned     f_ptr;

  always @(*) begin
    f_ptr = 0;
    for (int k = N - 1; k >= 0; k--) if (mask_q[k]) f_ptr = k;
  end

  for (genvar i = 0; i < N; i++) begin : g_fair
    int unsigned f_dist;
    assign f_dist = (i >= f_ptr) ? i - f_ptr : i + N - f_ptr;
    always @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni)                          f_wait_q[i*FW +: FW] <= '0;
      else if (!req_i[i])                   f_wait_q[i*FW +: FW] <= '0;
      else if (update_i && gnt[i])          f_wait_q[i*FW +: FW] <= '0;
      else if (update_i && gnt != '0)       f_wait_q[i*FW +: FW] <= f_wait_q[i*FW +: FW] + 1'b1;
    end
    always @(posedge clk_i) begin
      if (rst_ni) begin
        assert (32'(f_wait_q[i*FW +: FW]) < N);
        assert (f_wait_q[i*FW +: FW] == '0 || f_dist + 32'(f_wait_q[i*FW +: FW]) <= N - 1);
      end
    end
  end
`endif
endmodule
