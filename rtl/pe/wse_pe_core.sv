`include "prim_assert.svh"

// The tile core: in-order RV32IM, machine mode, two stages.
//
//   IF  the instruction port is given the address of the next instruction;
//       the IMEM returns it one cycle later.
//   EX  decode, register read, ALU / branch / CSR, memory access, write-back.
//       Multi-cycle work (loads, mul/div, coprocessor instructions) holds the
//       instruction in EX until its unit reports done; the fetch of the next
//       instruction is issued in the cycle the current one completes, with
//       the resolved next pc, so taken branches cost no bubble.
//
// Execute units (the mul/div unit, and the FPU on the coprocessor port)
// share one handshake: a request held with stable operands until done.
// See docs/core.md.
module wse_pe_core #(
  parameter int unsigned ImemBytes = wse_cfg_pkg::ImemBytes,
  parameter int unsigned DmemBytes = wse_cfg_pkg::DmemBytes
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [15:0] hartid_i,      // {y, x}
  input  logic        halt_req_i,    // stop fetching after the current instruction
  output logic        halted_o,      // no instruction in flight

  // Instruction port: read data one cycle after the grant.
  output logic        instr_req_o,
  output logic [31:0] instr_addr_o,
  input  logic        instr_gnt_i,
  input  logic [31:0] instr_rdata_i,

  // Data port (see wse_pe_lsu)
  output logic        data_req_o,
  input  logic        data_gnt_i,
  output logic        data_we_o,
  output logic [31:0] data_addr_o,
  output logic [3:0]  data_be_o,
  output logic [31:0] data_wdata_o,
  input  logic        data_rvalid_i,
  input  logic [31:0] data_rdata_i,

  // Coprocessor port: F-extension and custom-0/1 opcodes. cop_req_o is held
  // with stable operands until cop_done_i. Without cop_accept_i the
  // instruction traps as illegal. flw/fsw use the core's LSU: the loaded word
  // is offered on cop_load_*, the stored word is taken from cop_store_data_i.
  output logic        cop_req_o,
  output logic [31:0] cop_instr_o,
  output logic [31:0] cop_rs1_o,
  output logic [31:0] cop_rs2_o,
  input  logic        cop_accept_i,
  input  logic        cop_done_i,
  input  logic        cop_rf_we_i,
  input  logic [31:0] cop_rf_wdata_i,
  output logic        cop_load_valid_o,
  output logic [31:0] cop_load_data_o,
  input  logic [31:0] cop_store_data_i,

  // F extension state kept in the CSR file (see wse_pe_csr)
  input  logic [4:0]  fflags_set_i,
  input  logic        fs_dirty_i,
  output logic [2:0]  frm_o,
  output logic        fs_on_o,

  // Management access to the CSRs (and the resume pc as CSR 0x7b1)
  input  logic        mgmt_csr_req_i,
  input  logic        mgmt_csr_we_i,
  input  logic [11:0] mgmt_csr_addr_i,
  input  logic [31:0] mgmt_csr_wdata_i,
  output logic [31:0] mgmt_csr_rdata_o,
  output logic        mgmt_csr_err_o,

  // Retirement trace (tests and performance counting)
  output logic        retire_o,
  output logic [31:0] retire_pc_o
);
  // ---- Pipeline state -------------------------------------------------------
  logic        ex_valid_q, ex_valid_d;  // an instruction is in EX
  logic        ex_fresh_q, ex_fresh_d;  // its word is on instr_rdata_i this cycle
  logic        ex_ferr_q, ex_ferr_d;    // its fetch faulted (outside IMEM)
  logic [31:0] ex_pc_q, ex_pc_d;
  logic [31:0] ex_instr_q, ex_instr_d;  // its word, kept while it stalls
  logic [31:0] pc_q, pc_d;              // next fetch address while EX is empty

  logic [31:0] instr;
  assign instr = ex_fresh_q ? instr_rdata_i : ex_instr_q;

  // ---- Decode -----------------------------------------------------------------
  logic                  dec_illegal, dec_rf_we, dec_op_b_imm, dec_csr_write;
  wse_pe_pkg::kind_e     dec_kind;
  wse_pe_pkg::alu_op_e   dec_alu_op;
  wse_pe_pkg::op_a_sel_e dec_op_a_sel;
  wse_pe_pkg::wb_sel_e   dec_wb_sel;
  logic [31:0]           dec_imm;
  logic [2:0]            dec_funct3;

  wse_pe_decoder u_decoder (
    .instr_i     (instr),
    .illegal_o   (dec_illegal),
    .kind_o      (dec_kind),
    .rf_we_o     (dec_rf_we),
    .imm_o       (dec_imm),
    .alu_op_o    (dec_alu_op),
    .op_a_sel_o  (dec_op_a_sel),
    .op_b_imm_o  (dec_op_b_imm),
    .wb_sel_o    (dec_wb_sel),
    .funct3_o    (dec_funct3),
    .csr_write_o (dec_csr_write)
  );

  logic [4:0] rs1, rs2, rd;
  assign rs1 = instr[19:15];
  assign rs2 = instr[24:20];
  assign rd  = instr[11:7];

  // ---- Register file --------------------------------------------------------------
  logic [31:0] rs1_val, rs2_val;
  logic        rf_we;
  logic [31:0] rf_wdata;

  wse_pe_regfile u_regfile (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .raddr_a_i (rs1),
    .rdata_a_o (rs1_val),
    .raddr_b_i (rs2),
    .rdata_b_o (rs2_val),
    .we_i      (rf_we),
    .waddr_i   (rd),
    .wdata_i   (rf_wdata)
  );

  // ---- ALU and branch unit ------------------------------------------------------------
  logic [31:0] alu_a, alu_b, alu_result;
  always_comb begin
    unique case (dec_op_a_sel)
      wse_pe_pkg::OpASrcPc:   alu_a = ex_pc_q;
      wse_pe_pkg::OpASrcZero: alu_a = 32'd0;
      default:                alu_a = rs1_val;
    endcase
  end
  assign alu_b = dec_op_b_imm ? dec_imm : rs2_val;

  wse_pe_alu u_alu (
    .op_i     (dec_alu_op),
    .a_i      (alu_a),
    .b_i      (alu_b),
    .result_o (alu_result)
  );

  logic        br_taken;
  logic [31:0] pc_plus4, pc_rel_target, jump_target;
  assign pc_plus4      = ex_pc_q + 32'd4;
  assign pc_rel_target = ex_pc_q + dec_imm;
  always_comb begin
    unique case (dec_funct3)
      3'b000:  br_taken = (rs1_val == rs2_val);
      3'b001:  br_taken = (rs1_val != rs2_val);
      3'b100:  br_taken = ($signed(rs1_val) < $signed(rs2_val));
      3'b101:  br_taken = ($signed(rs1_val) >= $signed(rs2_val));
      3'b110:  br_taken = (rs1_val < rs2_val);
      3'b111:  br_taken = (rs1_val >= rs2_val);
      default: br_taken = 1'b0;
    endcase
  end
  assign jump_target = (dec_kind == wse_pe_pkg::KindJalr) ? {alu_result[31:1], 1'b0}
                                                          : pc_rel_target;

  // ---- Execute units -------------------------------------------------------------------
  logic ex_active;  // an instruction without a fetch fault or illegal encoding
  logic cop_illegal;
  assign cop_illegal = (dec_kind == wse_pe_pkg::KindCop) && !cop_accept_i;
  assign ex_active   = ex_valid_q && !ex_ferr_q && !dec_illegal && !cop_illegal;

  logic cop_mem, cop_ld, cop_st;
  assign cop_ld  = (instr[6:0] == wse_pe_pkg::OpLoadFp);
  assign cop_st  = (instr[6:0] == wse_pe_pkg::OpStoreFp);
  assign cop_mem = (dec_kind == wse_pe_pkg::KindCop) && (cop_ld || cop_st);

  // Mul/div
  logic        md_done;
  logic [31:0] md_result;
  wse_pe_muldiv u_muldiv (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .req_i    (ex_active && dec_kind == wse_pe_pkg::KindMulDiv),
    .op_i     (dec_funct3),
    .a_i      (rs1_val),
    .b_i      (rs2_val),
    .done_o   (md_done),
    .result_o (md_result)
  );

  // Load/store
  logic        lsu_req, lsu_we, lsu_done, lsu_err;
  logic [4:0]  lsu_err_cause;
  logic [31:0] lsu_rdata;
  assign lsu_req = ex_active && (dec_kind == wse_pe_pkg::KindLoad ||
                                 dec_kind == wse_pe_pkg::KindStore || cop_mem);
  assign lsu_we  = (dec_kind == wse_pe_pkg::KindStore) || (cop_mem && cop_st);

  wse_pe_lsu #(
    .DmemBytes (DmemBytes)
  ) u_lsu (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .req_i         (lsu_req),
    .we_i          (lsu_we),
    .size_i        (cop_mem ? wse_pe_pkg::SizeWord : dec_funct3[1:0]),
    .uns_i         (dec_funct3[2] && !cop_mem),
    .addr_i        (alu_result),
    .wdata_i       (cop_mem ? cop_store_data_i : rs2_val),
    .done_o        (lsu_done),
    .err_o         (lsu_err),
    .err_cause_o   (lsu_err_cause),
    .rdata_o       (lsu_rdata),
    .data_req_o    (data_req_o),
    .data_gnt_i    (data_gnt_i),
    .data_we_o     (data_we_o),
    .data_addr_o   (data_addr_o),
    .data_be_o     (data_be_o),
    .data_wdata_o  (data_wdata_o),
    .data_rvalid_i (data_rvalid_i),
    .data_rdata_i  (data_rdata_i)
  );

  // Coprocessor: a memory instruction completes when both the LSU and the
  // coprocessor are done (the coprocessor sees the load data first).
  logic cop_done;
  assign cop_req_o        = ex_active && (dec_kind == wse_pe_pkg::KindCop);
  assign cop_instr_o      = instr;
  assign cop_rs1_o        = rs1_val;
  assign cop_rs2_o        = rs2_val;
  assign cop_load_valid_o = cop_req_o && cop_ld && lsu_done && !lsu_err;
  assign cop_load_data_o  = lsu_rdata;
  assign cop_done = cop_mem ? (lsu_done && (lsu_err || cop_done_i)) : cop_done_i;

  // CSRs
  logic [31:0] csr_rdata, mtvec, mepc;
  logic        csr_illegal, trap, mret, retire;
  logic [4:0]  trap_cause;
  logic [31:0] trap_tval;
  logic        csr_req;
  logic        dpc_access;
  logic [31:0] csr_mgmt_rdata;
  logic        csr_mgmt_err;

  assign csr_req = ex_active && (dec_kind == wse_pe_pkg::KindCsr);

  // The resume pc is visible to the management port only, as CSR 0x7b1.
  assign dpc_access = (mgmt_csr_addr_i == wse_pe_pkg::CsrDpc);

  wse_pe_csr u_csr (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .hartid_i      (hartid_i),
    .csr_req_i     (csr_req),
    .csr_addr_i    (instr[31:20]),
    .csr_op_i      (dec_funct3[1:0]),
    .csr_write_i   (dec_csr_write),
    .csr_wdata_i   (dec_funct3[2] ? {27'd0, rs1} : rs1_val),
    .csr_rdata_o   (csr_rdata),
    .csr_illegal_o (csr_illegal),
    .mgmt_req_i    (mgmt_csr_req_i && !dpc_access),
    .mgmt_we_i     (mgmt_csr_we_i),
    .mgmt_addr_i   (mgmt_csr_addr_i),
    .mgmt_wdata_i  (mgmt_csr_wdata_i),
    .mgmt_rdata_o  (csr_mgmt_rdata),
    .mgmt_err_o    (csr_mgmt_err),
    .trap_i        (trap),
    .trap_cause_i  (trap_cause),
    .trap_epc_i    (ex_pc_q),
    .trap_tval_i   (trap_tval),
    .mret_i        (mret),
    .mtvec_o       (mtvec),
    .mepc_o        (mepc),
    .retire_i      (retire),
    .fflags_set_i  (fflags_set_i),
    .fs_dirty_i    (fs_dirty_i),
    .frm_o         (frm_o),
    .fs_on_o       (fs_on_o)
  );

  assign mgmt_csr_rdata_o = dpc_access ? pc_q : csr_mgmt_rdata;
  assign mgmt_csr_err_o   = dpc_access ? 1'b0 : csr_mgmt_err;

  // ---- Completion, traps and the next pc -------------------------------------------------
  logic        ex_done;      // the instruction in EX finishes this cycle
  logic        redirect;     // next pc is not pc + 4 (kept for tracing)
  logic        unused_redirect;
  assign unused_redirect = redirect;
  logic [31:0] next_pc;
  logic        target_misaligned;
  assign target_misaligned = (jump_target[1:0] != 2'b00);

  always_comb begin
    ex_done    = 1'b0;
    trap       = 1'b0;
    trap_cause = wse_pe_pkg::ExcIllegal;
    trap_tval  = 32'd0;
    mret       = 1'b0;
    redirect   = 1'b0;
    next_pc    = pc_plus4;

    if (ex_valid_q) begin
      if (ex_ferr_q) begin
        ex_done    = 1'b1;
        trap       = 1'b1;
        trap_cause = wse_pe_pkg::ExcInstrAccess;
        trap_tval  = ex_pc_q;
      end else if (dec_illegal || cop_illegal) begin
        ex_done    = 1'b1;
        trap       = 1'b1;
        trap_cause = wse_pe_pkg::ExcIllegal;
        trap_tval  = instr;
      end else begin
        unique case (dec_kind)
          wse_pe_pkg::KindBranch, wse_pe_pkg::KindJal, wse_pe_pkg::KindJalr: begin
            ex_done = 1'b1;
            if (dec_kind != wse_pe_pkg::KindBranch || br_taken) begin
              if (target_misaligned) begin
                trap       = 1'b1;
                trap_cause = wse_pe_pkg::ExcInstrMisaligned;
                trap_tval  = jump_target;
              end else begin
                redirect = 1'b1;
                next_pc  = jump_target;
              end
            end
          end
          wse_pe_pkg::KindLoad, wse_pe_pkg::KindStore: begin
            ex_done = lsu_done;
            if (lsu_err) begin
              trap       = 1'b1;
              trap_cause = lsu_err_cause;
              trap_tval  = alu_result;
            end
          end
          wse_pe_pkg::KindMulDiv: ex_done = md_done;
          wse_pe_pkg::KindCop: begin
            ex_done = cop_done;
            if (cop_mem && lsu_err) begin
              trap       = 1'b1;
              trap_cause = lsu_err_cause;
              trap_tval  = alu_result;
            end
          end
          wse_pe_pkg::KindCsr: begin
            ex_done = 1'b1;
            if (csr_illegal) begin
              trap       = 1'b1;
              trap_cause = wse_pe_pkg::ExcIllegal;
              trap_tval  = instr;
            end
          end
          wse_pe_pkg::KindEcall: begin
            ex_done    = 1'b1;
            trap       = 1'b1;
            trap_cause = wse_pe_pkg::ExcEcallM;
          end
          wse_pe_pkg::KindEbreak: begin
            ex_done    = 1'b1;
            trap       = 1'b1;
            trap_cause = wse_pe_pkg::ExcBreakpoint;
            trap_tval  = ex_pc_q;
          end
          wse_pe_pkg::KindMret: begin
            ex_done  = 1'b1;
            mret     = 1'b1;
            redirect = 1'b1;
            next_pc  = mepc;
          end
          default: ex_done = 1'b1;  // ALU, fence, wfi
        endcase
      end
      if (trap) begin
        mret     = 1'b0;
        redirect = 1'b1;
        next_pc  = mtvec;
      end
    end
  end

  assign retire   = ex_valid_q && ex_done && !trap;
  assign retire_o = retire;
  assign retire_pc_o = ex_pc_q;

  // Write-back
  always_comb begin
    unique case (dec_wb_sel)
      wse_pe_pkg::WbPc4:    rf_wdata = pc_plus4;
      wse_pe_pkg::WbLoad:   rf_wdata = lsu_rdata;
      wse_pe_pkg::WbMulDiv: rf_wdata = md_result;
      wse_pe_pkg::WbCsr:    rf_wdata = csr_rdata;
      wse_pe_pkg::WbCop:    rf_wdata = cop_rf_wdata_i;
      default:              rf_wdata = alu_result;
    endcase
  end
  assign rf_we = retire && (dec_kind == wse_pe_pkg::KindCop ? cop_rf_we_i : dec_rf_we);

  // ---- Fetch -----------------------------------------------------------------------------
  logic [31:0] fetch_pc;
  logic        fetch_slot;  // EX is free next cycle
  logic        fetch_in_imem;
  assign fetch_slot    = !ex_valid_q || ex_done;
  assign fetch_pc      = ex_valid_q ? next_pc : pc_q;
  assign fetch_in_imem = (fetch_pc - wse_pe_pkg::ImemBase) < ImemBytes;
  assign instr_req_o   = fetch_slot && !halt_req_i && fetch_in_imem;
  assign instr_addr_o  = fetch_pc;

  always_comb begin
    ex_valid_d = ex_valid_q;
    ex_fresh_d = 1'b0;
    ex_ferr_d  = ex_ferr_q;
    ex_pc_d    = ex_pc_q;
    ex_instr_d = ex_valid_q ? instr : ex_instr_q;
    pc_d       = pc_q;
    if (fetch_slot) begin
      pc_d       = fetch_pc;
      ex_valid_d = 1'b0;
      ex_ferr_d  = 1'b0;
      if (!halt_req_i) begin
        if (!fetch_in_imem) begin
          // Fetch fault: EX takes the trap on this address next cycle.
          ex_valid_d = 1'b1;
          ex_ferr_d  = 1'b1;
          ex_pc_d    = fetch_pc;
        end else if (instr_gnt_i) begin
          ex_valid_d = 1'b1;
          ex_fresh_d = 1'b1;
          ex_pc_d    = fetch_pc;
        end
      end
    end
    // The management port sets the resume pc while the core is halted.
    if (mgmt_csr_req_i && mgmt_csr_we_i && dpc_access && !ex_valid_q) pc_d = mgmt_csr_wdata_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ex_valid_q <= 1'b0;
      ex_fresh_q <= 1'b0;
      ex_ferr_q  <= 1'b0;
      ex_pc_q    <= wse_pe_pkg::BootAddr;
      ex_instr_q <= 32'd0;
      pc_q       <= wse_pe_pkg::BootAddr;
    end else begin
      ex_valid_q <= ex_valid_d;
      ex_fresh_q <= ex_fresh_d;
      ex_ferr_q  <= ex_ferr_d;
      ex_pc_q    <= ex_pc_d;
      ex_instr_q <= ex_instr_d;
      pc_q       <= pc_d;
    end
  end

  assign halted_o = halt_req_i && !ex_valid_q;

  // ---- Assertions ------------------------------------------------------------------------
  `ASSERT_KNOWN(ExValidKnown, ex_valid_q)
  `ASSERT(InstrKnown, !ex_valid_q || ex_ferr_q || !$isunknown(instr))
  `ASSERT(PcAligned, ex_pc_q[1:0] == 2'b00)
  `ASSERT(OneUnitDone, !(md_done && lsu_done))
  `ASSERT(NoWriteOnTrap, !(trap && rf_we))
endmodule
