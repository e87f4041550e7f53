// First FMA stage: special cases, the exact 24x24 product and alignment of
// the addend into a 77-bit window. add/sub run as a*1.0 + b and mul as
// a*b + 0 (the zero carrying the product's sign), so one datapath with a
// single rounding serves fadd, fsub, fmul and the four fused forms.
//
// Window (bit 76 = carry): the addend's significand starts at [75:52] and
// is shifted right by the exponent difference; bits falling to bit 0 or
// below are ORed into bit 0 (jamming). The product sits at [48:1]. When the
// addend is larger than the top position allows, it is clamped there: the
// product then lies wholly below the result's round bit, where only its
// being non-zero matters (docs/fpu.md derives both bounds).
module fpu_fma_pre (
  input  logic                            a_sign_i,  // product sign (negation applied)
  input  logic signed [fpu_pkg::ExpW-1:0] a_exp_i,
  input  logic [23:0]                     a_mant_i,
  input  logic                            a_zero_i,
  input  logic                            a_inf_i,
  input  logic                            a_nan_i,
  input  logic                            a_snan_i,
  input  logic signed [fpu_pkg::ExpW-1:0] b_exp_i,
  input  logic [23:0]                     b_mant_i,
  input  logic                            b_zero_i,
  input  logic                            b_inf_i,
  input  logic                            b_nan_i,
  input  logic                            b_snan_i,
  input  logic                            c_sign_i,  // addend sign (negation applied)
  input  logic signed [fpu_pkg::ExpW-1:0] c_exp_i,
  input  logic [23:0]                     c_mant_i,
  input  logic                            c_zero_i,
  input  logic                            c_inf_i,
  input  logic                            c_nan_i,
  input  logic                            c_snan_i,
  output logic [47:0]                     prod_o,
  output logic [76:0]                     addend_o,
  output logic signed [fpu_pkg::ExpW-1:0] base_exp_o,  // weight of window bit 0
  output logic                            special_o,   // result fixed: special_res_o
  output logic [31:0]                     special_res_o,
  output logic [4:0]                      special_flags_o,
  output logic                            clamped_o    // addend above the window top
);
  localparam int unsigned ExpW = fpu_pkg::ExpW;

  logic                   p_zero, p_inf, any_snan, any_nan, inv_mul;
  logic signed [ExpW-1:0] exp_p;       // ea + eb
  logic signed [ExpW-1:0] shift_raw;   // 28 + ea + eb - ec
  logic [6:0]             shift;
  logic [153:0]           al_full;

  always_comb begin
    p_zero   = a_zero_i || b_zero_i;
    p_inf    = a_inf_i || b_inf_i;
    any_snan = a_snan_i || b_snan_i || c_snan_i;
    any_nan  = a_nan_i || b_nan_i || c_nan_i;
    inv_mul  = (a_inf_i && b_zero_i) || (a_zero_i && b_inf_i);

    prod_o   = a_mant_i * b_mant_i;
    exp_p    = a_exp_i + b_exp_i;
    shift_raw = exp_p - c_exp_i + ExpW'(28);

    if (c_zero_i) begin
      shift      = 7'd76;
      base_exp_o = exp_p - ExpW'(47);
    end else if (p_zero || shift_raw < ExpW'(0)) begin
      shift      = 7'd0;
      base_exp_o = c_exp_i - ExpW'(75);
    end else begin
      shift      = (shift_raw > ExpW'(76)) ? 7'd76 : shift_raw[6:0];
      base_exp_o = exp_p - ExpW'(47);
    end
    clamped_o = !c_zero_i && !p_zero && (shift_raw < ExpW'(0));
    al_full  = {1'b0, c_mant_i, 129'd0} >> shift;
    addend_o = {al_full[153:78], al_full[77] || (al_full[76:0] != '0)};

    // Special operands: NaNs, invalid combinations and infinities.
    special_o       = 1'b1;
    special_res_o   = fpu_pkg::CanonNan;
    special_flags_o = '0;
    if (inv_mul) begin
      // inf * 0 is invalid even when the addend is a quiet NaN
      special_flags_o[fpu_pkg::FlagNv] = 1'b1;
    end else if (any_nan) begin
      special_flags_o[fpu_pkg::FlagNv] = any_snan;
    end else if (p_inf && c_inf_i && (a_sign_i != c_sign_i)) begin
      special_flags_o[fpu_pkg::FlagNv] = 1'b1;
    end else if (p_inf) begin
      special_res_o = {a_sign_i, 31'h7f80_0000};
    end else if (c_inf_i) begin
      special_res_o = {c_sign_i, 31'h7f80_0000};
    end else begin
      special_o = 1'b0;
    end
  end
endmodule
