// Dataflow unit of a PE: the fabric interface with its task unit, the
// vector engine and the move channel (fabric -> memory beside the engine),
// reached from the core through the custom-0 coprocessor
// instructions df.rd (I-type, funct3 0) and df.wr (S-type, funct3 1), which
// read or write the register window at rs1 + imm (wse_df_pkg,
// docs/pe-programming.md). An access completes when its effect is possible:
// a receive waits for a wavelet, a send for a credit, an issue for room in
// the operation (or move) queue, a wait for the engine (or move channel) to
// be idle. The engine and the move channel share the DMEM write port: when
// both write in one cycle, the one that lost the last such conflict wins.
`include "prim_assert.svh"

module wse_df #(
  parameter int unsigned DmemBytes = wse_cfg_pkg::DmemBytes,
  parameter int unsigned DmemBanks = wse_cfg_pkg::DmemBanks,
  parameter int unsigned NumVc     = wse_cfg_pkg::NumVc,
  localparam int unsigned AW = $clog2(DmemBytes / 4)
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  // Coprocessor port (custom-0 instructions only)
  input  logic               cop_req_i,
  input  logic [31:0]        cop_instr_i,
  input  logic [31:0]        cop_rs1_i,
  input  logic [31:0]        cop_rs2_i,
  output logic               cop_accept_o,
  output logic               cop_done_o,
  output logic               cop_rf_we_o,
  output logic [31:0]        cop_rf_wdata_o,
  // RAMP
  input  logic               ramp_in_valid_i,
  input  logic [37:0]        ramp_in_data_i,
  output logic [31:0]        ramp_in_credit_o,
  output logic               ramp_out_valid_o,
  output logic [37:0]        ramp_out_data_o,
  input  logic [NumVc-1:0]   ramp_out_credit_i,
  // DMEM: two read ports and one write port
  output logic [2:0]         dm_req_o,       // {write, read 1, read 0}
  output logic [3*AW-1:0]    dm_addr_o,
  output logic [31:0]        dm_wdata_o,
  input  logic [2:0]         dm_gnt_i,
  input  logic [63:0]        dm_rdata_i,     // {read 1, read 0}
  input  logic               dm_ext_we_i,    // a core or management store to DMEM
  input  logic [DmemBanks-1:0] dm_rd_lost_i,   // banks where a core or management read lost
  output logic               vec_busy_o,
  // The PE's FPU (wse_pe_fpu), for the vector engine
  output logic               fpu_valid_o,
  output fpu_pkg::req_t      fpu_req_o,
  input  logic               fpu_ready_i,
  input  logic               fpu_hold_i,
  input  logic               fpu_rvalid_i,
  input  fpu_pkg::rsp_t      fpu_rsp_i
);
  logic        is_rd, is_wr;
  logic [11:0] imm, a;
  assign is_rd = cop_instr_i[14:12] == wse_df_pkg::F3Read;
  assign is_wr = cop_instr_i[14:12] == wse_df_pkg::F3Write;
  assign imm   = is_wr ? {cop_instr_i[31:25], cop_instr_i[11:7]} : cop_instr_i[31:20];
  assign a     = cop_rs1_i[11:0] + imm;
  assign cop_accept_o = (cop_instr_i[6:0] == wse_df_pkg::OpcCustom0) && (is_rd || is_wr);

  logic rd, wr;
  assign rd = cop_req_i && cop_accept_o && is_rd;
  assign wr = cop_req_i && cop_accept_o && is_wr;

  // ---- Blocks ---------------------------------------------------------------------
  logic        cpop_ok, csend_ok, epop_req, epop_ok, esend_req, esend_ok;
  logic [31:0] cpop_data, stat, epop_data, bind_rdata, next;
  logic [4:0]  epop_color;
  logic [37:0] esend_wavelet;
  logic [63:0] active, blocked;
  logic        eng_act, vop_ok, busy;
  logic [5:0]  eng_task;
  logic [31:0] dsd_rdata, vstatus, vdone;
  logic [4:0]  vflags;
  logic        vsp_err, epop_ctrl;
  logic        mpop_req, mpop_ok, mov_act, mov_req, mov_ok, mov_room, mov_push, mov_rej;
  logic        mbusy;
  logic [4:0]  mpop_color, mov_color;
  logic [31:0] mpop_data, mstatus, mdone;
  logic [5:0]  mov_task;

  logic sel_q, sel_send, sel_ctl, sel_bind, sel_dsd;
  assign sel_q    = a[11:5] == 7'h00;   // 0x000-0x01f
  assign sel_ctl  = a[11:5] == 7'h01;   // 0x020-0x03f
  assign sel_bind = a[11:5] == 7'h02;   // 0x040-0x05f
  assign sel_dsd  = a[11:6] == 6'h02;   // 0x080-0x0bf
  assign sel_send = wr && (sel_q || sel_ctl);

  wse_df_fabric u_fabric (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .ramp_in_valid_i   (ramp_in_valid_i),
    .ramp_in_data_i    (ramp_in_data_i),
    .ramp_in_credit_o  (ramp_in_credit_o),
    .ramp_out_valid_o  (ramp_out_valid_o),
    .ramp_out_data_o   (ramp_out_data_o),
    .ramp_out_credit_i (ramp_out_credit_i),
    .cpop_req_i        (rd && sel_q),
    .cpop_color_i      (a[4:0]),
    .cpop_ok_o         (cpop_ok),
    .cpop_data_o       (cpop_data),
    .csend_req_i       (sel_send),
    .csend_wavelet_i   ({sel_ctl, a[4:0], cop_rs2_i}),
    .csend_ok_o        (csend_ok),
    .stat_color_i      (a[4:0]),
    .stat_o            (stat),
    .epop_req_i        (epop_req),
    .epop_color_i      (epop_color),
    .epop_ok_o         (epop_ok),
    .epop_data_o       (epop_data),
    .epop_ctrl_o       (epop_ctrl),
    .esend_req_i       (esend_req),
    .esend_wavelet_i   (esend_wavelet),
    .esend_ok_o        (esend_ok),
    .mpop_req_i        (mpop_req),
    .mpop_color_i      (mpop_color),
    .mpop_ok_o         (mpop_ok),
    .mpop_data_o       (mpop_data),
    .bind_we_i         (wr && sel_bind),
    .bind_color_i      (a[4:0]),
    .bind_wdata_i      (cop_rs2_i),
    .bind_rdata_o      (bind_rdata),
    .act_i             (wr && a == wse_df_pkg::RegNext),
    .deact_i           (wr && a == wse_df_pkg::RegActive),
    .block_i           (wr && a == wse_df_pkg::RegBlock),
    .unblock_i         (wr && a == wse_df_pkg::RegUnblock),
    .task_id_i         (cop_rs2_i[5:0]),
    .eng_act_i         (eng_act),
    .eng_task_i        (eng_task),
    .mov_act_i         (mov_act),
    .mov_task_i        (mov_task),
    .next_take_i       (rd && a == wse_df_pkg::RegNext),
    .next_o            (next),
    .active_o          (active),
    .blocked_o         (blocked)
  );

  logic [AW-1:0] rd0_addr, rd1_addr, vwr_addr, mwr_addr, mov_base;
  logic [31:0]   vwr_data, mwr_data;
  logic          vwr_req, vwr_gnt, mwr_req, mwr_gnt;
  logic [15:0]   mov_len0, mov_st0, mov_len1, mov_st1;
  assign mov_req = wr && a == wse_df_pkg::RegMov;
  wse_df_vec #(
    .DmemBytes (DmemBytes),
    .DmemBanks (DmemBanks)
  ) u_vec (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .dsd_we_i       (wr && sel_dsd),
    .dsd_idx_i      (a[5:3]),
    .dsd_field_i    (a[2:0]),
    .dsd_wdata_i    (cop_rs2_i),
    .dsd_rdata_o    (dsd_rdata),
    .scalar_we_i    (wr && a == wse_df_pkg::RegVscalar),
    .scalar_i       (cop_rs2_i),
    .vop_req_i      (wr && a == wse_df_pkg::RegVop),
    .vop_i          (cop_rs2_i),
    .vop_ok_o       (vop_ok),
    .flags_clr_i    (wr && a == wse_df_pkg::RegVflags),
    .flags_o        (vflags),
    .sp_err_o       (vsp_err),
    .busy_o         (busy),
    .status_o       (vstatus),
    .done_cnt_o     (vdone),
    .mov_req_i      (mov_req),
    .mov_ok_o       (mov_ok),
    .mov_room_i     (mov_room),
    .mov_push_o     (mov_push),
    .mov_rej_o      (mov_rej),
    .mov_base_o     (mov_base),
    .mov_len0_o     (mov_len0),
    .mov_st0_o      (mov_st0),
    .mov_len1_o     (mov_len1),
    .mov_st1_o      (mov_st1),
    .mov_color_o    (mov_color),
    .mov_wr_i       (mwr_req && mwr_gnt),
    .mov_wr_addr_i  (mwr_addr),
    .rd0_req_o      (dm_req_o[0]),
    .rd0_addr_o     (rd0_addr),
    .rd0_gnt_i      (dm_gnt_i[0]),
    .rd0_data_i     (dm_rdata_i[31:0]),
    .rd1_req_o      (dm_req_o[1]),
    .rd1_addr_o     (rd1_addr),
    .rd1_gnt_i      (dm_gnt_i[1]),
    .rd1_data_i     (dm_rdata_i[63:32]),
    .wr_req_o       (vwr_req),
    .wr_addr_o      (vwr_addr),
    .wr_data_o      (vwr_data),
    .wr_gnt_i       (vwr_gnt),
    .ext_we_i       (dm_ext_we_i),
    .rd_lost_i      (dm_rd_lost_i),
    .pop_req_o      (epop_req),
    .pop_color_o    (epop_color),
    .pop_ok_i       (epop_ok),
    .pop_data_i     (epop_data),
    .pop_ctrl_i     (epop_ctrl),
    .send_req_o     (esend_req),
    .send_wavelet_o (esend_wavelet),
    .send_ok_i      (esend_ok),
    .act_o          (eng_act),
    .act_task_o     (eng_task),
    .fpu_valid_o    (fpu_valid_o),
    .fpu_req_o      (fpu_req_o),
    .fpu_ready_i    (fpu_ready_i),
    .fpu_hold_i     (fpu_hold_i),
    .fpu_rvalid_i   (fpu_rvalid_i),
    .fpu_rsp_i      (fpu_rsp_i)
  );

  wse_df_mov #(
    .DmemBytes (DmemBytes)
  ) u_mov (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .push_i       (mov_push),
    .rej_i        (mov_rej),
    .push_base_i  (mov_base),
    .push_len0_i  (mov_len0),
    .push_st0_i   (mov_st0),
    .push_len1_i  (mov_len1),
    .push_st1_i   (mov_st1),
    .push_color_i (mov_color),
    .push_ten_i   (cop_rs2_i[15]),
    .push_tid_i   (cop_rs2_i[21:16]),
    .room_o       (mov_room),
    .err_clr_i    (wr && a == wse_df_pkg::RegMdone),
    .busy_o       (mbusy),
    .status_o     (mstatus),
    .done_cnt_o   (mdone),
    .pop_req_o    (mpop_req),
    .pop_color_o  (mpop_color),
    .pop_ok_i     (mpop_ok),
    .pop_data_i   (mpop_data),
    .wr_req_o     (mwr_req),
    .wr_addr_o    (mwr_addr),
    .wr_data_o    (mwr_data),
    .wr_gnt_i     (mwr_gnt),
    .act_o        (mov_act),
    .act_task_o   (mov_task)
  );

  // DMEM write port: engine or move channel; on a conflict the loser of the
  // previous conflict goes first, so neither starves.
  logic wsel_mov, wprio_q, wprio_d;
  assign wsel_mov   = mwr_req && (!vwr_req || wprio_q);
  assign vwr_gnt    = dm_gnt_i[2] && !wsel_mov;
  assign mwr_gnt    = dm_gnt_i[2] && wsel_mov;
  assign dm_req_o[2] = vwr_req || mwr_req;
  assign dm_wdata_o = wsel_mov ? mwr_data : vwr_data;
  assign wprio_d    = (vwr_req && mwr_req && dm_gnt_i[2]) ? !wsel_mov : wprio_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) wprio_q <= 1'b0;
    else         wprio_q <= wprio_d;
  end

  assign dm_addr_o  = {wsel_mov ? mwr_addr : vwr_addr, rd1_addr, rd0_addr};
  assign vec_busy_o = busy || mbusy;

  // ---- Completion and read data --------------------------------------------------------
  always_comb begin
    cop_done_o     = 1'b0;
    cop_rf_we_o    = 1'b0;
    cop_rf_wdata_o = '0;
    if (rd) begin
      cop_rf_we_o = 1'b1;
      cop_done_o  = 1'b1;
      if (sel_q) begin
        cop_done_o     = cpop_ok;
        cop_rf_wdata_o = cpop_data;
      end else if (sel_ctl) begin
        cop_rf_wdata_o = stat;
      end else if (sel_bind) begin
        cop_rf_wdata_o = bind_rdata;
      end else if (sel_dsd) begin
        cop_rf_wdata_o = dsd_rdata;
      end else begin
        unique case (a)
          wse_df_pkg::RegNext:    cop_rf_wdata_o = next;
          wse_df_pkg::RegBlock:   cop_rf_wdata_o = blocked[31:0];
          wse_df_pkg::RegUnblock: cop_rf_wdata_o = blocked[63:32];
          wse_df_pkg::RegActive:  cop_rf_wdata_o = active[31:0];
          wse_df_pkg::RegActiveH: cop_rf_wdata_o = active[63:32];
          wse_df_pkg::RegVop:     cop_rf_wdata_o = vstatus;
          wse_df_pkg::RegVflags:  cop_rf_wdata_o = {23'd0, vsp_err, 3'd0, vflags};
          wse_df_pkg::RegVwait: begin
            cop_done_o     = !busy;
            cop_rf_wdata_o = {23'd0, vsp_err, 3'd0, vflags};
          end
          wse_df_pkg::RegVdone:   cop_rf_wdata_o = vdone;
          wse_df_pkg::RegMov:     cop_rf_wdata_o = mstatus;
          wse_df_pkg::RegMdone:   cop_rf_wdata_o = mdone;
          wse_df_pkg::RegMwait: begin
            cop_done_o     = !mbusy;
            cop_rf_wdata_o = mdone;
          end
          default:                cop_rf_wdata_o = '0;
        endcase
      end
    end else if (wr) begin
      cop_done_o = 1'b1;
      if (sel_q || sel_ctl) cop_done_o = csend_ok;
      else if (a == wse_df_pkg::RegVop) cop_done_o = vop_ok;
      else if (mov_req) cop_done_o = mov_ok;
    end
  end

  logic unused;
  assign unused = ^{cop_instr_i[19:15], cop_rs1_i[31:12]};

  `ASSERT(NoDoneWithoutReq, !cop_done_o || cop_req_i)
  `ASSERT(OneWriteGrant, !(vwr_gnt && mwr_gnt))
  `COVER(WritePortConflict, vwr_req && mwr_req)
endmodule
