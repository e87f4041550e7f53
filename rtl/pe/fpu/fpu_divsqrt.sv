// Iterative division and square root: restoring digit recurrences producing
// IterPerCycle quotient/root bits per clock, then a normalized significand
// with sticky (remainder non-zero) for the shared rounder. Special operands
// finish in the cycle after start. One operation at a time: busy_o is high
// from start until the result is taken.
module fpu_divsqrt #(
  parameter int unsigned IterPerCycle = 2
) (
  input  logic                            clk_i,
  input  logic                            rst_ni,
  input  logic                            start_i,
  input  logic                            sqrt_i,
  input  logic                            a_sign_i,
  input  logic signed [fpu_pkg::ExpW-1:0] a_exp_i,
  input  logic [23:0]                     a_mant_i,
  input  logic                            a_zero_i,
  input  logic                            a_inf_i,
  input  logic                            a_nan_i,
  input  logic                            a_snan_i,
  input  logic                            b_sign_i,
  input  logic signed [fpu_pkg::ExpW-1:0] b_exp_i,
  input  logic [23:0]                     b_mant_i,
  input  logic                            b_zero_i,
  input  logic                            b_inf_i,
  input  logic                            b_nan_i,
  input  logic                            b_snan_i,
  output logic                            busy_o,
  output logic                            done_o,     // result below is valid
  input  logic                            take_i,     // result consumed
  output logic                            special_o,
  output logic [31:0]                     special_res_o,
  output logic [4:0]                      special_flags_o,
  output logic                            sign_o,
  output logic signed [fpu_pkg::ExpW-1:0] exp_o,
  output logic [fpu_pkg::RndW-1:0]        mant_o,
  output logic                            sticky_o
);
  localparam int unsigned ExpW    = fpu_pkg::ExpW;
  localparam int unsigned RndW    = fpu_pkg::RndW;
  localparam int unsigned DivBits = 27;  // quotient bits: 1 integer + 26
  localparam int unsigned SqrBits = 26;  // root bits
  localparam int unsigned CntW    = 5;

  typedef enum logic [1:0] { StIdle, StRun, StDone } state_e;

  state_e                 state_q, state_d;
  logic [CntW-1:0]        cnt_q, cnt_d;        // iterations left
  logic                   sqrt_q, sqrt_d;
  logic                   sign_q, sign_d;
  logic signed [ExpW-1:0] exp_q, exp_d;
  logic [28:0]            rem_q, rem_d;        // partial remainder
  logic [26:0]            quo_q, quo_d;        // quotient / root bits so far
  logic [23:0]            dvs_q, dvs_d;        // divisor
  logic [51:0]            rad_q, rad_d;        // radicand bits not yet used
  logic                   spc_q, spc_d;
  logic [31:0]            spc_res_q, spc_res_d;
  logic [4:0]             spc_flags_q, spc_flags_d;

  logic                   s_sign;
  logic signed [ExpW-1:0] s_exp;
  logic [24:0]            s_mant;              // mant, doubled for odd exponents
  logic [28:0]            trial;

  always_comb begin
    state_d     = state_q;
    cnt_d       = cnt_q;
    sqrt_d      = sqrt_q;
    sign_d      = sign_q;
    exp_d       = exp_q;
    rem_d       = rem_q;
    quo_d       = quo_q;
    dvs_d       = dvs_q;
    rad_d       = rad_q;
    spc_d       = spc_q;
    spc_res_d   = spc_res_q;
    spc_flags_d = spc_flags_q;
    s_sign      = 1'b0;
    s_exp       = '0;
    s_mant      = '0;
    trial       = '0;

    unique case (state_q)
      StIdle: begin
        if (start_i) begin
          sqrt_d      = sqrt_i;
          quo_d       = '0;
          spc_d       = 1'b1;
          spc_res_d   = fpu_pkg::CanonNan;
          spc_flags_d = '0;
          state_d     = StDone;
          if (sqrt_i) begin
            sign_d = 1'b0;
            // exponent made even, significand doubled when it was odd
            s_mant = a_exp_i[0] ? {a_mant_i, 1'b0} : {1'b0, a_mant_i};
            s_exp  = a_exp_i[0] ? a_exp_i - ExpW'(1) : a_exp_i;
            exp_d  = s_exp >>> 1;
            rem_d  = '0;
            rad_d  = {s_mant, 27'd0};
            cnt_d  = CntW'(SqrBits);
            if (a_nan_i) begin
              spc_flags_d[fpu_pkg::FlagNv] = a_snan_i;
            end else if (a_zero_i) begin
              spc_res_d = {a_sign_i, 31'd0};
            end else if (a_sign_i) begin
              spc_flags_d[fpu_pkg::FlagNv] = 1'b1;
            end else if (a_inf_i) begin
              spc_res_d = 32'h7f80_0000;
            end else begin
              spc_d   = 1'b0;
              state_d = StRun;
            end
          end else begin
            s_sign = a_sign_i ^ b_sign_i;
            sign_d = s_sign;
            exp_d  = a_exp_i - b_exp_i;
            rem_d  = 29'(a_mant_i);
            dvs_d  = b_mant_i;
            cnt_d  = CntW'(DivBits);
            if (a_nan_i || b_nan_i) begin
              spc_flags_d[fpu_pkg::FlagNv] = a_snan_i || b_snan_i;
            end else if ((a_inf_i && b_inf_i) || (a_zero_i && b_zero_i)) begin
              spc_flags_d[fpu_pkg::FlagNv] = 1'b1;
            end else if (a_inf_i) begin
              spc_res_d = {s_sign, 31'h7f80_0000};
            end else if (b_zero_i) begin
              spc_res_d = {s_sign, 31'h7f80_0000};
              spc_flags_d[fpu_pkg::FlagDz] = 1'b1;
            end else if (b_inf_i || a_zero_i) begin
              spc_res_d = {s_sign, 31'd0};
            end else begin
              spc_d   = 1'b0;
              state_d = StRun;
            end
          end
        end
      end
      StRun: begin
        for (int unsigned i = 0; i < IterPerCycle; i++) begin
          if (cnt_d != '0) begin
            if (sqrt_q) begin
              // bring down two radicand bits; try root digit 1
              rem_d = {rem_d[26:0], rad_d[51:50]};
              rad_d = {rad_d[49:0], 2'b00};
              trial = {quo_d[26:0], 2'b01};
              if (rem_d >= trial) begin
                rem_d = rem_d - trial;
                quo_d = {quo_d[25:0], 1'b1};
              end else begin
                quo_d = {quo_d[25:0], 1'b0};
              end
            end else begin
              if (rem_d >= 29'(dvs_q)) begin
                rem_d = rem_d - 29'(dvs_q);
                quo_d = {quo_d[25:0], 1'b1};
              end else begin
                quo_d = {quo_d[25:0], 1'b0};
              end
              rem_d = {rem_d[27:0], 1'b0};
            end
            cnt_d = cnt_d - CntW'(1);
          end
        end
        if (cnt_d == '0) begin
          state_d = StDone;
        end
      end
      StDone: begin
        if (take_i) begin
          state_d = StIdle;
        end
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= StIdle;
      cnt_q       <= '0;
      sqrt_q      <= 1'b0;
      sign_q      <= 1'b0;
      exp_q       <= '0;
      rem_q       <= '0;
      quo_q       <= '0;
      dvs_q       <= '0;
      rad_q       <= '0;
      spc_q       <= 1'b0;
      spc_res_q   <= '0;
      spc_flags_q <= '0;
    end else begin
      state_q     <= state_d;
      cnt_q       <= cnt_d;
      sqrt_q      <= sqrt_d;
      sign_q      <= sign_d;
      exp_q       <= exp_d;
      rem_q       <= rem_d;
      quo_q       <= quo_d;
      dvs_q       <= dvs_d;
      rad_q       <= rad_d;
      spc_q       <= spc_d;
      spc_res_q   <= spc_res_d;
      spc_flags_q <= spc_flags_d;
    end
  end

  // Result in rounder form. Division: quotient in [2^25, 2^27), its top bit
  // decides the exponent. Square root: root in [2^25, 2^26).
  always_comb begin
    busy_o          = (state_q != StIdle);
    done_o          = (state_q == StDone);
    special_o       = spc_q;
    special_res_o   = spc_res_q;
    special_flags_o = spc_flags_q;
    sign_o          = sign_q;
    sticky_o        = (rem_q != '0);
    if (sqrt_q || !quo_q[26]) begin
      mant_o = quo_q[RndW-1:0];
      exp_o  = sqrt_q ? exp_q : exp_q - ExpW'(1);
    end else begin
      mant_o   = quo_q[26:1];
      sticky_o = quo_q[0] || (rem_q != '0);
      exp_o    = exp_q;
    end
  end

  `include "prim_assert.svh"
  `ASSERT(NoStartWhenBusy_A, !(start_i && busy_o))
  `ASSERT(TakeOnlyWhenDone_A, !(take_i && !done_o))
  `ASSERT(ResultNormalized_A, !done_o || spc_q || mant_o[RndW-1])
  `ASSERT_KNOWN(DoneKnown_A, done_o)
  `COVER(DivQuotientBelowOne_C, done_o && !spc_q && !sqrt_q && !quo_q[26])
  `COVER(DivQuotientAboveOne_C, done_o && !spc_q && !sqrt_q && quo_q[26])
  `COVER(DivExact_C, done_o && !spc_q && !sqrt_q && (rem_q == '0))
  `COVER(SqrtOddExponent_C, start_i && sqrt_i && !a_zero_i && !a_inf_i && !a_nan_i &&
         !a_sign_i && a_exp_i[0])
  `COVER(SqrtExact_C, done_o && !spc_q && sqrt_q && (rem_q == '0))
  `COVER(DivSqrtSpecial_C, done_o && spc_q)
endmodule
