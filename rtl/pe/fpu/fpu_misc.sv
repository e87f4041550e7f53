// Non-arithmetic operations, all single-cycle bit manipulation: sign
// injection, fmin/fmax (RISC-V 2.2 rules: a NaN operand yields the other
// operand, two NaNs the canonical NaN, -0 < +0, NV on a signalling NaN),
// feq (quiet) / flt / fle (signalling), fclass and the fmv moves.
module fpu_misc (
  input  fpu_pkg::op_e op_i,
  input  logic [31:0]  a_i,
  input  logic [31:0]  b_i,
  input  logic         a_zero_i,
  input  logic         a_sub_i,
  input  logic         a_inf_i,
  input  logic         a_nan_i,
  input  logic         a_snan_i,
  input  logic         b_zero_i,
  input  logic         b_nan_i,
  input  logic         b_snan_i,
  output logic [31:0]  result_o,
  output logic [4:0]   flags_o
);
  logic eq, lt, mag_lt, any_nan, any_snan, a_first;
  logic [9:0] cls;

  always_comb begin
    any_nan  = a_nan_i || b_nan_i;
    any_snan = a_snan_i || b_snan_i;
    mag_lt   = a_i[30:0] < b_i[30:0];
    // ordering of non-NaN values with -0 == +0 (compares)
    eq = (a_i == b_i) || (a_zero_i && b_zero_i);
    if (a_i[31] != b_i[31]) begin
      lt = a_i[31] && !(a_zero_i && b_zero_i);
    end else if (a_i[31]) begin
      lt = (b_i[30:0] < a_i[30:0]);
    end else begin
      lt = mag_lt;
    end

    a_first = 1'b0;
    cls = '0;
    if (a_inf_i)        cls[a_i[31] ? 0 : 7] = 1'b1;
    else if (a_nan_i)   cls[a_snan_i ? 8 : 9] = 1'b1;
    else if (a_zero_i)  cls[a_i[31] ? 3 : 4] = 1'b1;
    else if (a_sub_i)   cls[a_i[31] ? 2 : 5] = 1'b1;
    else                cls[a_i[31] ? 1 : 6] = 1'b1;

    result_o = a_i;
    flags_o  = '0;
    unique case (op_i)
      fpu_pkg::OpSgnj:  result_o = {b_i[31], a_i[30:0]};
      fpu_pkg::OpSgnjn: result_o = {!b_i[31], a_i[30:0]};
      fpu_pkg::OpSgnjx: result_o = {a_i[31] ^ b_i[31], a_i[30:0]};
      fpu_pkg::OpMin, fpu_pkg::OpMax: begin
        flags_o[fpu_pkg::FlagNv] = any_snan;
        if (a_nan_i && b_nan_i) begin
          result_o = fpu_pkg::CanonNan;
        end else if (a_nan_i) begin
          result_o = b_i;
        end else if (b_nan_i) begin
          result_o = a_i;
        end else begin
          // total order here: -0 < +0 (a_i[31] alone decides mixed signs)
          a_first  = (a_i[31] != b_i[31]) ? a_i[31] : lt;
          result_o = ((op_i == fpu_pkg::OpMin) == a_first) ? a_i : b_i;
        end
      end
      fpu_pkg::OpEq, fpu_pkg::OpLt, fpu_pkg::OpLe: begin
        result_o = '0;
        if (any_nan) begin
          flags_o[fpu_pkg::FlagNv] = (op_i != fpu_pkg::OpEq) || any_snan;
        end else begin
          unique case (op_i)
            fpu_pkg::OpEq: result_o[0] = eq;
            fpu_pkg::OpLt: result_o[0] = lt;
            default:       result_o[0] = lt || eq;
          endcase
        end
      end
      fpu_pkg::OpClass: result_o = {22'd0, cls};
      default: result_o = a_i;  // fmv.x.w, fmv.w.x
    endcase
  end
endmodule
