// Operand classification and unpacking of one binary32 value: class bits
// and a normalized 24-bit significand with its unbiased exponent, so that
// every later stage treats subnormals exactly like normal numbers.
module fpu_unpack (
  input  logic                         [31:0] x_i,
  output logic                                sign_o,
  output logic signed [fpu_pkg::ExpW-1:0]     exp_o,   // value = 1.m * 2^exp
  output logic                         [23:0] mant_o,  // mant_o[23] = 1 unless zero
  output logic                                zero_o,
  output logic                                sub_o,   // subnormal
  output logic                                inf_o,
  output logic                                nan_o,
  output logic                                snan_o
);
  logic [7:0]  bexp;
  logic [22:0] frac;
  logic [4:0]  lz;
  logic [23:0] mant_raw;

  assign bexp     = x_i[30:23];
  assign frac     = x_i[22:0];
  assign mant_raw = {1'b0, frac};

  fpu_lzc #(.Width(24), .CntW(5)) u_lzc (
    .in_i  (mant_raw),
    .cnt_o (lz)
  );

  always_comb begin
    sign_o = x_i[31];
    zero_o = (bexp == 8'd0) && (frac == '0);
    sub_o  = (bexp == 8'd0) && (frac != '0);
    inf_o  = (bexp == 8'hff) && (frac == '0);
    nan_o  = (bexp == 8'hff) && (frac != '0);
    snan_o = nan_o && !frac[22];
    if (bexp == 8'd0) begin
      // subnormal (or zero): shift the leading one up to bit 23
      mant_o = mant_raw << lz;
      exp_o  = -fpu_pkg::ExpW'(126) - fpu_pkg::ExpW'(lz);
    end else begin
      mant_o = {1'b1, frac};
      exp_o  = fpu_pkg::ExpW'(bexp) - fpu_pkg::ExpW'(127);
    end
  end
endmodule
