// The F extension as a coprocessor of the tile core: the 32 x 32-bit F
// register file, decode of every RV32F instruction handed over on the core's
// coprocessor port, flw/fsw through the core's LSU, and the issue of its
// operations to the PE's FPU (wse_pe_fpu, shared with the vector engine) on
// the fpu_* port. fcsr stays in the core's CSR file: this block reads frm
// and mstatus.FS and reports the flags of each completed operation.
//
// Port contract (wse_pe_core): cop_req_i is held with stable operands until
// cop_done_o; cop_accept_o depends on the instruction word only and is low
// for encodings this block does not implement, which then trap as illegal
// (reserved rm, DYN with an invalid frm, fmt != S, FS = Off, custom opcodes).
module fpu_cop (
  input  logic        clk_i,
  input  logic        rst_ni,

  input  logic        cop_req_i,
  input  logic [31:0] cop_instr_i,
  input  logic [31:0] cop_rs1_i,         // integer rs1 (fcvt.s.w[u], fmv.w.x)
  output logic        cop_accept_o,
  output logic        cop_done_o,
  output logic        cop_rf_we_o,       // integer rd written (compares, fclass, ...)
  output logic [31:0] cop_rf_wdata_o,
  input  logic        cop_load_valid_i,  // flw data from the LSU
  input  logic [31:0] cop_load_data_i,
  output logic [31:0] cop_store_data_o,  // fsw data to the LSU

  input  logic [2:0]  frm_i,
  input  logic        fs_on_i,
  output logic [4:0]  fflags_set_o,
  output logic        fs_dirty_o,

  // The FPU: one operation at a time, its result taken when it comes
  output logic          fpu_valid_o,
  output fpu_pkg::req_t fpu_req_o,
  output logic          fpu_tag_o,     // the result goes to an integer register
  input  logic          fpu_ready_i,
  input  logic          fpu_rvalid_i,
  input  fpu_pkg::rsp_t fpu_rsp_i,
  input  logic          fpu_tag_i
);
  localparam logic [6:0] OpcLoadFp  = 7'b0000111;
  localparam logic [6:0] OpcStoreFp = 7'b0100111;
  localparam logic [6:0] OpcMadd    = 7'b1000011;
  localparam logic [6:0] OpcMsub    = 7'b1000111;
  localparam logic [6:0] OpcNmsub   = 7'b1001011;
  localparam logic [6:0] OpcNmadd   = 7'b1001111;
  localparam logic [6:0] OpcOpFp    = 7'b1010011;

  // ---- Decode ------------------------------------------------------------
  logic [6:0]   opcode, funct7;
  logic [2:0]   funct3, rm;
  logic [4:0]   rs1, rs2, rs3, rd;
  logic         legal, is_load, is_store, uses_rm, int_dst, int_src;
  fpu_pkg::op_e op;

  assign opcode = cop_instr_i[6:0];
  assign rd     = cop_instr_i[11:7];
  assign funct3 = cop_instr_i[14:12];
  assign rs1    = cop_instr_i[19:15];
  assign rs2    = cop_instr_i[24:20];
  assign rs3    = cop_instr_i[31:27];
  assign funct7 = cop_instr_i[31:25];

  always_comb begin
    legal    = 1'b0;
    is_load  = 1'b0;
    is_store = 1'b0;
    uses_rm  = 1'b0;
    int_dst  = 1'b0;
    int_src  = 1'b0;
    op       = fpu_pkg::OpAdd;
    unique case (opcode)
      OpcLoadFp: begin
        legal   = (funct3 == 3'b010);
        is_load = 1'b1;
      end
      OpcStoreFp: begin
        legal    = (funct3 == 3'b010);
        is_store = 1'b1;
      end
      OpcMadd, OpcMsub, OpcNmsub, OpcNmadd: begin
        legal   = (cop_instr_i[26:25] == 2'b00);
        uses_rm = 1'b1;
        unique case (opcode)
          OpcMadd:  op = fpu_pkg::OpMadd;
          OpcMsub:  op = fpu_pkg::OpMsub;
          OpcNmsub: op = fpu_pkg::OpNmsub;
          default:  op = fpu_pkg::OpNmadd;
        endcase
      end
      OpcOpFp: begin
        unique case (funct7)
          7'b0000000: begin op = fpu_pkg::OpAdd; legal = 1'b1; uses_rm = 1'b1; end
          7'b0000100: begin op = fpu_pkg::OpSub; legal = 1'b1; uses_rm = 1'b1; end
          7'b0001000: begin op = fpu_pkg::OpMul; legal = 1'b1; uses_rm = 1'b1; end
          7'b0001100: begin op = fpu_pkg::OpDiv; legal = 1'b1; uses_rm = 1'b1; end
          7'b0101100: begin
            op = fpu_pkg::OpSqrt; legal = (rs2 == 5'd0); uses_rm = 1'b1;
          end
          7'b0010000: begin
            legal = (funct3 <= 3'b010);
            op    = (funct3 == 3'b000) ? fpu_pkg::OpSgnj :
                    (funct3 == 3'b001) ? fpu_pkg::OpSgnjn : fpu_pkg::OpSgnjx;
          end
          7'b0010100: begin
            legal = (funct3 <= 3'b001);
            op    = (funct3 == 3'b000) ? fpu_pkg::OpMin : fpu_pkg::OpMax;
          end
          7'b1010000: begin
            legal   = (funct3 <= 3'b010);
            int_dst = 1'b1;
            op      = (funct3 == 3'b010) ? fpu_pkg::OpEq :
                      (funct3 == 3'b001) ? fpu_pkg::OpLt : fpu_pkg::OpLe;
          end
          7'b1100000: begin
            legal   = (rs2 <= 5'd1);
            uses_rm = 1'b1;
            int_dst = 1'b1;
            op      = rs2[0] ? fpu_pkg::OpCvtWuS : fpu_pkg::OpCvtWS;
          end
          7'b1101000: begin
            legal   = (rs2 <= 5'd1);
            uses_rm = 1'b1;
            int_src = 1'b1;
            op      = rs2[0] ? fpu_pkg::OpCvtSWu : fpu_pkg::OpCvtSW;
          end
          7'b1110000: begin
            legal   = (rs2 == 5'd0) && (funct3 <= 3'b001);
            int_dst = 1'b1;
            op      = (funct3 == 3'b000) ? fpu_pkg::OpMvXW : fpu_pkg::OpClass;
          end
          7'b1111000: begin
            legal   = (rs2 == 5'd0) && (funct3 == 3'b000);
            int_src = 1'b1;
            op      = fpu_pkg::OpMvWX;
          end
          default: legal = 1'b0;
        endcase
      end
      default: legal = 1'b0;
    endcase
    // static rm 5 and 6 are reserved; DYN needs a valid frm
    rm = (funct3 == 3'b111) ? frm_i : funct3;
    if (uses_rm && (rm > 3'd4)) begin
      legal = 1'b0;
    end
  end

  assign cop_accept_o = legal && fs_on_i;

  // ---- F register file ---------------------------------------------------
  // Three read ports (fa, fb, fc: the fused multiply-adds read three
  // registers), each a copy of the RAM on ECP5; every register reads 0
  // from reset until written.
  logic [31:0] fa, fb, fc;
  logic        freg_we;
  logic [31:0] freg_wdata;

  prim_ram_1wnr #(
    .Width (32),
    .Depth (32),
    .NumRd (3)
  ) u_freg (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (freg_we),
    .waddr_i (rd),
    .wdata_i (freg_wdata),
    .raddr_i ({rs3, rs2, rs1}),
    .rdata_o ({fc, fb, fa})
  );

  // ---- FPU issue and completion -------------------------------------------
  logic arith, issued_q, issued_d;

  assign arith       = cop_req_i && !is_load && !is_store;
  assign fpu_valid_o = arith && !issued_q;
  assign fpu_req_o   = {op, rm, int_src ? cop_rs1_i : fa, fb, fc};  // op, rm, a, b, c
  assign fpu_tag_o   = int_dst;

  always_comb begin
    issued_d = issued_q;
    if (fpu_valid_o && fpu_ready_i) begin
      issued_d = 1'b1;
    end
    if (fpu_rvalid_i) begin
      issued_d = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      issued_q <= 1'b0;
    end else begin
      issued_q <= issued_d;
    end
  end

  always_comb begin
    cop_done_o     = 1'b0;
    cop_rf_we_o    = 1'b0;
    cop_rf_wdata_o = fpu_rsp_i.result;
    freg_we        = 1'b0;
    freg_wdata     = fpu_rsp_i.result;
    fflags_set_o   = '0;
    if (cop_req_i && is_load) begin
      cop_done_o = cop_load_valid_i;
      freg_we    = cop_load_valid_i;
      freg_wdata = cop_load_data_i;
    end else if (cop_req_i && is_store) begin
      cop_done_o = 1'b1;  // the core completes it with the LSU
    end else if (arith && fpu_rvalid_i) begin
      cop_done_o   = 1'b1;
      cop_rf_we_o  = fpu_tag_i;
      freg_we      = !fpu_tag_i;
      fflags_set_o = fpu_rsp_i.flags;
    end
    fs_dirty_o = freg_we || (fflags_set_o != '0);
  end

  assign cop_store_data_o = fb;

  `include "prim_assert.svh"
  `ASSERT(ResultOnlyWhenIssued_A, !fpu_rvalid_i || (issued_q && arith))
  `ASSERT(NoIssueWhileIssued_A, !(issued_q && fpu_valid_o))
endmodule
