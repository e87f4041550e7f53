// fcvt.w.s / fcvt.wu.s: rounds a binary32 value to a 32-bit integer in the
// given mode. Out-of-range values, infinities and NaNs saturate as RISC-V
// specifies (NaN as +inf) and raise NV; in-range inexact results raise NX.
// The range check is made on the rounded magnitude.
module fpu_f2i (
  input  logic                            unsigned_i,
  input  logic [2:0]                      rm_i,
  input  logic                            sign_i,
  input  logic signed [fpu_pkg::ExpW-1:0] exp_i,
  input  logic [23:0]                     mant_i,
  input  logic                            zero_i,
  input  logic                            inf_i,
  input  logic                            nan_i,
  output logic [31:0]                     result_o,
  output logic [4:0]                      flags_o
);
  localparam int unsigned ExpW = fpu_pkg::ExpW;

  logic [63:0] fix;     // value * 2^32 for exponents -1..31
  logic [5:0]  sh;
  logic [31:0] ipart;
  logic        rbit, sbit, inc, ok, big, tiny;
  logic [32:0] mag;
  logic [31:0] sat;

  always_comb begin
    big   = (exp_i > ExpW'(31));
    tiny  = (exp_i < -ExpW'(1));
    sh    = (big || tiny) ? 6'd8 : 6'(exp_i + ExpW'(9));
    fix   = {40'd0, mant_i} << sh;
    ipart = tiny ? 32'd0 : fix[63:32];
    rbit  = tiny ? 1'b0 : fix[31];
    sbit  = tiny ? 1'b1 : (fix[30:0] != '0);
    unique case (rm_i)
      fpu_pkg::RmRne: inc = rbit && (sbit || ipart[0]);
      fpu_pkg::RmRtz: inc = 1'b0;
      fpu_pkg::RmRdn: inc = sign_i && (rbit || sbit);
      fpu_pkg::RmRup: inc = !sign_i && (rbit || sbit);
      fpu_pkg::RmRmm: inc = rbit;
      default:        inc = 1'b0;
    endcase
    mag = {1'b0, ipart} + 33'(inc);
    if (unsigned_i) begin
      ok  = sign_i ? (mag == '0) : !mag[32];
      sat = (sign_i && !nan_i) ? 32'h0000_0000 : 32'hffff_ffff;
    end else begin
      ok  = sign_i ? (mag <= 33'h0_8000_0000) : (mag <= 33'h0_7fff_ffff);
      sat = (sign_i && !nan_i) ? 32'h8000_0000 : 32'h7fff_ffff;
    end
    flags_o = '0;
    if (zero_i) begin
      result_o = '0;
    end else if (nan_i || inf_i || big || !ok) begin
      result_o = sat;
      flags_o[fpu_pkg::FlagNv] = 1'b1;
    end else begin
      result_o = sign_i ? (32'd0 - mag[31:0]) : mag[31:0];
      flags_o[fpu_pkg::FlagNx] = rbit || sbit;
    end
  end
endmodule
