// Instruction decoder of the tile core: RV32IM plus Zicsr, machine mode.
// Purely combinational. Anything it does not know is illegal, except the
// opcodes of the F extension and custom-0/custom-1, which it hands to the
// coprocessor port (KindCop) so an FPU or the fabric/vector interface can
// claim them; an instruction no coprocessor accepts traps as illegal.
module wse_pe_decoder (
  input  logic [31:0]                 instr_i,
  output logic                        illegal_o,
  output wse_pe_pkg::kind_e           kind_o,
  output logic                        rf_we_o,     // writes rd
  output logic [31:0]                 imm_o,
  output wse_pe_pkg::alu_op_e         alu_op_o,
  output wse_pe_pkg::op_a_sel_e       op_a_sel_o,
  output logic                        op_b_imm_o,  // operand B is the immediate
  output wse_pe_pkg::wb_sel_e         wb_sel_o,
  output logic [2:0]                  funct3_o,
  output logic                        csr_write_o  // the CSR instruction writes the CSR
);
  logic [6:0] opcode;
  logic [2:0] funct3;
  logic [6:0] funct7;
  logic [4:0] rs1;
  logic [31:0] imm_i, imm_s, imm_b, imm_u, imm_j;

  assign opcode = instr_i[6:0];
  assign funct3 = instr_i[14:12];
  assign funct7 = instr_i[31:25];
  assign rs1    = instr_i[19:15];
  assign funct3_o = funct3;

  assign imm_i = {{20{instr_i[31]}}, instr_i[31:20]};
  assign imm_s = {{20{instr_i[31]}}, instr_i[31:25], instr_i[11:7]};
  assign imm_b = {{19{instr_i[31]}}, instr_i[31], instr_i[7], instr_i[30:25],
                  instr_i[11:8], 1'b0};
  assign imm_u = {instr_i[31:12], 12'b0};
  assign imm_j = {{11{instr_i[31]}}, instr_i[31], instr_i[19:12], instr_i[20],
                  instr_i[30:21], 1'b0};

  always_comb begin
    illegal_o   = 1'b0;
    kind_o      = wse_pe_pkg::KindAlu;
    rf_we_o     = 1'b0;
    imm_o       = imm_i;
    alu_op_o    = wse_pe_pkg::AluAdd;
    op_a_sel_o  = wse_pe_pkg::OpASrcRs1;
    op_b_imm_o  = 1'b1;
    wb_sel_o    = wse_pe_pkg::WbAlu;
    csr_write_o = 1'b0;

    unique case (opcode)
      wse_pe_pkg::OpLui: begin
        rf_we_o    = 1'b1;
        imm_o      = imm_u;
        op_a_sel_o = wse_pe_pkg::OpASrcZero;
      end
      wse_pe_pkg::OpAuipc: begin
        rf_we_o    = 1'b1;
        imm_o      = imm_u;
        op_a_sel_o = wse_pe_pkg::OpASrcPc;
      end
      wse_pe_pkg::OpJal: begin
        kind_o   = wse_pe_pkg::KindJal;
        rf_we_o  = 1'b1;
        imm_o    = imm_j;
        wb_sel_o = wse_pe_pkg::WbPc4;
      end
      wse_pe_pkg::OpJalr: begin
        kind_o    = wse_pe_pkg::KindJalr;
        rf_we_o   = 1'b1;
        wb_sel_o  = wse_pe_pkg::WbPc4;
        illegal_o = (funct3 != 3'b000);
      end
      wse_pe_pkg::OpBranch: begin
        kind_o    = wse_pe_pkg::KindBranch;
        imm_o     = imm_b;
        illegal_o = (funct3 == 3'b010) || (funct3 == 3'b011);
      end
      wse_pe_pkg::OpLoad: begin
        kind_o    = wse_pe_pkg::KindLoad;
        rf_we_o   = 1'b1;
        wb_sel_o  = wse_pe_pkg::WbLoad;
        illegal_o = (funct3 == 3'b011) || (funct3 == 3'b110) || (funct3 == 3'b111);
      end
      wse_pe_pkg::OpStore: begin
        kind_o    = wse_pe_pkg::KindStore;
        imm_o     = imm_s;
        illegal_o = (funct3[2] || funct3[1:0] == 2'b11);
      end
      wse_pe_pkg::OpOpImm: begin
        rf_we_o = 1'b1;
        unique case (funct3)
          3'b000: alu_op_o = wse_pe_pkg::AluAdd;
          3'b010: alu_op_o = wse_pe_pkg::AluSlt;
          3'b011: alu_op_o = wse_pe_pkg::AluSltu;
          3'b100: alu_op_o = wse_pe_pkg::AluXor;
          3'b110: alu_op_o = wse_pe_pkg::AluOr;
          3'b111: alu_op_o = wse_pe_pkg::AluAnd;
          3'b001: begin
            alu_op_o  = wse_pe_pkg::AluSll;
            illegal_o = (funct7 != 7'b0000000);
          end
          3'b101: begin
            alu_op_o  = funct7[5] ? wse_pe_pkg::AluSra : wse_pe_pkg::AluSrl;
            illegal_o = (funct7 != 7'b0000000) && (funct7 != 7'b0100000);
          end
          default: illegal_o = 1'b1;
        endcase
      end
      wse_pe_pkg::OpOp: begin
        rf_we_o    = 1'b1;
        op_b_imm_o = 1'b0;
        if (funct7 == 7'b0000001) begin
          kind_o   = wse_pe_pkg::KindMulDiv;
          wb_sel_o = wse_pe_pkg::WbMulDiv;
        end else if (funct7 == 7'b0000000) begin
          unique case (funct3)
            3'b000: alu_op_o = wse_pe_pkg::AluAdd;
            3'b001: alu_op_o = wse_pe_pkg::AluSll;
            3'b010: alu_op_o = wse_pe_pkg::AluSlt;
            3'b011: alu_op_o = wse_pe_pkg::AluSltu;
            3'b100: alu_op_o = wse_pe_pkg::AluXor;
            3'b101: alu_op_o = wse_pe_pkg::AluSrl;
            3'b110: alu_op_o = wse_pe_pkg::AluOr;
            3'b111: alu_op_o = wse_pe_pkg::AluAnd;
            default: illegal_o = 1'b1;
          endcase
        end else if (funct7 == 7'b0100000) begin
          unique case (funct3)
            3'b000: alu_op_o = wse_pe_pkg::AluSub;
            3'b101: alu_op_o = wse_pe_pkg::AluSra;
            default: illegal_o = 1'b1;
          endcase
        end else begin
          illegal_o = 1'b1;
        end
      end
      wse_pe_pkg::OpMiscMem: begin
        // fence and fence.i: the core is in order with one memory path and
        // nothing can write IMEM while it runs, so both are no-ops.
        kind_o    = wse_pe_pkg::KindNop;
        illegal_o = (funct3 != 3'b000) && (funct3 != 3'b001);
      end
      wse_pe_pkg::OpSystem: begin
        if (funct3 == 3'b000) begin
          unique case (instr_i[31:7])
            25'h0000000:                 kind_o = wse_pe_pkg::KindEcall;
            {12'h001, 13'h0}:            kind_o = wse_pe_pkg::KindEbreak;
            {12'h302, 13'h0}:            kind_o = wse_pe_pkg::KindMret;
            {12'h105, 13'h0}:            kind_o = wse_pe_pkg::KindNop;  // wfi
            default:                     illegal_o = 1'b1;
          endcase
        end else if (funct3 == 3'b100) begin
          illegal_o = 1'b1;
        end else begin
          kind_o   = wse_pe_pkg::KindCsr;
          rf_we_o  = 1'b1;
          wb_sel_o = wse_pe_pkg::WbCsr;
          // csrrw/csrrwi always write; csrrs/csrrc (and the immediate forms)
          // write only with a non-zero rs1 / uimm.
          csr_write_o = (funct3[1:0] == 2'b01) || (rs1 != 5'd0);
        end
      end
      wse_pe_pkg::OpLoadFp, wse_pe_pkg::OpStoreFp, wse_pe_pkg::OpMadd,
      wse_pe_pkg::OpMsub, wse_pe_pkg::OpNmsub, wse_pe_pkg::OpNmadd,
      wse_pe_pkg::OpOpFp, wse_pe_pkg::OpCustom0, wse_pe_pkg::OpCustom1: begin
        kind_o   = wse_pe_pkg::KindCop;
        wb_sel_o = wse_pe_pkg::WbCop;
        imm_o    = (opcode == wse_pe_pkg::OpStoreFp) ? imm_s : imm_i;
      end
      default: illegal_o = 1'b1;
    endcase

    // Only 32-bit encodings exist on this core.
    if (instr_i[1:0] != 2'b11) illegal_o = 1'b1;
  end
endmodule
