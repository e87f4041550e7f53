// Integer ALU of the tile core: one result per cycle.
module wse_pe_alu (
  input  wse_pe_pkg::alu_op_e op_i,
  input  logic [31:0]         a_i,
  input  logic [31:0]         b_i,
  output logic [31:0]         result_o
);
  logic [4:0] shamt;
  assign shamt = b_i[4:0];

  always_comb begin
    unique case (op_i)
      wse_pe_pkg::AluAdd:   result_o = a_i + b_i;
      wse_pe_pkg::AluSub:   result_o = a_i - b_i;
      wse_pe_pkg::AluSll:   result_o = a_i << shamt;
      wse_pe_pkg::AluSlt:   result_o = {31'b0, $signed(a_i) < $signed(b_i)};
      wse_pe_pkg::AluSltu:  result_o = {31'b0, a_i < b_i};
      wse_pe_pkg::AluXor:   result_o = a_i ^ b_i;
      wse_pe_pkg::AluSrl:   result_o = a_i >> shamt;
      wse_pe_pkg::AluSra:   result_o = $unsigned($signed(a_i) >>> shamt);
      wse_pe_pkg::AluOr:    result_o = a_i | b_i;
      wse_pe_pkg::AluAnd:   result_o = a_i & b_i;
      wse_pe_pkg::AluPassB: result_o = b_i;
      default:              result_o = a_i + b_i;
    endcase
  end
endmodule
