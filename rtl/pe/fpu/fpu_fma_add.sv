// Second FMA stage: adds or subtracts the aligned addend and the product in
// the 77-bit window, takes the magnitude, normalizes it and hands a 26-bit
// significand plus sticky to the rounder. An exact zero sum gets +0, or -0
// when rounding down, unless both terms had the same sign.
module fpu_fma_add (
  input  logic [47:0]                     prod_i,
  input  logic [76:0]                     addend_i,
  input  logic signed [fpu_pkg::ExpW-1:0] base_exp_i,
  input  logic                            p_sign_i,
  input  logic                            c_sign_i,
  input  logic [2:0]                      rm_i,
  output logic                            sign_o,
  output logic signed [fpu_pkg::ExpW-1:0] exp_o,
  output logic [fpu_pkg::RndW-1:0]        mant_o,
  output logic                            sticky_o,
  output logic                            zero_o
);
  localparam int unsigned ExpW = fpu_pkg::ExpW;
  localparam int unsigned RndW = fpu_pkg::RndW;

  logic        eff_sub;
  logic [76:0] prod_w, sum, norm;
  logic [77:0] diff;
  logic [6:0]  lz;

  fpu_lzc #(.Width(77), .CntW(7)) u_lzc (
    .in_i  (sum),
    .cnt_o (lz)
  );

  always_comb begin
    eff_sub = p_sign_i ^ c_sign_i;
    prod_w  = {28'd0, prod_i, 1'b0};
    diff    = {1'b0, addend_i} - {1'b0, prod_w};
    if (!eff_sub) begin
      sum    = addend_i + prod_w;
      sign_o = c_sign_i;
    end else if (diff[77]) begin
      sum    = prod_w - addend_i;
      sign_o = p_sign_i;
    end else begin
      sum    = diff[76:0];
      sign_o = c_sign_i;
    end
    zero_o = (sum == '0);
    if (zero_o) begin
      sign_o = eff_sub ? (rm_i == fpu_pkg::RmRdn) : c_sign_i;
    end
  end

  always_comb begin
    norm     = sum << lz;
    exp_o    = base_exp_i + ExpW'(76) - ExpW'(lz);
    mant_o   = norm[76:76-RndW+1];
    sticky_o = (norm[76-RndW:0] != '0);
  end
endmodule
