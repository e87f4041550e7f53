// Machine-mode CSR file of the tile core: trap state, counters, identity.
// Two access ports: the executing CSR instruction, and the management port
// (used while the tile is halted). Trap entry and mret update the trap
// state directly.
module wse_pe_csr (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [15:0] hartid_i,       // {y, x} tile coordinates

  // CSR instruction in the execute stage
  input  logic        csr_req_i,      // the instruction executes this cycle
  input  logic [11:0] csr_addr_i,
  input  logic [1:0]  csr_op_i,       // funct3[1:0]: 01 write, 10 set, 11 clear
  input  logic        csr_write_i,    // the instruction writes (rs1/uimm != 0 or csrrw)
  input  logic [31:0] csr_wdata_i,    // rs1 value or zero-extended uimm
  output logic [31:0] csr_rdata_o,
  output logic        csr_illegal_o,  // no such CSR, or a write to a read-only one

  // Management access (a full 32-bit read or write)
  input  logic        mgmt_req_i,
  input  logic        mgmt_we_i,
  input  logic [11:0] mgmt_addr_i,
  input  logic [31:0] mgmt_wdata_i,
  output logic [31:0] mgmt_rdata_o,
  output logic        mgmt_err_o,

  // Trap entry and return
  input  logic        trap_i,
  input  logic [4:0]  trap_cause_i,
  input  logic [31:0] trap_epc_i,
  input  logic [31:0] trap_tval_i,
  input  logic        mret_i,
  output logic [31:0] mtvec_o,
  output logic [31:0] mepc_o,

  input  logic        retire_i,       // an instruction retired this cycle

  // F extension: fcsr lives here; the FPU coprocessor reads frm and the
  // FS state and ORs the flags of each completed operation into fflags.
  input  logic [4:0]  fflags_set_i,
  input  logic        fs_dirty_i,     // an F instruction changed F state
  output logic [2:0]  frm_o,
  output logic        fs_on_o         // mstatus.FS != Off: F instructions legal
);
  logic        mie_q, mie_d;          // mstatus.MIE
  logic [1:0]  fs_q, fs_d;            // mstatus.FS
  logic [4:0]  fflags_q, fflags_d;
  logic [2:0]  frm_q, frm_d;
  logic        mpie_q, mpie_d;        // mstatus.MPIE
  logic [31:0] mtvec_q, mtvec_d;
  logic [31:0] mscratch_q, mscratch_d;
  logic [31:0] mepc_q, mepc_d;
  logic [31:0] mcause_q, mcause_d;
  logic [31:0] mtval_q, mtval_d;
  logic [2:0]  mie_en_q, mie_en_d;    // mie.{MEIE, MTIE, MSIE}
  logic [2:0]  inhibit_q, inhibit_d;  // mcountinhibit.{IR, -, CY} as {IR, TM, CY}
  logic [63:0] mcycle_q, mcycle_d;
  logic [63:0] minstret_q, minstret_d;

  // Read multiplexer, once per port: {unknown CSR, value}.
  logic [32:0] csr_rd, mgmt_rd;
  logic [32:0] rd [2];
  logic [11:0] rd_addr [2];
  assign rd_addr[0] = csr_addr_i;
  assign rd_addr[1] = mgmt_addr_i;
  always_comb begin
    for (int p = 0; p < 2; p++) begin
      rd[p] = {1'b0, 32'd0};
      unique case (rd_addr[p])
        wse_pe_pkg::CsrMstatus:   rd[p][31:0] = {fs_q == 2'b11, 16'd0, fs_q, 2'b11, 3'd0, mpie_q,
                                                 3'd0, mie_q, 3'd0};
        wse_pe_pkg::CsrFflags:    rd[p][31:0] = {27'd0, fflags_q};
        wse_pe_pkg::CsrFrm:       rd[p][31:0] = {29'd0, frm_q};
        wse_pe_pkg::CsrFcsr:      rd[p][31:0] = {24'd0, frm_q, fflags_q};
        wse_pe_pkg::CsrMisa:      rd[p][31:0] = wse_pe_pkg::MisaValue;
        wse_pe_pkg::CsrMie:       rd[p][31:0] = {20'd0, mie_en_q[2], 3'd0, mie_en_q[1], 3'd0,
                                                 mie_en_q[0], 3'd0};
        wse_pe_pkg::CsrMtvec:     rd[p][31:0] = mtvec_q;
        wse_pe_pkg::CsrMstatush:  rd[p][31:0] = 32'd0;
        wse_pe_pkg::CsrMcountinhibit: rd[p][31:0] = {29'd0, inhibit_q[2], 1'b0, inhibit_q[0]};
        wse_pe_pkg::CsrMscratch:  rd[p][31:0] = mscratch_q;
        wse_pe_pkg::CsrMepc:      rd[p][31:0] = mepc_q;
        wse_pe_pkg::CsrMcause:    rd[p][31:0] = mcause_q;
        wse_pe_pkg::CsrMtval:     rd[p][31:0] = mtval_q;
        wse_pe_pkg::CsrMip:       rd[p][31:0] = 32'd0;
        wse_pe_pkg::CsrMcycle,    wse_pe_pkg::CsrCycle:    rd[p][31:0] = mcycle_q[31:0];
        wse_pe_pkg::CsrMcycleh,   wse_pe_pkg::CsrCycleh:   rd[p][31:0] = mcycle_q[63:32];
        wse_pe_pkg::CsrMinstret,  wse_pe_pkg::CsrInstret:  rd[p][31:0] = minstret_q[31:0];
        wse_pe_pkg::CsrMinstreth, wse_pe_pkg::CsrInstreth: rd[p][31:0] = minstret_q[63:32];
        wse_pe_pkg::CsrMvendorid, wse_pe_pkg::CsrMarchid, wse_pe_pkg::CsrMimpid:
                                  rd[p][31:0] = 32'd0;
        wse_pe_pkg::CsrMhartid:   rd[p][31:0] = {16'd0, hartid_i};
        default:                  rd[p][32] = 1'b1;
      endcase
    end
  end
  assign csr_rd  = rd[0];
  assign mgmt_rd = rd[1];
  assign csr_rdata_o  = csr_rd[31:0];
  assign mgmt_rdata_o = mgmt_rd[31:0];

  // Addresses 0xC00-0xFFF are read-only by encoding.
  logic csr_ro, mgmt_ro;
  assign csr_ro  = (csr_addr_i[11:10] == 2'b11);
  assign mgmt_ro = (mgmt_addr_i[11:10] == 2'b11);
  // fcsr and its fields are accessible only while mstatus.FS is not Off.
  logic csr_fp;
  assign csr_fp = (csr_addr_i == wse_pe_pkg::CsrFflags) || (csr_addr_i == wse_pe_pkg::CsrFrm) ||
                  (csr_addr_i == wse_pe_pkg::CsrFcsr);
  assign csr_illegal_o = csr_rd[32] || (csr_write_i && csr_ro) || (csr_fp && fs_q == 2'b00);
  assign mgmt_err_o    = mgmt_rd[32] || (mgmt_we_i && mgmt_ro);

  // One write per cycle: the instruction's, else the management port's.
  logic        wr_en;
  logic [11:0] wr_addr;
  logic [31:0] wr_data;
  always_comb begin
    wr_en   = 1'b0;
    wr_addr = csr_addr_i;
    wr_data = csr_wdata_i;
    if (csr_req_i && csr_write_i && !csr_illegal_o) begin
      wr_en = 1'b1;
      unique case (csr_op_i)
        2'b10:   wr_data = csr_rd[31:0] | csr_wdata_i;
        2'b11:   wr_data = csr_rd[31:0] & ~csr_wdata_i;
        default: wr_data = csr_wdata_i;
      endcase
    end else if (mgmt_req_i && mgmt_we_i && !mgmt_err_o) begin
      wr_en   = 1'b1;
      wr_addr = mgmt_addr_i;
      wr_data = mgmt_wdata_i;
    end
  end

  always_comb begin
    mie_d      = mie_q;
    mpie_d     = mpie_q;
    fs_d       = fs_dirty_i ? 2'b11 : fs_q;
    fflags_d   = fflags_q | fflags_set_i;
    frm_d      = frm_q;
    mtvec_d    = mtvec_q;
    mscratch_d = mscratch_q;
    mepc_d     = mepc_q;
    mcause_d   = mcause_q;
    mtval_d    = mtval_q;
    mie_en_d   = mie_en_q;
    inhibit_d  = inhibit_q;
    mcycle_d   = inhibit_q[0] ? mcycle_q : mcycle_q + 64'd1;
    minstret_d = (retire_i && !inhibit_q[2]) ? minstret_q + 64'd1 : minstret_q;

    if (wr_en) begin
      unique case (wr_addr)
        wse_pe_pkg::CsrMstatus: begin
          mie_d  = wr_data[3];
          mpie_d = wr_data[7];
          fs_d   = wr_data[14:13];
        end
        // A write to fcsr state marks it dirty, as any F state change does.
        wse_pe_pkg::CsrFflags: begin
          fflags_d = wr_data[4:0];
          fs_d     = 2'b11;
        end
        wse_pe_pkg::CsrFrm: begin
          frm_d = wr_data[2:0];
          fs_d  = 2'b11;
        end
        wse_pe_pkg::CsrFcsr: begin
          {frm_d, fflags_d} = wr_data[7:0];
          fs_d              = 2'b11;
        end
        wse_pe_pkg::CsrMie:       mie_en_d  = {wr_data[11], wr_data[7], wr_data[3]};
        wse_pe_pkg::CsrMtvec:     mtvec_d   = {wr_data[31:2], 2'b00};  // direct mode only
        wse_pe_pkg::CsrMcountinhibit: inhibit_d = {wr_data[2], 1'b0, wr_data[0]};
        wse_pe_pkg::CsrMscratch:  mscratch_d = wr_data;
        wse_pe_pkg::CsrMepc:      mepc_d    = {wr_data[31:2], 2'b00};  // IALIGN = 32
        wse_pe_pkg::CsrMcause:    mcause_d  = wr_data;
        wse_pe_pkg::CsrMtval:     mtval_d   = wr_data;
        // A write to either half of a 64-bit counter is done instead of
        // this cycle's increment of the whole counter (privileged spec): the
        // other half keeps its value, and nothing carries in or out.
        wse_pe_pkg::CsrMcycle:    mcycle_d   = {mcycle_q[63:32], wr_data};
        wse_pe_pkg::CsrMcycleh:   mcycle_d   = {wr_data, mcycle_q[31:0]};
        wse_pe_pkg::CsrMinstret:  minstret_d = {minstret_q[63:32], wr_data};
        wse_pe_pkg::CsrMinstreth: minstret_d = {wr_data, minstret_q[31:0]};
        default: ;
      endcase
    end

    if (trap_i) begin
      mepc_d   = trap_epc_i;
      mcause_d = {27'd0, trap_cause_i};
      mtval_d  = trap_tval_i;
      mpie_d   = mie_q;
      mie_d    = 1'b0;
    end else if (mret_i) begin
      mie_d  = mpie_q;
      mpie_d = 1'b1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mie_q      <= 1'b0;
      mpie_q     <= 1'b0;
      fs_q       <= 2'b00;
      fflags_q   <= 5'd0;
      frm_q      <= 3'd0;
      mtvec_q    <= wse_pe_pkg::BootAddr;
      mscratch_q <= 32'd0;
      mepc_q     <= 32'd0;
      mcause_q   <= 32'd0;
      mtval_q    <= 32'd0;
      mie_en_q   <= 3'd0;
      inhibit_q  <= 3'd0;
      mcycle_q   <= 64'd0;
      minstret_q <= 64'd0;
    end else begin
      mie_q      <= mie_d;
      mpie_q     <= mpie_d;
      fs_q       <= fs_d;
      fflags_q   <= fflags_d;
      frm_q      <= frm_d;
      mtvec_q    <= mtvec_d;
      mscratch_q <= mscratch_d;
      mepc_q     <= mepc_d;
      mcause_q   <= mcause_d;
      mtval_q    <= mtval_d;
      mie_en_q   <= mie_en_d;
      inhibit_q  <= inhibit_d;
      mcycle_q   <= mcycle_d;
      minstret_q <= minstret_d;
    end
  end

  assign frm_o   = frm_q;
  assign fs_on_o = (fs_q != 2'b00);
  assign mtvec_o = mtvec_q;
  assign mepc_o  = mepc_q;
endmodule
