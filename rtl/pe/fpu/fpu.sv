// Single-precision FPU of a PE: every RV32F operation except loads/stores,
// bit-exact with RISC-V semantics (subnormals, five rounding modes, fflags,
// canonical NaN). Valid/ready in and out; results in issue order, except
// that operations issued while a div/sqrt iterates may pass it.
//
//   stage 0: unpack, special cases, 24x24 product, addend alignment,
//            non-arithmetic ops, float-to-int; starts div/sqrt
//   stage 1: FMA add + normalize, shared rounder  -> output register
//            (RoundStage = 1 puts a register before the rounder)
//
// Add, sub, mul and the fused ops are fully pipelined: a result two cycles
// (three with RoundStage) after acceptance, one operation per cycle. fdiv/fsqrt run in the
// iterative unit. A second div/sqrt waits until the first's result has
// entered stage 1, but every other operation is taken while it iterates:
// the PE's vector engine shares this FPU with the core (wse_pe_fpu) and
// must never be held up by the core's division. The division's result
// enters stage 1 in the first cycle that takes no other operation
// (div_wait_o tells a user that keeps the FPU busy to leave one); its
// issuer waits for it, so a user that issues nothing meanwhile (the core)
// still sees its own results in order. The core resolves the DYN rounding
// mode before issue.
module fpu #(
  parameter int unsigned TagW            = 5,  // e.g. destination register
  parameter int unsigned DivIterPerCycle = 2,  // div/sqrt bits per cycle
  parameter bit          RoundStage      = 1'b0   // register before rounding
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               in_valid_i,
  output logic               in_ready_o,
  input  fpu_pkg::op_e       in_op_i,
  input  logic [2:0]         in_rm_i,
  input  logic [31:0]        in_a_i,    // rs1 (integer source for fcvt.s.w[u], fmv.w.x)
  input  logic [31:0]        in_b_i,    // rs2
  input  logic [31:0]        in_c_i,    // rs3
  input  logic [TagW-1:0]    in_tag_i,
  output logic               out_valid_o,
  input  logic               out_ready_i,
  output logic [31:0]        out_result_o,  // float bits or integer result
  output logic [4:0]         out_flags_o,   // NV DZ OF UF NX, to OR into fflags
  output logic [TagW-1:0]    out_tag_o,
  output logic               div_wait_o     // a div/sqrt result waits for stage 1
);
  localparam int unsigned ExpW = fpu_pkg::ExpW;
  localparam int unsigned RndW = fpu_pkg::RndW;

  // What stage 1 does with its contents.
  typedef enum logic [1:0] { KindFma, KindRnd, KindBypass } kind_e;

  // ---------------------------------------------------------------- stage 0
  logic        op_fma, op_ds, op_i2f, op_f2i, op_add, op_sub, op_mul, neg_p, neg_c;
  logic [31:0] x_b, x_c;

  always_comb begin
    op_add = (in_op_i == fpu_pkg::OpAdd);
    op_sub = (in_op_i == fpu_pkg::OpSub);
    op_mul = (in_op_i == fpu_pkg::OpMul);
    op_fma = op_add || op_sub || op_mul ||
             (in_op_i == fpu_pkg::OpMadd)  || (in_op_i == fpu_pkg::OpMsub) ||
             (in_op_i == fpu_pkg::OpNmsub) || (in_op_i == fpu_pkg::OpNmadd);
    op_ds  = (in_op_i == fpu_pkg::OpDiv) || (in_op_i == fpu_pkg::OpSqrt);
    op_i2f = (in_op_i == fpu_pkg::OpCvtSW) || (in_op_i == fpu_pkg::OpCvtSWu);
    op_f2i = (in_op_i == fpu_pkg::OpCvtWS) || (in_op_i == fpu_pkg::OpCvtWuS);
    neg_p  = (in_op_i == fpu_pkg::OpNmsub) || (in_op_i == fpu_pkg::OpNmadd);
    neg_c  = (in_op_i == fpu_pkg::OpMsub)  || (in_op_i == fpu_pkg::OpNmadd) || op_sub;
    // add/sub: a * 1.0 + (+-b); mul: a * b + 0 with the product's sign
    x_b = (op_add || op_sub) ? 32'h3f80_0000 : in_b_i;
    if (op_add || op_sub) begin
      x_c = in_b_i;
    end else if (op_mul) begin
      x_c = {in_a_i[31] ^ in_b_i[31], 31'd0};
    end else begin
      x_c = in_c_i;
    end
  end

  logic                   ua_sign, ub_sign, uc_sign;
  logic signed [ExpW-1:0] ua_exp, ub_exp, uc_exp;
  logic [23:0]            ua_mant, ub_mant, uc_mant;
  logic                   ua_zero, ub_zero, uc_zero;
  logic                   ua_sub;
  /* verilator lint_off UNUSEDSIGNAL */
  logic                   ub_sub, uc_sub;  // only a's class is needed (fclass)
  /* verilator lint_on UNUSEDSIGNAL */
  logic                   ua_inf, ub_inf, uc_inf;
  logic                   ua_nan, ub_nan, uc_nan;
  logic                   ua_snan, ub_snan, uc_snan;

  fpu_unpack u_unpack_a (
    .x_i (in_a_i), .sign_o (ua_sign), .exp_o (ua_exp), .mant_o (ua_mant),
    .zero_o (ua_zero), .sub_o (ua_sub), .inf_o (ua_inf), .nan_o (ua_nan),
    .snan_o (ua_snan)
  );
  fpu_unpack u_unpack_b (
    .x_i (x_b), .sign_o (ub_sign), .exp_o (ub_exp), .mant_o (ub_mant),
    .zero_o (ub_zero), .sub_o (ub_sub), .inf_o (ub_inf), .nan_o (ub_nan),
    .snan_o (ub_snan)
  );
  fpu_unpack u_unpack_c (
    .x_i (x_c), .sign_o (uc_sign), .exp_o (uc_exp), .mant_o (uc_mant),
    .zero_o (uc_zero), .sub_o (uc_sub), .inf_o (uc_inf), .nan_o (uc_nan),
    .snan_o (uc_snan)
  );

  logic                   p_sign, c_sign;
  logic [47:0]            pre_prod;
  logic [76:0]            pre_addend;
  logic signed [ExpW-1:0] pre_base;
  logic                   pre_special;
  logic [31:0]            pre_special_res;
  logic [4:0]             pre_special_flags;
  logic                   pre_clamped;

  assign p_sign = ua_sign ^ ub_sign ^ neg_p;
  assign c_sign = uc_sign ^ neg_c;

  fpu_fma_pre u_fma_pre (
    .a_sign_i (p_sign), .a_exp_i (ua_exp), .a_mant_i (ua_mant),
    .a_zero_i (ua_zero), .a_inf_i (ua_inf), .a_nan_i (ua_nan), .a_snan_i (ua_snan),
    .b_exp_i (ub_exp), .b_mant_i (ub_mant),
    .b_zero_i (ub_zero), .b_inf_i (ub_inf), .b_nan_i (ub_nan), .b_snan_i (ub_snan),
    .c_sign_i (c_sign), .c_exp_i (uc_exp), .c_mant_i (uc_mant),
    .c_zero_i (uc_zero), .c_inf_i (uc_inf), .c_nan_i (uc_nan), .c_snan_i (uc_snan),
    .prod_o (pre_prod), .addend_o (pre_addend), .base_exp_o (pre_base),
    .special_o (pre_special), .special_res_o (pre_special_res),
    .special_flags_o (pre_special_flags), .clamped_o (pre_clamped)
  );

  logic [31:0] misc_res, f2i_res;
  logic [4:0]  misc_flags, f2i_flags;

  fpu_misc u_misc (
    .op_i (in_op_i), .a_i (in_a_i), .b_i (in_b_i),
    .a_zero_i (ua_zero), .a_sub_i (ua_sub), .a_inf_i (ua_inf), .a_nan_i (ua_nan),
    .a_snan_i (ua_snan), .b_zero_i (ub_zero), .b_nan_i (ub_nan), .b_snan_i (ub_snan),
    .result_o (misc_res), .flags_o (misc_flags)
  );

  logic                   i2f_sign, i2f_sticky, i2f_zero;
  logic signed [ExpW-1:0] i2f_exp;
  logic [RndW-1:0]        i2f_mant;

  fpu_f2i u_f2i (
    .unsigned_i (in_op_i == fpu_pkg::OpCvtWuS), .rm_i (in_rm_i),
    .sign_i (ua_sign), .exp_i (ua_exp), .mant_i (ua_mant), .zero_i (ua_zero),
    .inf_i (ua_inf), .nan_i (ua_nan),
    .result_o (f2i_res), .flags_o (f2i_flags)
  );

  fpu_i2f u_i2f (
    .int_i (in_a_i), .unsigned_i (in_op_i == fpu_pkg::OpCvtSWu),
    .sign_o (i2f_sign), .exp_o (i2f_exp), .mant_o (i2f_mant),
    .sticky_o (i2f_sticky), .zero_o (i2f_zero)
  );

  // ------------------------------------------------------ handshake control
  logic adv, accept, ds_busy, ds_done, ds_take;

  // in_ready_o looks at in_op_i: only a div/sqrt waits for the iterative
  // unit. The unit's result takes stage 1 when nothing else enters it.
  assign adv        = !out_valid_o || out_ready_i;
  assign in_ready_o = adv && !(op_ds && ds_busy);
  assign accept     = in_valid_i && in_ready_o;
  assign ds_take    = ds_done && adv && !accept;
  assign div_wait_o = ds_done;

  logic                   ds_special, ds_sign, ds_sticky;
  logic [31:0]            ds_special_res;
  logic [4:0]             ds_special_flags;
  logic signed [ExpW-1:0] ds_exp;
  logic [RndW-1:0]        ds_mant;

  fpu_divsqrt #(.IterPerCycle(DivIterPerCycle)) u_divsqrt (
    .clk_i, .rst_ni,
    .start_i (accept && op_ds), .sqrt_i (in_op_i == fpu_pkg::OpSqrt),
    .a_sign_i (ua_sign), .a_exp_i (ua_exp), .a_mant_i (ua_mant), .a_zero_i (ua_zero),
    .a_inf_i (ua_inf), .a_nan_i (ua_nan), .a_snan_i (ua_snan),
    .b_sign_i (ub_sign), .b_exp_i (ub_exp), .b_mant_i (ub_mant), .b_zero_i (ub_zero),
    .b_inf_i (ub_inf), .b_nan_i (ub_nan), .b_snan_i (ub_snan),
    .busy_o (ds_busy), .done_o (ds_done), .take_i (ds_take),
    .special_o (ds_special), .special_res_o (ds_special_res),
    .special_flags_o (ds_special_flags),
    .sign_o (ds_sign), .exp_o (ds_exp), .mant_o (ds_mant), .sticky_o (ds_sticky)
  );

  // ---------------------------------------------------- stage 1 registers
  logic                   s1_valid_q, s1_valid_d;
  kind_e                  s1_kind_q, s1_kind_d;
  logic [2:0]             s1_rm_q, s1_rm_d;
  logic [TagW-1:0]        s1_tag_q, s1_tag_d;
  logic [47:0]            s1_prod_q, s1_prod_d;
  logic [76:0]            s1_addend_q, s1_addend_d;
  logic signed [ExpW-1:0] s1_base_q, s1_base_d;
  logic                   s1_psign_q, s1_psign_d, s1_csign_q, s1_csign_d;
  logic                   s1_rsign_q, s1_rsign_d, s1_rsticky_q, s1_rsticky_d;
  logic                   s1_rzero_q, s1_rzero_d;
  logic signed [ExpW-1:0] s1_rexp_q, s1_rexp_d;
  logic [RndW-1:0]        s1_rmant_q, s1_rmant_d;
  logic [31:0]            s1_res_q, s1_res_d;
  logic [4:0]             s1_flags_q, s1_flags_d;
  logic [2:0]             ds_rm_q, ds_rm_d;
  logic [TagW-1:0]        ds_tag_q, ds_tag_d;

  always_comb begin
    s1_valid_d   = s1_valid_q;
    s1_kind_d    = s1_kind_q;
    s1_rm_d      = s1_rm_q;
    s1_tag_d     = s1_tag_q;
    s1_prod_d    = s1_prod_q;
    s1_addend_d  = s1_addend_q;
    s1_base_d    = s1_base_q;
    s1_psign_d   = s1_psign_q;
    s1_csign_d   = s1_csign_q;
    s1_rsign_d   = s1_rsign_q;
    s1_rexp_d    = s1_rexp_q;
    s1_rmant_d   = s1_rmant_q;
    s1_rsticky_d = s1_rsticky_q;
    s1_rzero_d   = s1_rzero_q;
    s1_res_d     = s1_res_q;
    s1_flags_d   = s1_flags_q;
    ds_rm_d      = ds_rm_q;
    ds_tag_d     = ds_tag_q;

    if (accept && op_ds) begin
      ds_rm_d  = in_rm_i;
      ds_tag_d = in_tag_i;
    end
    if (adv) begin
      s1_valid_d = (accept && !op_ds) || ds_take;
      if (ds_take) begin
        s1_rm_d      = ds_rm_q;
        s1_tag_d     = ds_tag_q;
        s1_kind_d    = ds_special ? KindBypass : KindRnd;
        s1_res_d     = ds_special_res;
        s1_flags_d   = ds_special_flags;
        s1_rsign_d   = ds_sign;
        s1_rexp_d    = ds_exp;
        s1_rmant_d   = ds_mant;
        s1_rsticky_d = ds_sticky;
        s1_rzero_d   = 1'b0;
      end else if (accept) begin
        s1_rm_d      = in_rm_i;
        s1_tag_d     = in_tag_i;
        s1_prod_d    = pre_prod;
        s1_addend_d  = pre_addend;
        s1_base_d    = pre_base;
        s1_psign_d   = p_sign;
        s1_csign_d   = c_sign;
        s1_rsign_d   = i2f_sign;
        s1_rexp_d    = i2f_exp;
        s1_rmant_d   = i2f_mant;
        s1_rsticky_d = i2f_sticky;
        s1_rzero_d   = i2f_zero;
        if (op_fma) begin
          s1_kind_d  = pre_special ? KindBypass : KindFma;
          s1_res_d   = pre_special_res;
          s1_flags_d = pre_special_flags;
        end else if (op_i2f) begin
          s1_kind_d  = KindRnd;
        end else begin
          s1_kind_d  = KindBypass;
          s1_res_d   = op_f2i ? f2i_res : misc_res;
          s1_flags_d = op_f2i ? f2i_flags : misc_flags;
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_valid_q   <= 1'b0;
      s1_kind_q    <= KindBypass;
      s1_rm_q      <= '0;
      s1_tag_q     <= '0;
      s1_prod_q    <= '0;
      s1_addend_q  <= '0;
      s1_base_q    <= '0;
      s1_psign_q   <= 1'b0;
      s1_csign_q   <= 1'b0;
      s1_rsign_q   <= 1'b0;
      s1_rexp_q    <= '0;
      s1_rmant_q   <= '0;
      s1_rsticky_q <= 1'b0;
      s1_rzero_q   <= 1'b1;
      s1_res_q     <= '0;
      s1_flags_q   <= '0;
      ds_rm_q      <= '0;
      ds_tag_q     <= '0;
    end else begin
      s1_valid_q   <= s1_valid_d;
      s1_kind_q    <= s1_kind_d;
      s1_rm_q      <= s1_rm_d;
      s1_tag_q     <= s1_tag_d;
      s1_prod_q    <= s1_prod_d;
      s1_addend_q  <= s1_addend_d;
      s1_base_q    <= s1_base_d;
      s1_psign_q   <= s1_psign_d;
      s1_csign_q   <= s1_csign_d;
      s1_rsign_q   <= s1_rsign_d;
      s1_rexp_q    <= s1_rexp_d;
      s1_rmant_q   <= s1_rmant_d;
      s1_rsticky_q <= s1_rsticky_d;
      s1_rzero_q   <= s1_rzero_d;
      s1_res_q     <= s1_res_d;
      s1_flags_q   <= s1_flags_d;
      ds_rm_q      <= ds_rm_d;
      ds_tag_q     <= ds_tag_d;
    end
  end

  // ---------------------------------------------------------------- stage 1
  logic                   fa_sign, fa_sticky, fa_zero;
  logic signed [ExpW-1:0] fa_exp;
  logic [RndW-1:0]        fa_mant;

  fpu_fma_add u_fma_add (
    .prod_i (s1_prod_q), .addend_i (s1_addend_q), .base_exp_i (s1_base_q),
    .p_sign_i (s1_psign_q), .c_sign_i (s1_csign_q), .rm_i (s1_rm_q),
    .sign_o (fa_sign), .exp_o (fa_exp), .mant_o (fa_mant),
    .sticky_o (fa_sticky), .zero_o (fa_zero)
  );

  logic                   rn_sign, rn_sticky, rn_zero;
  logic signed [ExpW-1:0] rn_exp;
  logic [RndW-1:0]        rn_mant;
  logic [31:0]            rn_res;
  logic [4:0]             rn_flags;

  always_comb begin
    if (s1_kind_q == KindFma) begin
      rn_sign   = fa_sign;
      rn_exp    = fa_exp;
      rn_mant   = fa_mant;
      rn_sticky = fa_sticky;
      rn_zero   = fa_zero;
    end else begin
      rn_sign   = s1_rsign_q;
      rn_exp    = s1_rexp_q;
      rn_mant   = s1_rmant_q;
      rn_sticky = s1_rsticky_q;
      rn_zero   = s1_rzero_q;
    end
  end

  // Optional register between normalization and rounding (RoundStage):
  // one more cycle of latency, same throughput, a shorter critical path.
  logic                   rr_valid, rr_bypass, rr_sign, rr_sticky, rr_zero;
  logic [2:0]             rr_rm;
  logic [TagW-1:0]        rr_tag;
  logic [31:0]            rr_res;
  logic [4:0]             rr_flags;
  logic signed [ExpW-1:0] rr_exp;
  logic [RndW-1:0]        rr_mant;

  if (RoundStage) begin : g_round_stage
    logic                   s2_valid_q, s2_bypass_q, s2_sign_q, s2_sticky_q, s2_zero_q;
    logic                   s2_valid_d, s2_bypass_d, s2_sign_d, s2_sticky_d, s2_zero_d;
    logic [2:0]             s2_rm_q, s2_rm_d;
    logic [TagW-1:0]        s2_tag_q, s2_tag_d;
    logic [31:0]            s2_res_q, s2_res_d;
    logic [4:0]             s2_flags_q, s2_flags_d;
    logic signed [ExpW-1:0] s2_exp_q, s2_exp_d;
    logic [RndW-1:0]        s2_mant_q, s2_mant_d;

    always_comb begin
      s2_valid_d  = s2_valid_q;
      s2_bypass_d = s2_bypass_q;
      s2_sign_d   = s2_sign_q;
      s2_sticky_d = s2_sticky_q;
      s2_zero_d   = s2_zero_q;
      s2_rm_d     = s2_rm_q;
      s2_tag_d    = s2_tag_q;
      s2_res_d    = s2_res_q;
      s2_flags_d  = s2_flags_q;
      s2_exp_d    = s2_exp_q;
      s2_mant_d   = s2_mant_q;
      if (adv) begin
        s2_valid_d  = s1_valid_q;
        s2_bypass_d = (s1_kind_q == KindBypass);
        s2_sign_d   = rn_sign;
        s2_sticky_d = rn_sticky;
        s2_zero_d   = rn_zero;
        s2_rm_d     = s1_rm_q;
        s2_tag_d    = s1_tag_q;
        s2_res_d    = s1_res_q;
        s2_flags_d  = s1_flags_q;
        s2_exp_d    = rn_exp;
        s2_mant_d   = rn_mant;
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        s2_valid_q  <= 1'b0;
        s2_bypass_q <= 1'b1;
        s2_sign_q   <= 1'b0;
        s2_sticky_q <= 1'b0;
        s2_zero_q   <= 1'b1;
        s2_rm_q     <= '0;
        s2_tag_q    <= '0;
        s2_res_q    <= '0;
        s2_flags_q  <= '0;
        s2_exp_q    <= '0;
        s2_mant_q   <= '0;
      end else begin
        s2_valid_q  <= s2_valid_d;
        s2_bypass_q <= s2_bypass_d;
        s2_sign_q   <= s2_sign_d;
        s2_sticky_q <= s2_sticky_d;
        s2_zero_q   <= s2_zero_d;
        s2_rm_q     <= s2_rm_d;
        s2_tag_q    <= s2_tag_d;
        s2_res_q    <= s2_res_d;
        s2_flags_q  <= s2_flags_d;
        s2_exp_q    <= s2_exp_d;
        s2_mant_q   <= s2_mant_d;
      end
    end

    assign rr_valid  = s2_valid_q;
    assign rr_bypass = s2_bypass_q;
    assign rr_sign   = s2_sign_q;
    assign rr_sticky = s2_sticky_q;
    assign rr_zero   = s2_zero_q;
    assign rr_rm     = s2_rm_q;
    assign rr_tag    = s2_tag_q;
    assign rr_res    = s2_res_q;
    assign rr_flags  = s2_flags_q;
    assign rr_exp    = s2_exp_q;
    assign rr_mant   = s2_mant_q;
  end else begin : g_no_round_stage
    assign rr_valid  = s1_valid_q;
    assign rr_bypass = (s1_kind_q == KindBypass);
    assign rr_sign   = rn_sign;
    assign rr_sticky = rn_sticky;
    assign rr_zero   = rn_zero;
    assign rr_rm     = s1_rm_q;
    assign rr_tag    = s1_tag_q;
    assign rr_res    = s1_res_q;
    assign rr_flags  = s1_flags_q;
    assign rr_exp    = rn_exp;
    assign rr_mant   = rn_mant;
  end

  fpu_round u_round (
    .sign_i (rr_sign), .exp_i (rr_exp), .mant_i (rr_mant), .sticky_i (rr_sticky),
    .zero_i (rr_zero), .rm_i (rr_rm), .result_o (rn_res), .flags_o (rn_flags)
  );

  // ------------------------------------------------------- output register
  logic            out_valid_q, out_valid_d;
  logic [31:0]     out_res_q, out_res_d;
  logic [4:0]      out_flags_q, out_flags_d;
  logic [TagW-1:0] out_tag_q, out_tag_d;

  always_comb begin
    out_valid_d = out_valid_q;
    out_res_d   = out_res_q;
    out_flags_d = out_flags_q;
    out_tag_d   = out_tag_q;
    if (adv) begin
      out_valid_d = rr_valid;
      out_tag_d   = rr_tag;
      if (rr_bypass) begin
        out_res_d   = rr_res;
        out_flags_d = rr_flags;
      end else begin
        out_res_d   = rn_res;
        out_flags_d = rn_flags;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_valid_q <= 1'b0;
      out_res_q   <= '0;
      out_flags_q <= '0;
      out_tag_q   <= '0;
    end else begin
      out_valid_q <= out_valid_d;
      out_res_q   <= out_res_d;
      out_flags_q <= out_flags_d;
      out_tag_q   <= out_tag_d;
    end
  end

  assign out_valid_o  = out_valid_q;
  assign out_result_o = out_res_q;
  assign out_flags_o  = out_flags_q;
  assign out_tag_o    = out_tag_q;


  `include "prim_assert.svh"
  `ASSERT_KNOWN(InReadyKnown_A, in_ready_o)
  `ASSERT_KNOWN(OutValidKnown_A, out_valid_o)
  `ASSERT_KNOWN(OutResultKnown_A, out_result_o)
  `ASSERT_NEXT(OutHeld_A, out_valid_o && !out_ready_i,
               out_valid_o && $stable(out_result_o) && $stable(out_flags_o))
  // one division at a time; the others pass it (DivSqrtPassed_C)
  `ASSERT(OneDivSqrt_A, !(ds_busy && accept && op_ds))
  `ASSERT(DivSqrtTakesFreeCycle_A, !(ds_take && accept))
  `ASSERT(RoundInNormalized_A,
          !(s1_valid_q && s1_kind_q != KindBypass && !rn_zero) || rn_mant[RndW-1])
  `ASSERT(RounderInNormalized_A, !(rr_valid && !rr_bypass && !rr_zero) || rr_mant[RndW-1])
  `ASSERT(FlagsOnlyOnValid_A, !(out_valid_o && out_flags_o[fpu_pkg::FlagDz] &&
                                out_flags_o[fpu_pkg::FlagNv]))
  `COVER(DivSqrtBlocksIssue_C, ds_busy && in_valid_i && op_ds)
  `COVER(DivSqrtPassed_C, ds_busy && accept)
  `COVER(DivSqrtWaitsForStage1_C, ds_done && adv && accept)
  `COVER(OutBackpressure_C, out_valid_o && !out_ready_i)
  `COVER(BackToBackFma_C, accept && op_fma && s1_valid_q && s1_kind_q == KindFma)
  // datapath corners: alignment clamp and jamming, deep cancellation,
  // subnormal results, results entirely below the subnormal range
  logic s1_fma, rr_rnd;
  assign s1_fma = s1_valid_q && (s1_kind_q == KindFma);
  assign rr_rnd = rr_valid && !rr_bypass && !rr_zero;
  `COVER(FmaAddendClamped_C, accept && op_fma && !pre_special && pre_clamped)
  `COVER(FmaAddendJammed_C, s1_fma && s1_addend_q[0])
  `COVER(FmaJammedSubtract_C, s1_fma && s1_addend_q[0] && (s1_psign_q != s1_csign_q))
  // result more than 24 binades below the product (>= 2^(base+47))
  `COVER(FmaCancel24_C, s1_fma && (s1_psign_q != s1_csign_q) && !fa_zero &&
         (s1_prod_q != '0) && ((fa_exp + ExpW'(24)) < (s1_base_q + ExpW'(47))))
  `COVER(FmaExactZero_C, s1_fma && fa_zero)
  `COVER(RoundSubnormal_C, rr_rnd && (rr_exp < -ExpW'(126)) && (rr_exp >= -ExpW'(149)))
  `COVER(RoundBelowSubnormal_C, rr_rnd && (rr_exp < -ExpW'(150)))
  `COVER(RoundCarryToNormal_C, rr_rnd && (rr_exp == -ExpW'(127)) &&
         (rn_res[30:23] == 8'd1))
  `COVER(Overflow_C, out_valid_o && out_flags_o[fpu_pkg::FlagOf])
  `COVER(Underflow_C, out_valid_o && out_flags_o[fpu_pkg::FlagUf])
  `COVER(DivByZero_C, out_valid_o && out_flags_o[fpu_pkg::FlagDz])
endmodule
