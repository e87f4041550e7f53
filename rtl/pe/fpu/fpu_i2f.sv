// fcvt.s.w / fcvt.s.wu, first half: takes the integer's magnitude and
// normalizes it into rounder form (the rounder finishes the conversion).
module fpu_i2f (
  input  logic [31:0]                     int_i,
  input  logic                            unsigned_i,
  output logic                            sign_o,
  output logic signed [fpu_pkg::ExpW-1:0] exp_o,
  output logic [fpu_pkg::RndW-1:0]        mant_o,
  output logic                            sticky_o,
  output logic                            zero_o
);
  localparam int unsigned ExpW = fpu_pkg::ExpW;
  localparam int unsigned RndW = fpu_pkg::RndW;

  logic [31:0] mag, norm;
  logic [5:0]  lz;

  fpu_lzc #(.Width(32), .CntW(6)) u_lzc (
    .in_i  (mag),
    .cnt_o (lz)
  );

  assign sign_o = !unsigned_i && int_i[31];
  assign mag    = sign_o ? (32'd0 - int_i) : int_i;

  always_comb begin
    zero_o   = (mag == '0);
    norm     = mag << lz;
    exp_o    = ExpW'(31) - ExpW'(lz);
    mant_o   = norm[31:32-RndW];
    sticky_o = (norm[31-RndW:0] != '0);
  end
endmodule
