// Fabric interface and task unit of a PE.
//
// Router -> PE: one queue of RampColorDepth wavelets per color; a credit
// goes back to the router per color for every wavelet taken out, so a color
// nobody reads never blocks another at the RAMP. Wavelets leave a queue by
// a core receive, a vector-engine operand pop, a move-channel pop, or, for a
// control wavelet at the head, by the task unit (which activates the task
// named by its payload). Different colors pop in the same cycle; the engine
// and the move channel popping one color take turns (round robin), and the
// core pops only a color neither of them pops in that cycle.
//
// PE -> router: one output register, per-VC credit counters (VcDepth each),
// the vector engine before the core.
//
// Tasks 0..63. A color bound to a task makes that a data task: it is ready
// while the color's queue holds a data wavelet at its head and the task is
// not blocked. Local and control tasks are ready while active and not
// blocked. The "next" read picks a ready task round-robin (so a storm on one
// color cannot starve another) and clears the activation of a local task.
`include "prim_assert.svh"

module wse_df_fabric #(
  parameter int unsigned NumVc          = wse_cfg_pkg::NumVc,
  parameter int unsigned VcW            = wse_cfg_pkg::VcW,
  parameter int unsigned VcDepth        = wse_cfg_pkg::VcDepth,
  parameter int unsigned RampColorDepth = wse_cfg_pkg::RampColorDepth,
  parameter logic [32*VcW-1:0] ColorVcMap = wse_cfg_pkg::ColorVcMap
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // RAMP, router -> PE
  input  logic              ramp_in_valid_i,
  input  logic [37:0]       ramp_in_data_i,
  output logic [31:0]       ramp_in_credit_o,
  // RAMP, PE -> router
  output logic              ramp_out_valid_o,
  output logic [37:0]       ramp_out_data_o,
  input  logic [NumVc-1:0]  ramp_out_credit_i,
  // Core: pop (receive) and send
  input  logic              cpop_req_i,
  input  logic [4:0]        cpop_color_i,
  output logic              cpop_ok_o,
  output logic [31:0]       cpop_data_o,
  input  logic              csend_req_i,
  input  logic [37:0]       csend_wavelet_i,
  output logic              csend_ok_o,
  input  logic [4:0]        stat_color_i,
  output logic [31:0]       stat_o,
  // Vector engine: pop and send
  input  logic              epop_req_i,
  input  logic [4:0]        epop_color_i,
  output logic              epop_ok_o,
  output logic [31:0]       epop_data_o,
  output logic              epop_ctrl_o,      // the popped wavelet's control bit
  input  logic              esend_req_i,
  input  logic [37:0]       esend_wavelet_i,
  output logic              esend_ok_o,
  // Move channel: pop
  input  logic              mpop_req_i,
  input  logic [4:0]        mpop_color_i,
  output logic              mpop_ok_o,
  output logic [31:0]       mpop_data_o,
  // Task control from the core (one per cycle)
  input  logic              bind_we_i,
  input  logic [4:0]        bind_color_i,
  input  logic [31:0]       bind_wdata_i,
  output logic [31:0]       bind_rdata_o,     // binding of bind_color_i
  input  logic              act_i,            // activate task_id_i
  input  logic              deact_i,
  input  logic              block_i,
  input  logic              unblock_i,
  input  logic [5:0]        task_id_i,
  input  logic              eng_act_i,        // vector completion activates eng_task_i
  input  logic [5:0]        eng_task_i,
  input  logic              mov_act_i,        // move completion activates mov_task_i
  input  logic [5:0]        mov_task_i,
  input  logic              next_take_i,      // the core reads "next" this cycle
  output logic [31:0]       next_o,           // {valid[31], data task[13], color[12:8], task[5:0]}
  output logic [63:0]       active_o,
  output logic [63:0]       blocked_o
);
  localparam int unsigned D  = RampColorDepth;
  localparam int unsigned PW = (D > 1) ? $clog2(D) : 1;
  localparam int unsigned CW = $clog2(D + 1);
  localparam int unsigned VCW = $clog2(VcDepth + 1);

  // ---- Per-color queues ------------------------------------------------------
  // The payloads are in distributed RAM (prim_ram_nr1w), entry k of color c
  // at address {k, c}, read at the heads of the colors the engine, the move
  // channel, the core and the task unit pop. What is needed for every color
  // at once stays in flip-flops: the control bits of the entries, the
  // pointers and counts.
  localparam int unsigned QAW = $clog2(32 * D);
  logic [D-1:0]  qctl_q [32];            // ctrl bit of each entry
  logic [PW-1:0] qrd_q [32];
  logic [PW-1:0] qwr_q [32];
  logic [CW-1:0] qcnt_q [32];
  logic [31:0]   pop;                    // color popped this cycle
  logic [31:0]   push;
  logic [31:0]   nonempty, head_ctrl;
  // BIND bit 30 per color: its control wavelets are data (sparse streams):
  // the task unit leaves them, the pops take them like data wavelets.
  logic [31:0]   bind_cd_q;
  logic [31:0]   hc_task;                // a control head the task unit takes
  logic [4:0]    in_color;
  assign in_color = ramp_in_data_i[36:32];

  always_comb begin
    for (int c = 0; c < 32; c++) begin
      nonempty[c]  = (qcnt_q[c] != '0);
      head_ctrl[c] = qctl_q[c][qrd_q[c]];
      hc_task[c]   = head_ctrl[c] && !bind_cd_q[c];
      push[c]      = ramp_in_valid_i && (in_color == 5'(c));
    end
  end

  // RAM address of entry rd of color c.
  function automatic logic [QAW-1:0] qaddr(input logic [PW-1:0] rd, input logic [4:0] c);
    qaddr = QAW'({rd, c});
  endfunction

  // Control wavelet at a head: consumed by the task unit, lowest color first.
  logic [31:0] ctrl_head;
  logic        ctrl_pop;
  logic [4:0]  ctrl_color;
  assign ctrl_head = nonempty & hc_task;
  prim_prio_enc #(
    .N (32)
  ) u_enc_ctrl (
    .req_i   (ctrl_head),
    .valid_o (ctrl_pop),
    .idx_o   (ctrl_color)
  );

  // Engine and move channel pop first (on one color they alternate: the one
  // that lost the last conflict wins the next); the core may not pop a color
  // either of them pops.
  logic e_can, m_can, em_conflict, mprio_q, mprio_d;
  assign e_can       = epop_req_i && nonempty[epop_color_i] && !hc_task[epop_color_i];
  assign m_can       = mpop_req_i && nonempty[mpop_color_i] && !hc_task[mpop_color_i];
  assign em_conflict = e_can && m_can && (epop_color_i == mpop_color_i);
  assign epop_ok_o   = e_can && !(em_conflict && mprio_q);
  assign mpop_ok_o   = m_can && !(em_conflict && !mprio_q);
  assign mprio_d     = em_conflict ? !mprio_q : mprio_q;
  assign epop_ctrl_o = head_ctrl[epop_color_i];
  assign cpop_ok_o   = cpop_req_i && nonempty[cpop_color_i] && !hc_task[cpop_color_i] &&
                       !(epop_ok_o && epop_color_i == cpop_color_i) &&
                       !(mpop_ok_o && mpop_color_i == cpop_color_i);
  assign stat_o      = {head_ctrl[stat_color_i] && nonempty[stat_color_i], 31'(qcnt_q[stat_color_i])};

  // Head payloads: one RAM copy for each of the three pop ports, and the
  // low six bits (the task a control wavelet activates) for the task unit.
  logic [3*QAW-1:0] hd_raddr;
  logic [3*32-1:0]  hd_rdata;
  logic [QAW-1:0]   q_waddr, ctrl_raddr;
  logic [5:0]       ctrl_task;
  assign q_waddr    = qaddr(qwr_q[in_color], in_color);
  assign ctrl_raddr = qaddr(qrd_q[ctrl_color], ctrl_color);
  assign hd_raddr = {qaddr(qrd_q[cpop_color_i], cpop_color_i),
                     qaddr(qrd_q[mpop_color_i], mpop_color_i),
                     qaddr(qrd_q[epop_color_i], epop_color_i)};
  prim_ram_nr1w #(
    .Width (32),
    .Depth (32 * D),
    .NumRd (3)
  ) u_qdata (
    .clk_i   (clk_i),
    .we_i    (ramp_in_valid_i),
    .waddr_i (q_waddr),
    .wdata_i (ramp_in_data_i[31:0]),
    .raddr_i (hd_raddr),
    .rdata_o (hd_rdata)
  );
  prim_ram_nr1w #(
    .Width (6),
    .Depth (32 * D),
    .NumRd (1)
  ) u_qtask (
    .clk_i   (clk_i),
    .we_i    (ramp_in_valid_i),
    .waddr_i (q_waddr),
    .wdata_i (ramp_in_data_i[5:0]),
    .raddr_i (ctrl_raddr),
    .rdata_o (ctrl_task)
  );
  assign epop_data_o = hd_rdata[31:0];
  assign mpop_data_o = hd_rdata[63:32];
  assign cpop_data_o = hd_rdata[95:64];

  always_comb begin
    pop = '0;
    if (epop_ok_o) pop[epop_color_i] = 1'b1;
    if (mpop_ok_o) pop[mpop_color_i] = 1'b1;
    if (cpop_ok_o) pop[cpop_color_i] = 1'b1;
    if (ctrl_pop)  pop[ctrl_color]   = 1'b1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int c = 0; c < 32; c++) begin
        qrd_q[c]  <= '0;
        qwr_q[c]  <= '0;
        qcnt_q[c] <= '0;
        qctl_q[c] <= '0;
      end
      mprio_q <= 1'b0;
    end else begin
      mprio_q <= mprio_d;
      for (int c = 0; c < 32; c++) begin
        if (push[c]) begin
          qctl_q[c][qwr_q[c]] <= ramp_in_data_i[37];
          qwr_q[c] <= (32'(qwr_q[c]) == D - 1) ? '0 : qwr_q[c] + 1'b1;
        end
        if (pop[c]) qrd_q[c] <= (32'(qrd_q[c]) == D - 1) ? '0 : qrd_q[c] + 1'b1;
        qcnt_q[c] <= qcnt_q[c] + CW'(push[c]) - CW'(pop[c]);
      end
    end
  end
  assign ramp_in_credit_o = pop;

  // ---- Send path ----------------------------------------------------------------
  logic [VCW-1:0] cred_q [NumVc];
  logic [VCW-1:0] cred_d [NumVc];
  logic           out_valid_q, out_valid_d;
  logic [37:0]    out_data_q, out_data_d;
  logic [VcW-1:0] evc, cvc;
  assign evc = ColorVcMap[32'(esend_wavelet_i[36:32])*VcW +: VcW];
  assign cvc = ColorVcMap[32'(csend_wavelet_i[36:32])*VcW +: VcW];
  assign esend_ok_o = esend_req_i && (cred_q[evc] != '0);
  assign csend_ok_o = csend_req_i && !esend_ok_o && (cred_q[cvc] != '0);

  always_comb begin
    out_valid_d = esend_ok_o || csend_ok_o;
    out_data_d  = esend_ok_o ? esend_wavelet_i : csend_wavelet_i;
    for (int v = 0; v < NumVc; v++) begin
      cred_d[v] = cred_q[v] + VCW'(ramp_out_credit_i[v]);
      if (esend_ok_o && evc == VcW'(v)) cred_d[v] = cred_d[v] - 1'b1;
      if (csend_ok_o && cvc == VcW'(v)) cred_d[v] = cred_d[v] - 1'b1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_valid_q <= 1'b0;
      out_data_q  <= '0;
      for (int v = 0; v < NumVc; v++) cred_q[v] <= VCW'(VcDepth);
    end else begin
      out_valid_q <= out_valid_d;
      out_data_q  <= out_data_d;
      for (int v = 0; v < NumVc; v++) cred_q[v] <= cred_d[v];
    end
  end
  assign ramp_out_valid_o = out_valid_q;
  assign ramp_out_data_o  = out_data_q;

  // ---- Tasks ------------------------------------------------------------------------
  logic [31:0] bind_en_q;
  logic [5:0]  bind_task_q [32];
  logic [63:0] act_q, act_d, blk_q, blk_d;
  logic [31:0] bblk_q, bblk_d;           // blocked bit of each color's bound task
  logic [6:0]  last_q, last_d;           // last candidate granted
  // Candidates: 0..63 local/control tasks, 64..95 data colors.
  logic [95:0] ready;
  logic        grant_valid;
  logic [6:0]  grant;

  assign bind_rdata_o = {bind_en_q[bind_color_i], bind_cd_q[bind_color_i], 24'd0,
                         bind_task_q[bind_color_i]};

  always_comb begin
    for (int t = 0; t < 64; t++) ready[t] = act_q[t] && !blk_q[t];
    for (int c = 0; c < 32; c++)
      ready[64 + c] = bind_en_q[c] && nonempty[c] && !hc_task[c] && !bblk_q[c];
  end

  // bblk_q[c] is blk_q[bind_task_q[c]], kept beside them: the next value is
  // the next blocked bit of the next bound task, so it follows every bind,
  // block and unblock in the cycle they take effect. One lookup of the
  // written task per cycle instead of a 64:1 multiplexer per color.
  logic        bind_blk;
  assign bind_blk = blk_d[bind_wdata_i[5:0]];
  always_comb begin
    for (int c = 0; c < 32; c++) begin
      if (bind_we_i && bind_color_i == 5'(c))  bblk_d[c] = bind_blk;
      else if (task_id_i == bind_task_q[c])    bblk_d[c] = blk_d[task_id_i];
      else                                     bblk_d[c] = bblk_q[c];
    end
  end

  // Round-robin: the first ready candidate after the last grant, else the
  // first. Two priority encoders (prim_prio_enc, trees) over the candidates
  // above the last grant and over all of them.
  logic [95:0] above;
  logic        found_hi;
  logic [6:0]  grant_hi, grant_lo;
  // i > last_q by the index's upper three and lower four bits, decoded once
  // each: a comparator per candidate would be a carry chain each.
  logic [7:0]  gt_hi, eq_hi;
  logic [15:0] gt_lo;
  always_comb begin
    for (int h = 0; h < 8; h++) begin
      gt_hi[h] = 3'(h) > last_q[6:4];
      eq_hi[h] = 3'(h) == last_q[6:4];
    end
    for (int l = 0; l < 16; l++) gt_lo[l] = 4'(l) > last_q[3:0];
    for (int i = 0; i < 96; i++) above[i] = gt_hi[i / 16] || (eq_hi[i / 16] && gt_lo[i % 16]);
  end
  prim_prio_enc #(
    .N (96)
  ) u_enc_hi (
    .req_i   (ready & above),
    .valid_o (found_hi),
    .idx_o   (grant_hi)
  );
  prim_prio_enc #(
    .N (96)
  ) u_enc_lo (
    .req_i   (ready),
    .valid_o (grant_valid),
    .idx_o   (grant_lo)
  );
  assign grant = found_hi ? grant_hi : grant_lo;

  always_comb begin
    if (!grant_valid) begin
      next_o = '0;
    end else if (grant >= 7'd64) begin
      next_o = {1'b1, 17'd0, 1'b1, grant[4:0], 2'b0, bind_task_q[grant[4:0]]};
    end else begin
      next_o = {1'b1, 17'd0, 1'b0, 5'd0, 2'b0, grant[5:0]};
    end
  end

  always_comb begin
    act_d  = act_q;
    blk_d  = blk_q;
    last_d = last_q;
    if (next_take_i && grant_valid) begin
      last_d = grant;
      if (grant < 7'd64) act_d[grant[5:0]] = 1'b0;
    end
    if (ctrl_pop) act_d[ctrl_task] = 1'b1;
    if (eng_act_i) act_d[eng_task_i] = 1'b1;
    if (mov_act_i) act_d[mov_task_i] = 1'b1;
    if (act_i)     act_d[task_id_i] = 1'b1;
    if (deact_i)   act_d[task_id_i] = 1'b0;
    if (block_i)   blk_d[task_id_i] = 1'b1;
    if (unblock_i) blk_d[task_id_i] = 1'b0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      bind_en_q <= '0;
      bind_cd_q <= '0;
      for (int c = 0; c < 32; c++) bind_task_q[c] <= '0;
      bblk_q <= '0;
      act_q  <= '0;
      blk_q  <= '0;
      last_q <= 7'd95;
    end else begin
      if (bind_we_i) begin
        bind_en_q[bind_color_i]   <= bind_wdata_i[31];
        bind_cd_q[bind_color_i]   <= bind_wdata_i[30];
        bind_task_q[bind_color_i] <= bind_wdata_i[5:0];
      end
      bblk_q <= bblk_d;
      act_q  <= act_d;
      blk_q  <= blk_d;
      last_q <= last_d;
    end
  end
  logic unused;
  assign unused = ^bind_wdata_i[29:6];
  assign active_o  = act_q;
  assign blocked_o = blk_q;

  logic [CW-1:0] in_cnt;
  assign in_cnt = qcnt_q[in_color];
  `ASSERT(NoPushWhenFull, !(ramp_in_valid_i && 32'(in_cnt) == D))
  logic cred_ok;
  always_comb begin
    cred_ok = 1'b1;
    for (int v = 0; v < NumVc; v++) if (cred_q[v] > VCW'(VcDepth)) cred_ok = 1'b0;
  end
  `ASSERT(CreditNotAboveDepth, cred_ok)
  // bblk_q mirrors the blocked bit of each color's bound task
  logic bblk_ok;
  always_comb begin
    bblk_ok = 1'b1;
    for (int c = 0; c < 32; c++) if (bblk_q[c] != blk_q[bind_task_q[c]]) bblk_ok = 1'b0;
  end
  `ASSERT(BoundBlockedMirror, bblk_ok)
  `ASSERT(OneSendPerCycle, !(esend_ok_o && csend_ok_o))
  `ASSERT(OnePopPerColor, !(epop_ok_o && mpop_ok_o && epop_color_i == mpop_color_i))
  `COVER(EngineMovePopConflict, em_conflict)
  logic q3_full;
  assign q3_full = qcnt_q[3] == CW'(D);
  `COVER(StormQueueFull, q3_full)
endmodule
