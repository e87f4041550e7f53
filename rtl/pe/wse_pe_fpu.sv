// The PE's one FPU, shared by the vector engine (wse_df_vec) and the F
// extension (fpu_cop). Both used to have their own; the engine's operations
// (add, mul, fused multiply-add, max, sign injection) are a subset of the
// core's, and one FPU behind this multiplexer is about 2,500 ECP5 LUT4 less.
//
// The engine comes first. It issues at most one element a cycle and has no
// way to wait for the FPU (its FpuAlwaysReady assertion), so its request is
// always taken: the FPU takes other operations while a division iterates
// (fpu.sv), and nothing here stalls it. The core issues in the cycles the
// engine leaves free. An engine streaming FMACS leaves none, so when the
// core waits to issue, or its division's result waits to enter the FPU's
// stage 1, eng_hold_o keeps the engine from starting an element this
// cycle: its X stage is then empty next cycle, and the core's operation (or
// the division's result) goes in. The core has one operation in flight at
// most, so it costs the engine one cycle per core operation, two for a
// division, and the core waits one cycle at most for the engine.
//
// Results go back by the tag's user bit, each user's in its own issue order.
// The engine's results come two cycles after issue, as from its own FPU.
`include "prim_assert.svh"

module wse_pe_fpu #(
  parameter int unsigned DivIterPerCycle = 2
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  input  logic          cop_flush_i,   // the core is held in reset
  // vector engine: taken in the cycle it asks
  input  logic          eng_valid_i,
  input  fpu_pkg::req_t eng_req_i,
  output logic          eng_ready_o,   // high whenever eng_valid_i is (checked)
  output logic          eng_hold_o,    // start no element this cycle
  output logic          eng_rvalid_o,
  output fpu_pkg::rsp_t eng_rsp_o,
  // F extension: valid/ready, one tag bit (integer destination)
  input  logic          cop_valid_i,
  input  fpu_pkg::req_t cop_req_i,
  input  logic          cop_tag_i,
  output logic          cop_ready_o,
  output logic          cop_rvalid_o,
  output fpu_pkg::rsp_t cop_rsp_o,
  output logic          cop_tag_o
);
  // tag: {engine, the core's tag}
  logic          in_valid, in_ready, out_valid, div_wait;
  fpu_pkg::req_t req;
  fpu_pkg::rsp_t rsp;
  logic [1:0]    in_tag, out_tag;

  assign in_valid = eng_valid_i || cop_valid_i;
  assign req      = eng_valid_i ? eng_req_i : cop_req_i;
  assign in_tag   = eng_valid_i ? 2'b10 : {1'b0, cop_tag_i};

  fpu #(
    .TagW            (2),
    .DivIterPerCycle (DivIterPerCycle)
  ) u_fpu (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .in_valid_i   (in_valid),
    .in_ready_o   (in_ready),
    .in_op_i      (req.op),
    .in_rm_i      (req.rm),
    .in_a_i       (req.a),
    .in_b_i       (req.b),
    .in_c_i       (req.c),
    .in_tag_i     (in_tag),
    .out_valid_o  (out_valid),
    .out_ready_i  (1'b1),       // both users take a result when it comes
    .out_result_o (rsp.result),
    .out_flags_o  (rsp.flags),
    .out_tag_o    (out_tag),
    .div_wait_o   (div_wait)
  );

  // The core can be reset on its own while its operation is in the FPU,
  // which the engine's work keeps running through. That result must not
  // reach the core after it restarts: it is dropped (cop_stale_q), and the
  // core's next operation waits for it, so that it still has one in flight.
  logic cop_busy_q, cop_busy_d, cop_stale_q, cop_stale_d, cop_back;
  assign cop_back    = out_valid && !out_tag[1];
  assign cop_busy_d  = (cop_busy_q || (cop_valid_i && cop_ready_o)) && !cop_back;
  assign cop_stale_d = (cop_stale_q || (cop_flush_i && cop_busy_q)) && !cop_back;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cop_busy_q  <= 1'b0;
      cop_stale_q <= 1'b0;
    end else begin
      cop_busy_q  <= cop_busy_d;
      cop_stale_q <= cop_stale_d;
    end
  end

  assign eng_ready_o  = in_ready;
  assign eng_hold_o   = eng_valid_i && ((cop_valid_i && !cop_stale_q) || div_wait);
  assign cop_ready_o  = in_ready && !eng_valid_i && !cop_stale_q;
  assign eng_rvalid_o = out_valid && out_tag[1];
  assign cop_rvalid_o = cop_back && !cop_stale_q;
  assign eng_rsp_o    = rsp;
  assign cop_rsp_o    = rsp;
  assign cop_tag_o    = out_tag[0];

  // The engine issues only operations the FPU pipelines (never a division),
  // and those are always taken.
  `ASSERT(EngineNeverDivides_A, !eng_valid_i ||
          !(eng_req_i.op inside {fpu_pkg::OpDiv, fpu_pkg::OpSqrt}))
  `ASSERT(EngineAlwaysTaken_A, !eng_valid_i || in_ready)
  // the core has one operation in flight at most
  `ASSERT(CoreOneInFlight_A, !(cop_busy_q && cop_valid_i && cop_ready_o))
  // what the engine's hold is for: the core's operation, or its division's
  // result, goes in the next cycle
  `ASSERT_NEXT(HoldFreesFpu_A, eng_hold_o, !eng_valid_i)
  `ASSERT_NEXT(CoreIssuesAfterHold_A, eng_hold_o && !div_wait, !cop_valid_i || cop_ready_o)
  // nothing else enters, so the division's result does (fpu's ds_take)
  `ASSERT_NEXT(DivEntersAfterHold_A, eng_hold_o && div_wait, !div_wait || !in_valid)
  `COVER(CoreWaitsForEngine_C, cop_valid_i && eng_valid_i)
  `COVER(CoreResultDropped_C, cop_back && cop_stale_q)
endmodule
