// Processing element of a tile: the core with its IMEM, banked DMEM and the
// host I/O watcher, plus a management port that reads and writes both
// memories (at the core's own addresses) and the CSRs. The tile wraps this
// with the router and the management node.
`include "prim_assert.svh"

module wse_pe #(
  parameter int unsigned ImemBytes = wse_cfg_pkg::ImemBytes,
  parameter int unsigned DmemBytes = wse_cfg_pkg::DmemBytes,
  parameter int unsigned DmemBanks = wse_cfg_pkg::DmemBanks
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  input  logic                        core_rst_i,  // hold the core (not the memories) in reset
  input  logic [wse_pkg::CoordW-1:0]  x_i,
  input  logic [wse_pkg::CoordW-1:0]  y_i,
  input  logic                        halt_req_i,
  output logic                        halted_o,

  // Management memory port: one 32-bit access at a byte address in IMEM or
  // DMEM. An unmapped address answers err at once (gnt with err).
  input  logic                        mem_req_i,
  input  logic                        mem_we_i,
  input  logic [31:0]                 mem_addr_i,
  input  logic [31:0]                 mem_wdata_i,
  output logic                        mem_gnt_o,
  output logic                        mem_err_o,
  output logic                        mem_rvalid_o,
  output logic [31:0]                 mem_rdata_o,

  // Management CSR port (combinational)
  input  logic                        csr_req_i,
  input  logic                        csr_we_i,
  input  logic [11:0]                 csr_addr_i,
  input  logic [31:0]                 csr_wdata_i,
  output logic [31:0]                 csr_rdata_o,
  output logic                        csr_err_o,

  // Host I/O
  output logic                        exit_valid_o,
  output logic [31:0]                 exit_value_o,
  output logic                        putc_valid_o,
  output logic [7:0]                  putc_char_o,
  input  logic                        putc_ready_i,  // the console takes a character
  output logic                        done_o,
  output logic [31:0]                 exit_code_o,

  output logic                        retire_o,

  // Fabric (RAMP link of the tile's router, docs/fabric.md): router -> PE
  // with per-color credits, PE -> router with per-VC credits.
  input  logic                        fab_in_valid_i,
  input  logic [37:0]                 fab_in_data_i,
  output logic [31:0]                 fab_in_credit_o,
  output logic                        fab_out_valid_o,
  output logic [37:0]                 fab_out_data_o,
  input  logic [wse_cfg_pkg::NumVc-1:0] fab_out_credit_i
);
  localparam int unsigned ImemAW = $clog2(ImemBytes / 4);
  localparam int unsigned DmemAW = $clog2(DmemBytes / 4);

  // The core and the host I/O watcher are reset by the tile reset or by
  // core_rst_i (a register of the management node, so glitch-free).
  logic core_rst_n;
  assign core_rst_n = rst_ni && !core_rst_i;

  // ---- Core ------------------------------------------------------------------------
  logic        instr_req, instr_gnt;
  logic [31:0] instr_addr, instr_rdata;
  logic        data_req, data_gnt, data_we, data_rvalid;
  logic [31:0] data_addr, data_wdata, data_rdata;
  logic [3:0]  data_be;
  logic        cop_req, cop_accept, cop_done, cop_rf_we;
  logic [31:0] cop_instr, cop_rs1, cop_rs2, cop_load_data, cop_rf_wdata, cop_store_data;
  logic        cop_load_valid;
  logic [4:0]  fflags_set;
  logic        fs_dirty, fs_on;
  logic [2:0]  frm;
  logic [31:0] retire_pc;

  wse_pe_core #(
    .ImemBytes (ImemBytes),
    .DmemBytes (DmemBytes)
  ) u_core (
    .clk_i            (clk_i),
    .rst_ni           (core_rst_n),
    .hartid_i         ({y_i, x_i}),
    .halt_req_i       (halt_req_i),
    .halted_o         (halted_o),
    .instr_req_o      (instr_req),
    .instr_addr_o     (instr_addr),
    .instr_gnt_i      (instr_gnt),
    .instr_rdata_i    (instr_rdata),
    .data_req_o       (data_req),
    .data_gnt_i       (data_gnt),
    .data_we_o        (data_we),
    .data_addr_o      (data_addr),
    .data_be_o        (data_be),
    .data_wdata_o     (data_wdata),
    .data_rvalid_i    (data_rvalid),
    .data_rdata_i     (data_rdata),
    // Coprocessor: the F extension (custom opcodes still trap as illegal).
    .cop_req_o        (cop_req),
    .cop_instr_o      (cop_instr),
    .cop_rs1_o        (cop_rs1),
    .cop_rs2_o        (cop_rs2),
    .cop_accept_i     (cop_accept),
    .cop_done_i       (cop_done),
    .cop_rf_we_i      (cop_rf_we),
    .cop_rf_wdata_i   (cop_rf_wdata),
    .cop_load_valid_o (cop_load_valid),
    .cop_load_data_o  (cop_load_data),
    .cop_store_data_i (cop_store_data),
    .fflags_set_i     (fflags_set),
    .fs_dirty_i       (fs_dirty),
    .frm_o            (frm),
    .fs_on_o          (fs_on),
    .mgmt_csr_req_i   (csr_req_i),
    .mgmt_csr_we_i    (csr_we_i),
    .mgmt_csr_addr_i  (csr_addr_i),
    .mgmt_csr_wdata_i (csr_wdata_i),
    .mgmt_csr_rdata_o (csr_rdata_o),
    .mgmt_csr_err_o   (csr_err_o),
    .retire_o         (retire_o),
    .retire_pc_o      (retire_pc)
  );

  // ---- Coprocessors: custom-0 to the dataflow unit, the rest to the F extension
  logic        cop_df;
  logic        fpu_accept, fpu_done, fpu_rf_we, df_accept, df_done, df_rf_we;
  logic [31:0] fpu_rf_wdata, df_rf_wdata;
  assign cop_df       = (cop_instr[6:0] == wse_df_pkg::OpcCustom0);
  assign cop_accept   = cop_df ? df_accept : fpu_accept;
  assign cop_done     = cop_df ? df_done : fpu_done;
  assign cop_rf_we    = cop_df ? df_rf_we : fpu_rf_we;
  assign cop_rf_wdata = cop_df ? df_rf_wdata : fpu_rf_wdata;

  // The FPU's two users: cf_* the F extension, ef_* the vector engine.
  logic          cf_valid, cf_ready, cf_tag, cf_rvalid, cf_rtag;
  logic          ef_valid, ef_ready, ef_hold, ef_rvalid;
  fpu_pkg::req_t cf_req, ef_req;
  fpu_pkg::rsp_t cf_rsp, ef_rsp;

  // ---- F extension -------------------------------------------------------------------
  fpu_cop u_fpu_cop (
    .clk_i            (clk_i),
    .rst_ni           (core_rst_n),  // F registers are core state
    .cop_req_i        (cop_req && !cop_df),
    .cop_instr_i      (cop_instr),
    .cop_rs1_i        (cop_rs1),
    .cop_accept_o     (fpu_accept),
    .cop_done_o       (fpu_done),
    .cop_rf_we_o      (fpu_rf_we),
    .cop_rf_wdata_o   (fpu_rf_wdata),
    .cop_load_valid_i (cop_load_valid),
    .cop_load_data_i  (cop_load_data),
    .cop_store_data_o (cop_store_data),
    .frm_i            (frm),
    .fs_on_i          (fs_on),
    .fflags_set_o     (fflags_set),
    .fs_dirty_o       (fs_dirty),
    .fpu_valid_o      (cf_valid),
    .fpu_req_o        (cf_req),
    .fpu_tag_o        (cf_tag),
    .fpu_ready_i      (cf_ready),
    .fpu_rvalid_i     (cf_rvalid),
    .fpu_rsp_i        (cf_rsp),
    .fpu_tag_i        (cf_rtag)
  );

  // ---- The FPU, shared by the vector engine (first) and the F extension -------------
  wse_pe_fpu u_fpu (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .cop_flush_i  (core_rst_i),
    .eng_valid_i  (ef_valid),
    .eng_req_i    (ef_req),
    .eng_ready_o  (ef_ready),
    .eng_hold_o   (ef_hold),
    .eng_rvalid_o (ef_rvalid),
    .eng_rsp_o    (ef_rsp),
    .cop_valid_i  (cf_valid),
    .cop_req_i    (cf_req),
    .cop_tag_i    (cf_tag),
    .cop_ready_o  (cf_ready),
    .cop_rvalid_o (cf_rvalid),
    .cop_rsp_o    (cf_rsp),
    .cop_tag_o    (cf_rtag)
  );

  // ---- Management address decode --------------------------------------------------
  logic mem_in_imem, mem_in_dmem;
  assign mem_in_imem = (mem_addr_i - wse_pe_pkg::ImemBase) < ImemBytes;
  assign mem_in_dmem = (mem_addr_i - wse_pe_pkg::DmemBase) < DmemBytes;

  // ---- IMEM ------------------------------------------------------------------------
  logic        imem_host_gnt, imem_host_rvalid;
  logic [31:0] imem_host_rdata;

  wse_pe_imem #(
    .ImemBytes (ImemBytes)
  ) u_imem (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .host_req_i    (mem_req_i && mem_in_imem),
    .host_we_i     (mem_we_i),
    .host_addr_i   (mem_addr_i[ImemAW+1:2]),
    .host_be_i     (4'hf),
    .host_wdata_i  (mem_wdata_i),
    .host_gnt_o    (imem_host_gnt),
    .host_rvalid_o (imem_host_rvalid),
    .host_rdata_o  (imem_host_rdata),
    .fetch_req_i   (instr_req),
    .fetch_addr_i  (instr_addr[ImemAW+1:2]),
    .fetch_gnt_o   (instr_gnt),
    .fetch_rdata_o (instr_rdata)
  );

  // ---- Dataflow unit: fabric interface, tasks, vector engine -------------------------
  logic [2:0]          vdm_req, vdm_gnt;
  logic [3*DmemAW-1:0] vdm_addr;
  logic [DmemBanks-1:0] dm_rd_lost;
  logic [31:0]         vdm_wdata;
  logic                vec_busy;

  wse_df #(
    .DmemBytes (DmemBytes),
    .DmemBanks (DmemBanks)
  ) u_df (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .cop_req_i         (cop_req && cop_df),
    .cop_instr_i       (cop_instr),
    .cop_rs1_i         (cop_rs1),
    .cop_rs2_i         (cop_rs2),
    .cop_accept_o      (df_accept),
    .cop_done_o        (df_done),
    .cop_rf_we_o       (df_rf_we),
    .cop_rf_wdata_o    (df_rf_wdata),
    .ramp_in_valid_i   (fab_in_valid_i),
    .ramp_in_data_i    (fab_in_data_i),
    .ramp_in_credit_o  (fab_in_credit_o),
    .ramp_out_valid_o  (fab_out_valid_o),
    .ramp_out_data_o   (fab_out_data_o),
    .ramp_out_credit_i (fab_out_credit_i),
    .dm_req_o          (vdm_req),
    .dm_addr_o         (vdm_addr),
    .dm_wdata_o        (vdm_wdata),
    .dm_gnt_i          (vdm_gnt),
    .dm_rdata_i        (dm_rdata[63:0]),
    .dm_ext_we_i       (|(dm_req[3:2] & dm_we[3:2] & dm_gnt[3:2])),
    .dm_rd_lost_i      (dm_rd_lost),
    .vec_busy_o        (vec_busy),
    .fpu_valid_o       (ef_valid),
    .fpu_req_o         (ef_req),
    .fpu_ready_i       (ef_ready),
    .fpu_hold_i        (ef_hold),
    .fpu_rvalid_i      (ef_rvalid),
    .fpu_rsp_i         (ef_rsp)
  );

  // ---- DMEM: ports 0-1 vector reads, 2 management, 3 core, 4 vector write ----------
  // The vector engine's reads come first: port 1's address is always in
  // another bank than port 0's (wse_df_vec), so both are granted whenever
  // they ask, and the engine's gather needs no grant back from the arbiter in
  // the cycle of its request. A management or core read that loses a bank to
  // the engine is reported (dm_rd_lost); the engine registers it and leaves
  // that bank free the next cycle, so such a read waits one cycle at most.
  // Writes keep management, core, engine.
  logic [4:0]          dm_req, dm_gnt, dm_we, dm_rvalid;
  logic [5*DmemAW-1:0] dm_addr;
  logic [19:0]         dm_be;
  logic [159:0]        dm_wdata, dm_rdata;

  // A core store that would print waits off the arbiter while the console
  // is full (u_hostio).
  logic putc_hold;
  assign dm_req   = {vdm_req[2], data_req && !putc_hold, mem_req_i && mem_in_dmem, vdm_req[1:0]};
  assign dm_we    = {1'b1, data_we, mem_we_i, 2'b00};
  assign dm_addr  = {vdm_addr[3*DmemAW-1:2*DmemAW], data_addr[DmemAW+1:2],
                     mem_addr_i[DmemAW+1:2], vdm_addr[2*DmemAW-1:0]};
  assign dm_be    = {4'hf, data_be, 4'hf, 8'hff};
  assign dm_wdata = {vdm_wdata, data_wdata, mem_wdata_i, 64'd0};
  assign vdm_gnt  = {dm_gnt[4], dm_gnt[1:0]};

  wse_pe_dmem #(
    .DmemBytes  (DmemBytes),
    .NumBanks   (DmemBanks),
    .NumPorts   (5),
    .ReadPorts  (5'b01111),
    .WritePorts (5'b11100)
  ) u_dmem (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .req_i     (dm_req),
    .gnt_o     (dm_gnt),
    .we_i      (dm_we),
    .addr_i    (dm_addr),
    .be_i      (dm_be),
    .wdata_i   (dm_wdata),
    .rvalid_o  (dm_rvalid),
    .rdata_o   (dm_rdata),
    .rd_lost_o (dm_rd_lost)
  );

  assign data_gnt    = dm_gnt[3];
  assign data_rvalid = dm_rvalid[3];
  assign data_rdata  = dm_rdata[127:96];

  // Management responses: IMEM or DMEM read data, whichever was read.
  assign mem_err_o    = mem_req_i && !mem_in_imem && !mem_in_dmem;
  assign mem_gnt_o    = mem_err_o || imem_host_gnt || dm_gnt[2];
  assign mem_rvalid_o = imem_host_rvalid || dm_rvalid[2];
  assign mem_rdata_o  = imem_host_rvalid ? imem_host_rdata : dm_rdata[95:64];

  // ---- Host I/O ---------------------------------------------------------------------
  wse_pe_hostio u_hostio (
    .clk_i        (clk_i),
    .rst_ni       (core_rst_n),
    .req_i        (data_req && data_we),
    .store_i      (data_req && data_gnt && data_we),
    .addr_i       (data_addr),
    .wdata_i      (data_wdata),
    .putc_ready_i (putc_ready_i),
    .hold_o       (putc_hold),
    .exit_valid_o (exit_valid_o),
    .exit_value_o (exit_value_o),
    .putc_valid_o (putc_valid_o),
    .putc_char_o  (putc_char_o),
    .done_o       (done_o),
    .exit_code_o  (exit_code_o)
  );

  // Outputs that the coprocessor and trace consumers will use.
  logic unused_core;
  assign unused_core = ^{dm_rvalid[4], dm_rvalid[1:0], dm_rdata[159:128], vec_busy,
                         retire_pc, instr_addr[31:ImemAW+2], instr_addr[1:0]};

  `ASSERT(MemOneTarget, !(imem_host_rvalid && dm_rvalid[2]))
endmodule
