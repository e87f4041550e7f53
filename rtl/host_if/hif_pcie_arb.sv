// One DMA request channel shared by N requesters (the rings' descriptor
// reads and completion writes, the data movers): a round-robin choice. A
// request the port did not take at once is kept here and stays offered,
// unchanged, until the port takes it, even if its requester gave up on it
// meanwhile (a bus time-out): the port never sees a request withdrawn.
`include "prim_assert.svh"

module hif_pcie_arb #(
  parameter int unsigned N = 3,
  parameter int unsigned W = 64  // a request's bits (address, length, tag, data)
) (
  input  logic           clk_i,
  input  logic           rst_ni,
  input  logic [N-1:0]   valid_i,
  output logic [N-1:0]   ready_o,
  input  logic [N*W-1:0] req_i,     // requester i in bits [i*W +: W]
  output logic           valid_o,
  input  logic           ready_i,
  output logic [W-1:0]   req_o
);
  logic [N-1:0] gnt_rr, hold_q, hold_d, gnt;
  logic [W-1:0] req_q, req_sel;
  logic         live_q, live_d;  // the held request's requester still waits

  prim_arb_rr #(.N(N)) u_rr (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .req_i    (valid_i),
    .update_i (valid_o && hold_q == '0),  // the turn moves on at the offer
    .gnt_o    (gnt_rr)
  );

  assign gnt = (hold_q != '0) ? hold_q : gnt_rr;

  always_comb begin
    req_sel = '0;
    for (int unsigned i = 0; i < N; i++) begin
      if (gnt[i]) req_sel = req_i[i*W +: W];
    end
  end

  assign valid_o = hold_q != '0 || (gnt_rr & valid_i) != '0;
  assign req_o   = (hold_q != '0) ? req_q : req_sel;
  // A requester that gave up on its held request is not told it was taken.
  assign ready_o = ((hold_q != '0 && !live_d) ? '0 : gnt) & {N{ready_i}};
  assign hold_d  = (valid_o && !ready_i) ? gnt : '0;
  assign live_d  = (hold_q != '0) ? live_q && (hold_q & valid_i) != '0 : 1'b1;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hold_q <= '0;
      req_q  <= '0;
      live_q <= 1'b0;
    end else begin
      hold_q <= hold_d;
      req_q  <= req_o;
      live_q <= live_d;
    end
  end

  // ---- assertions --------------------------------------------------------
  // One requester at a time is told its request was taken.
  `ASSERT_ONEHOT0(GntOneHot, gnt)
  // What the port was offered stays offered, unchanged, until it is taken.
  `ASSERT_NEXT(ReqHeld, valid_o && !ready_i, valid_o && $stable(req_o))
  // A requester still waiting offers what it offered when it was held.
  `ASSERT(LiveSame, hold_q == '0 || !live_d || req_sel == req_q)
endmodule
