// Rounding and packing: takes a normalized significand with one unbounded
// signed exponent and produces the binary32 result with OF/UF/NX under the
// five RISC-V rounding modes. Subnormal results are denormalized before
// rounding; tininess is detected after rounding, as RISC-V requires.
module fpu_round (
  input  logic                            sign_i,
  input  logic signed [fpu_pkg::ExpW-1:0] exp_i,     // exponent of mant_i[RndW-1]
  input  logic [fpu_pkg::RndW-1:0]        mant_i,    // mant_i[RndW-1] = 1 unless zero_i
  input  logic                            sticky_i,  // non-zero bits below mant_i
  input  logic                            zero_i,    // exact zero (sign_i gives its sign)
  input  logic [2:0]                      rm_i,
  output logic [31:0]                     result_o,
  output logic [4:0]                      flags_o
);
  localparam int unsigned ExpW = fpu_pkg::ExpW;
  localparam int unsigned RndW = fpu_pkg::RndW;

  logic signed [ExpW-1:0] bexp;       // biased exponent before rounding
  logic [ExpW-1:0]        dshift;     // right shift for subnormal results
  logic [4:0]             dshift_c;   // the same, capped
  logic [2*RndW+1:0]      dext;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [RndW-1:0]        sig;        // significand at the final LSB position;
                                      // its top bit is the hidden bit (implied)
  /* verilator lint_on UNUSEDSIGNAL */
  logic                   rbit, sbit, inexact, inc, inc_unb, tiny, ovf;
  logic [7:0]             pexp;
  logic [30:0]            packed_v;

  function automatic logic round_up(logic [2:0] rm, logic sign, logic lsb,
                                    logic r, logic s);
    unique case (rm)
      fpu_pkg::RmRne: round_up = r && (s || lsb);
      fpu_pkg::RmRtz: round_up = 1'b0;
      fpu_pkg::RmRdn: round_up = sign && (r || s);
      fpu_pkg::RmRup: round_up = !sign && (r || s);
      fpu_pkg::RmRmm: round_up = r;
      default:        round_up = 1'b0;
    endcase
  endfunction

  always_comb begin
    bexp     = exp_i + ExpW'(127);
    dshift   = ExpW'(1) - bexp;
    dshift_c = (bexp >= ExpW'(1)) ? 5'd0 :
               (dshift > ExpW'(RndW + 1)) ? 5'(RndW + 1) : dshift[4:0];
    // Subnormal path: shift right with sticky; the shift is 0 for normals.
    dext     = {mant_i, {(RndW + 2){1'b0}}} >> dshift_c;
    sig      = dext[2*RndW+1:RndW+2];
    rbit     = sig[1];
    sbit     = sig[0] || sticky_i || (dext[RndW+1:0] != '0);
    inexact  = rbit || sbit;
    inc      = round_up(rm_i, sign_i, sig[2], rbit, sbit);
    pexp     = (bexp >= ExpW'(1)) ? bexp[7:0] : 8'd0;
    // Adding the increment to {exponent, fraction} carries into the
    // exponent on significand overflow, from subnormal to normal included.
    packed_v = {pexp, sig[RndW-2:2]} + 31'(inc);
    ovf      = (bexp >= ExpW'(255)) || (packed_v[30:23] == 8'hff);

    // Tininess after rounding: below 2^-126 even when rounded to 24 bits
    // with an unbounded exponent; only exponent -127 can round up out of it.
    inc_unb  = round_up(rm_i, sign_i, mant_i[2], mant_i[1], mant_i[0] || sticky_i);
    tiny     = (bexp < ExpW'(1)) &&
               !((bexp == ExpW'(0)) && (mant_i[RndW-1:2] == '1) && inc_unb);

    flags_o  = '0;
    if (zero_i) begin
      result_o = {sign_i, 31'd0};
    end else if (ovf) begin
      flags_o[fpu_pkg::FlagOf] = 1'b1;
      flags_o[fpu_pkg::FlagNx] = 1'b1;
      if (rm_i == fpu_pkg::RmRtz || (rm_i == fpu_pkg::RmRdn && !sign_i) ||
          (rm_i == fpu_pkg::RmRup && sign_i)) begin
        result_o = {sign_i, 31'h7f7f_ffff};
      end else begin
        result_o = {sign_i, 31'h7f80_0000};
      end
    end else begin
      result_o = {sign_i, packed_v};
      flags_o[fpu_pkg::FlagNx] = inexact;
      flags_o[fpu_pkg::FlagUf] = inexact && tiny;
    end
  end
endmodule
