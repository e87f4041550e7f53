// Vector (DSD) engine of a PE. Operations on descriptors run beside the core
// at up to one element per cycle: memory operands are read through two DMEM
// read ports, results are written through one write port, fabric operands are
// popped from the color queues and fabric results sent on the RAMP.
//
//   issue   the operation word snapshots its three descriptors into a queue
//           of QDepth operations (the core goes on at once unless it is full);
//           each descriptor's base then advances by its ADV field.
//   G       gathers one element's operands: up to two memory reads per cycle
//           (different banks), one fabric pop per cycle; an element whose
//           reads hit the same bank takes a second cycle. A read of an
//           address that a pending result will write waits for that write.
//   X       read data arrive; the element enters the FPU (2 cycles).
//   W       results retire in order from a RobDepth-entry completion queue:
//           DMEM write or RAMP send. The last element of an operation may
//           activate a task.
// Element order: i1 (passes) outer, i0 inner; operand address
// base + i1*stride1 + i0*stride0 (words), shape from the dst descriptor.
// The descriptor registers also serve the move channel (wse_df_mov): a move
// issue snapshots its dst and a descriptors for it, and the channel's DMEM
// writes drop matching entries of the operand cache.
// SPMACS (a sparse share on b's color, docs/pe-programming.md): a sequencer
// pops the share's index wavelets and values while the previous value's
// pass runs, decodes the gap codes into the slot of the next pass (its dst
// and a rows, base + slot*stride1) and drops values out of range (sticky
// error); each pass is LEN0 elements of FMULS (the share's first value)
// or FMACS with the value as scalar; an empty share is one pass of +0, an
// operation that ends without a pass one element that writes nothing.
// SPIDX (an index-only share on b's color) runs the same decoder, writing
// the slots below dst's LEN0 into the gather table (wse_df_gather), one a
// cycle, and ends with one element that writes nothing, which commits the
// table's count n. A gathered operation (WSE_VOP_GATHER) runs n elements a
// pass, its a addresses streamed from the table (base + slot*stride0 +
// i1*stride1); with n = 0, or refused (a on the fabric, the flag on SPMACS
// or SPIDX), it is one element that writes nothing. No operation looks
// ahead into an SPIDX or a gathered operation, so a gathered operation
// reads the table only once the SPIDX before it has committed.
`include "prim_assert.svh"

module wse_df_vec #(
  parameter int unsigned DmemBytes = wse_cfg_pkg::DmemBytes,
  parameter int unsigned DmemBanks = wse_cfg_pkg::DmemBanks,
  parameter int unsigned QDepth    = 4,
  parameter int unsigned RobDepth  = 6,
  parameter int unsigned OcN       = 8,
  localparam int unsigned AW = $clog2(DmemBytes / 4)
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  // Configuration from the register window
  input  logic          dsd_we_i,
  input  logic [2:0]    dsd_idx_i,
  input  logic [2:0]    dsd_field_i,
  input  logic [31:0]   dsd_wdata_i,
  output logic [31:0]   dsd_rdata_o,
  input  logic          scalar_we_i,
  input  logic [31:0]   scalar_i,
  input  logic          vop_req_i,
  input  logic [31:0]   vop_i,
  output logic          vop_ok_o,
  input  logic          flags_clr_i,
  output logic [4:0]    flags_o,
  output logic          sp_err_o,      // sticky: a sparse share was refused
  output logic          busy_o,
  output logic [31:0]   status_o,
  output logic [31:0]   done_cnt_o,
  // Move channel (wse_df_mov): issue of a move with the operation word on
  // vop_i (dst and a descriptors), snapshot of those descriptors
  input  logic          mov_req_i,
  output logic          mov_ok_o,
  input  logic          mov_room_i,
  output logic          mov_push_o,
  output logic          mov_rej_o,
  output logic [AW-1:0] mov_base_o,
  output logic [15:0]   mov_len0_o,
  output logic [15:0]   mov_st0_o,
  output logic [15:0]   mov_len1_o,
  output logic [15:0]   mov_st1_o,
  output logic [4:0]    mov_color_o,
  input  logic          mov_wr_i,      // a move writes DMEM (operand cache snoop)
  input  logic [AW-1:0] mov_wr_addr_i,
  // DMEM
  output logic          rd0_req_o,
  output logic [AW-1:0] rd0_addr_o,
  input  logic          rd0_gnt_i,
  input  logic [31:0]   rd0_data_i,
  output logic          rd1_req_o,
  output logic [AW-1:0] rd1_addr_o,
  input  logic          rd1_gnt_i,
  input  logic [31:0]   rd1_data_i,
  output logic          wr_req_o,
  output logic [AW-1:0] wr_addr_o,
  output logic [31:0]   wr_data_o,
  input  logic          wr_gnt_i,
  input  logic          ext_we_i,      // a core or management store to DMEM
  input  logic [DmemBanks-1:0] rd_lost_i, // banks where a core or management read lost
  // Fabric
  output logic          pop_req_o,
  output logic [4:0]    pop_color_o,
  input  logic          pop_ok_i,
  input  logic [31:0]   pop_data_i,
  input  logic          pop_ctrl_i,
  output logic          send_req_o,
  output logic [37:0]   send_wavelet_o,
  input  logic          send_ok_i,
  // Completion
  output logic          act_o,
  output logic [5:0]    act_task_o,
  // The PE's FPU (wse_pe_fpu), shared with the core: an element is taken in
  // the cycle it is offered (FpuAlwaysReady) and its result comes back two
  // cycles later, in order with the engine's others
  output logic          fpu_valid_o,
  output fpu_pkg::req_t fpu_req_o,
  input  logic          fpu_ready_i,
  input  logic          fpu_hold_i,    // start no element (leave the FPU a cycle)
  input  logic          fpu_rvalid_i,
  input  fpu_pkg::rsp_t fpu_rsp_i
);
  localparam int unsigned QW = $clog2(QDepth);
  localparam int unsigned RW = $clog2(RobDepth);
  localparam int unsigned BankW = (DmemBanks > 1) ? $clog2(DmemBanks) : 1;
  // Operand items of an element.
  localparam int unsigned ItS = 0, ItA = 1, ItB = 2, ItD = 3;

  // ---- Issue: the operation word's fields ---------------------------------------
  logic [QW-1:0] q_head_q, q_tail_q;  // the operation queue's
  logic [QW-1:0] h0, h1;             // the head, the entry after it
  logic [QW:0]   q_cnt_q;
  logic [2:0] iss_d, iss_a, iss_b;
  logic [3:0] iss_op;
  logic [1:0] iss_bm;
  logic       iss_useb, iss;
  assign iss_op   = vop_i[3:0];
  assign iss_d    = vop_i[6:4];
  assign iss_a    = vop_i[9:7];
  assign iss_b    = vop_i[12:10];
  assign iss_bm   = vop_i[14:13];
  assign iss_useb = ((iss_op == wse_df_pkg::VFadd || iss_op == wse_df_pkg::VFmul ||
                      iss_op == wse_df_pkg::VFmac || iss_op == wse_df_pkg::VFmax) &&
                     (iss_bm == wse_df_pkg::BVec || iss_bm == wse_df_pkg::BPerPass)) ||
                    (iss_op == wse_df_pkg::VFmac && iss_bm == wse_df_pkg::BAddend);
  assign vop_ok_o = vop_req_i && (32'(q_cnt_q) < QDepth);
  assign iss      = vop_ok_o;

  // ---- Descriptor registers (wse_df_dsd) -----------------------------------------
  // The operation word's dst, a and b (k = 0, 1, 2) are read at once.
  localparam int unsigned BW = AW + 2;  // byte address within DMEM
  logic [BW-1:0] ds_base [3];
  logic [15:0]   ds_st0  [3];
  logic [15:0]   ds_st1  [3];
  logic [15:0]   ds_len0, ds_len1;    // dst's
  logic [2:0]    ds_fab;
  logic [3*BW-1:0] ds_base_w;
  logic [47:0]   ds_st0_w, ds_st1_w;
  logic [31:0]   scalar_q;

  wse_df_dsd #(
    .BW (BW)
  ) u_dsd (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .we_i     (dsd_we_i),
    .idx_i    (dsd_idx_i),
    .field_i  (dsd_field_i),
    .wdata_i  (dsd_wdata_i),
    .rdata_o  (dsd_rdata_o),
    .rd_idx_i ({iss_b, iss_a, iss_d}),
    .base_o   (ds_base_w),
    .len0_o   (ds_len0),
    .len1_o   (ds_len1),
    .st0_o    (ds_st0_w),
    .st1_o    (ds_st1_w),
    .fab_o    (ds_fab),
    // an issue advances the descriptors it uses, a move its dst and a
    .adv_i    ({iss && iss_useb, iss || mov_push_o, iss || mov_push_o})
  );
  always_comb begin
    for (int k = 0; k < 3; k++) begin
      ds_base[k] = ds_base_w[BW*k +: BW];
      ds_st0[k]  = ds_st0_w[16*k +: 16];
      ds_st1[k]  = ds_st1_w[16*k +: 16];
    end
  end

  // ---- Operation queue ----------------------------------------------------------
  // An entry is the operation word's fields, the scalar and the snapshot of
  // its three descriptors, kept in distributed RAM (prim_ram_nr1w) rather
  // than flip-flops. The engine reads the head h0 (every field, u_q) and
  // the entry after it h1 (what the look-ahead and the next operation's
  // start need, u_q1: kind, scalar, bases, descriptor kinds). Entries are
  // read only while the queue holds them, so the RAMs need no reset.
  // Descriptor k is 0 dst, 1 a, 2 b. A field read at the head only is
  // qf_*; one read at both is qf_*[p], p 0 for h0 and 1 for h1
  // (qf_base[k][p]).
  localparam int unsigned Q1W = 4 + 2 + 1 + 32 + 3 * AW + 3;
  localparam int unsigned QEW = Q1W + 3 + 1 + 6 + 16 + 16 + 3 * 16 + 3 * 16;
  logic [QEW-1:0] q_wdata, q_rdata;
  logic [Q1W-1:0] q1_rdata;
  logic [3:0]    qf_op   [2];
  logic [1:0]    qf_bm   [2];
  logic          qf_g    [2];              // WSE_VOP_GATHER
  logic [31:0]   qf_sc   [2];
  logic [AW-1:0] qf_base [3][2];           // word index or color
  logic [2:0]    qf_fab  [2];
  logic [2:0]    qf_rm;
  logic          qf_ten;
  logic [5:0]    qf_tid;
  logic [15:0]   qf_len0, qf_len1;
  logic [15:0]   qf_s0   [3];
  logic [15:0]   qf_s1   [3];
  assign {qf_rm, qf_ten, qf_tid, qf_len0, qf_len1, qf_s0[2], qf_s0[1], qf_s0[0],
          qf_s1[2], qf_s1[1], qf_s1[0], qf_op[0], qf_bm[0], qf_g[0], qf_sc[0],
          qf_base[2][0], qf_base[1][0], qf_base[0][0], qf_fab[0]} = q_rdata;
  assign {qf_op[1], qf_bm[1], qf_g[1], qf_sc[1], qf_base[2][1], qf_base[1][1], qf_base[0][1],
          qf_fab[1]} = q1_rdata;


  // A move: dst must be a memory descriptor, a a fabric one, both lengths
  // non-zero; otherwise the issue completes without effect (rejected).
  logic mov_bad;
  assign mov_bad     = ds_fab[0] || !ds_fab[1] || ds_len0 == '0 || ds_len1 == '0;
  assign mov_ok_o    = mov_req_i && (mov_bad || mov_room_i);
  assign mov_push_o  = mov_req_i && !mov_bad && mov_room_i;
  assign mov_rej_o   = mov_req_i && mov_bad;
  assign mov_base_o  = ds_base[0][AW+1:2];
  assign mov_len0_o  = ds_len0;
  assign mov_st0_o   = ds_st0[0];
  assign mov_len1_o  = ds_len1;
  assign mov_st1_o   = ds_st1[0];
  assign mov_color_o = ds_base[1][4:0];

  // Word index in DMEM of a byte address, or the color of a fabric descriptor.
  function automatic logic [AW-1:0] word_of(input logic [AW+1:0] b, input logic fab);
    word_of = fab ? AW'(b[4:0]) : b[AW+1:2];
  endfunction

  assign h0 = q_head_q;
  assign h1 = qinc(q_head_q);
  assign q_wdata = {vop_i[24:22], vop_i[15], vop_i[21:16], ds_len0, ds_len1,
                    ds_st0[2], ds_st0[1], ds_st0[0],
                    ds_st1[2], ds_st1[1], ds_st1[0],
                    iss_op, iss_bm, vop_i[wse_df_pkg::VopGather], scalar_q,
                    word_of(ds_base[2], ds_fab[2]),
                    word_of(ds_base[1], ds_fab[1]),
                    word_of(ds_base[0], ds_fab[0]),
                    ds_fab[2], ds_fab[1], ds_fab[0]};
  prim_ram_nr1w #(
    .Width (QEW),
    .Depth (QDepth),
    .NumRd (1)
  ) u_q (
    .clk_i   (clk_i),
    .we_i    (iss),
    .waddr_i (q_tail_q),
    .wdata_i (q_wdata),
    .raddr_i (h0),
    .rdata_o (q_rdata)
  );
  // the low Q1W bits of an entry, again, for h1
  prim_ram_nr1w #(
    .Width (Q1W),
    .Depth (QDepth),
    .NumRd (1)
  ) u_q1 (
    .clk_i   (clk_i),
    .we_i    (iss),
    .waddr_i (q_tail_q),
    .wdata_i (q_wdata[Q1W-1:0]),
    .raddr_i (h1),
    .rdata_o (q1_rdata)
  );

  // ---- G: element gather ---------------------------------------------------------
  // Slot 0 is the current element, slot 1 the next one (look-ahead): the
  // next element may take a read port or the pop port the current one does
  // not need, so two reads that hit one bank in the same element are spread
  // over two elements, and an operation's first element overlaps the end of
  // the previous operation. Item i = 4*slot + k. Operand values are held in
  // two banks of registers; the current element uses bank cb_q.
  logic          g_first_q;          // the head operation has not started
  logic [15:0]   g_i0_q, g_i1_q;
  logic [AW-1:0] g_p_q [3];          // element pointers dst, a, b
  logic [AW-1:0] g_r_q [3];          // row pointers
  logic [3:0]    g_got_q, la_got_q;
  logic          cb_q;

  logic          qv;
  logic [AW-1:0] p0e [3];
  logic [AW-1:0] r0e [3];
  logic          last0, last1, elast;
  logic          n_valid, n_first;
  logic [QW-1:0] n_h;
  logic [15:0]   n_i0, n_i1;
  logic [AW-1:0] n_p [3];
  logic [AW-1:0] n_r [3];

  // ---- SPMACS: sequencer (decode) and the pass it hands to G ----------------
  typedef enum logic [1:0] {SpPass = 2'd0, SpZero = 2'd1, SpEnd = 2'd2} sp_kind_e;
  logic          sp_h0;              // the head operation is an SPMACS
  logic          sp_bad;             // ... whose operands it does not take
  logic          sp_acc;             // ... accumulating (WSE_SP_ACC)
  logic          sd_idx_q;           // decoder: an index wavelet is due
  logic          sd_started_q;       // an index wavelet came
  logic          sd_done_q;          // the share's end was seen
  logic [31:0]   sd_codes_q;
  logic [2:0]    sd_k_q;             // next code, 0..4
  logic [17:0]   sd_pos_q;           // slot a code of 0 names (saturating)
  logic          sd_last_q;          // SPIDX: the index wavelet had the control bit
  logic          nx_v_q, nx_last_q;  // the next pass, decoded
  sp_kind_e      nx_kind_q;
  logic [31:0]   nx_val_q;
  logic [AW-1:0] nx_row_q [2];       // its dst and a rows
  logic          ex_act_q, ex_last_q, ex_mac_q;
  sp_kind_e      ex_kind_q;
  logic          sp_start;           // G takes the decoded pass now
  sp_kind_e      kind_cur;
  logic          last_cur;
  logic          sp_err_q;
  logic          sd_pop, sd_pop_ok;  // the decoder pops (index wavelet or value)

  // ---- SPIDX and gathered operations ------------------------------------------
  localparam int unsigned GCW = $clog2(wse_df_pkg::GatherMax + 1);
  logic           ix_h0;              // the head operation is an SPIDX
  logic           ix_bad;             // ... whose b is in memory (refused)
  logic           ix_wr, ix_full, ix_commit;
  logic           gath_h0;            // the head operation is gathered
  logic           g_refuse;           // ... refused: a on the fabric, SPMACS, SPIDX
  logic           nop_h0;             // its one element writes nothing
  logic [GCW-1:0] g_cnt;
  logic [15:0]    len0_h0;            // elements a pass
  logic           ga_run, ga_take, ga_clr, ga_v0, ga_v1;
  logic [AW-1:0]  ga_addr0, ga_addr1;
  logic           la_special;         // the next operation is not looked into

  assign qv       = (q_cnt_q != '0);
  assign sp_h0    = qv && (qf_op[0] == wse_df_pkg::VSpmac) && !qf_g[0];
  assign sp_bad   = !qf_fab[0][2] || qf_fab[0][1] || qf_fab[0][0];
  assign sp_acc   = (qf_bm[0] == wse_df_pkg::SpAcc);
  assign sp_start = sp_h0 && !ex_act_q && nx_v_q;
  assign ix_h0    = qv && (qf_op[0] == wse_df_pkg::VSpidx) && !qf_g[0];
  assign ix_bad   = !qf_fab[0][2];
  assign gath_h0  = qv && qf_g[0];
  assign g_refuse = (qf_op[0] == wse_df_pkg::VSpmac) || (qf_op[0] == wse_df_pkg::VSpidx) ||
                    qf_fab[0][1];
  // an SPIDX's element comes once its share is decoded (or refused)
  assign nop_h0   = (gath_h0 && (g_refuse || g_cnt == '0)) || ix_h0;
  assign len0_h0  = gath_h0 ? 16'(g_cnt) : qf_len0;
  assign ga_run   = gath_h0 && !nop_h0;
  assign ga_take  = g_done && ga_run;
  assign ga_clr   = g_done && elast && ga_run;
  assign ix_commit = g_done && ix_h0 && !ix_bad;
  assign la_special = ((elast ? qf_op[1] : qf_op[0]) == wse_df_pkg::VSpmac) || ((elast ? qf_op[1] : qf_op[0]) == wse_df_pkg::VSpidx) ||
                      (elast ? qf_g[1] : qf_g[0]);

  wse_df_gather #(
    .AW      (AW),
    .Entries (wse_df_pkg::GatherMax)
  ) u_gather (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .wr_i      (ix_wr),
    .wr_slot_i (sd_posv[15:0]),
    .full_o    (ix_full),
    .commit_i  (ix_commit),
    .cnt_o     (g_cnt),
    .run_i     (ga_run),
    .base_i    (qf_base[1][0]),
    .s0_i      (qf_s0[1]),
    .s1_i      (qf_s1[1]),
    .len1_i    (qf_len1),
    .take_i    (ga_take),
    .clr_i     (ga_clr),
    .v0_o      (ga_v0),
    .v1_o      (ga_v1),
    .addr0_o   (ga_addr0),
    .addr1_o   (ga_addr1)
  );
  assign kind_cur = sp_start ? nx_kind_q : ex_kind_q;
  assign last_cur = sp_start ? nx_last_q : ex_last_q;
  assign last0 = (sp_h0 && kind_cur == SpEnd) || nop_h0 || (g_i0_q == len0_h0 - 16'd1);
  assign last1 = (g_i1_q == qf_len1 - 16'd1);
  assign elast = sp_h0 ? (last0 && (kind_cur != SpPass || last_cur)) :
                 (nop_h0 || (last0 && last1));

  always_comb begin
    for (int k = 0; k < 3; k++) begin
      p0e[k] = g_first_q ? qf_base[k][0] : g_p_q[k];
      r0e[k] = g_first_q ? qf_base[k][0] : g_r_q[k];
    end
    if (sp_start) begin
      p0e[0] = nx_row_q[0];
      p0e[1] = nx_row_q[1];
    end
    n_h     = h0;
    n_first = 1'b0;
    n_valid = 1'b1;
    n_i0    = g_i0_q + 16'd1;
    n_i1    = g_i1_q;
    for (int k = 0; k < 3; k++) begin
      n_r[k] = r0e[k];
      n_p[k] = p0e[k] + sx(qf_s0[k]);
    end
    if (elast) begin
      n_h     = h1;
      n_first = 1'b1;
      n_valid = (32'(q_cnt_q) >= 2);
      n_i0    = '0;
      n_i1    = '0;
      for (int k = 0; k < 3; k++) begin
        n_r[k] = qf_base[k][1];
        n_p[k] = qf_base[k][1];
      end
    end else if (last0) begin
      n_i0 = '0;
      n_i1 = g_i1_q + 16'd1;
      for (int k = 0; k < 3; k++) begin
        n_r[k] = r0e[k] + sx(qf_s1[k]);
        n_p[k] = r0e[k] + sx(qf_s1[k]);
      end
    end
  end

  // Decoder: from code sd_k_q on, the escapes (255 slots each) before the
  // first code that names a value, and that value's slot.
  logic        sd_hit;
  logic [1:0]  sd_j;
  logic [9:0]  sd_esc;
  logic [17:0] sd_posv, sd_skip;
  logic [17:0] sd_lim;
  always_comb begin
    sd_hit = 1'b0;
    sd_j   = '0;
    sd_esc = '0;
    for (int j = 0; j < 4; j++) begin
      if (3'(j) >= sd_k_q && !sd_hit) begin
        if (sd_codes_q[8*j +: 8] == 8'hff) begin
          sd_esc = sd_esc + 10'd255;
        end else begin
          sd_hit = 1'b1;
          sd_j   = 2'(j);
        end
      end
    end
    sd_skip = sat18(19'(sd_pos_q) + 19'(sd_esc));
    sd_posv = sat18(19'(sd_skip) + 19'(sd_codes_q[8*sd_j +: 8]));
    // SPIDX: dst's LEN0 bounds the slots (0: none)
    sd_lim  = ix_h0 ? 18'(qf_len0) :
              (qf_len1 == '0) ? 18'h10000 : 18'(qf_len1);
  end
  assign sd_pop = (sp_h0 && !sp_bad && !sd_done_q && !nx_v_q && (sd_idx_q || sd_hit)) ||
                  (ix_h0 && !ix_bad && !sd_done_q && sd_idx_q);
  // SPIDX: a named slot in range is stored while the table has room
  assign ix_wr  = ix_h0 && !ix_bad && !sd_done_q && !sd_idx_q && sd_hit &&
                  sd_posv < sd_lim && !ix_full;

  // Row k (dst, a) of slot pos: base + pos * stride1 (word indices wrap).
  function automatic logic [AW-1:0] sp_row(input logic [AW-1:0] base, input logic [15:0] s1,
                                           input logic [AW-1:0] pos);
    sp_row = base + pos * sx(s1);
  endfunction
  function automatic logic [17:0] sat18(input logic [18:0] v);
    sat18 = v[18] ? 18'h20000 : (v[17] ? 18'h20000 : v[17:0]);
  endfunction

  // Items of both slots.
  logic [7:0]    need, ismem, isimm, isfab;
  logic [AW-1:0] iaddr [8];
  logic [4:0]    icolor [8];
  logic [31:0]   iimm [8];
  logic [1:0]    sv;
  always_comb begin
    for (int sl = 0; sl < 2; sl++) begin
      logic          h;                    // its operation's read port: h0 or n_h
      logic [15:0]   i0;
      logic          first, ub;
      logic [3:0]    o;
      logic [1:0]    m;
      logic [AW-1:0] pa, pb, pd, rb;
      h     = sl[0] && elast;
      i0    = sl[0] ? n_i0 : g_i0_q;
      first = sl[0] ? n_first : g_first_q;
      pd    = sl[0] ? n_p[0] : p0e[0];
      pa    = sl[0] ? n_p[1] : p0e[1];
      // a gathered operation's a from the table's stream (the look-ahead
      // only within the operation)
      if (ga_run && !sl[0])            pa = ga_addr0;
      if (ga_run && sl[0] && n_h == h0) pa = ga_addr1;
      pb    = sl[0] ? n_p[2] : p0e[2];
      rb    = sl[0] ? n_r[2] : r0e[2];
      o     = qf_op[h];
      m     = qf_bm[h];
      ub    = (o == wse_df_pkg::VFadd || o == wse_df_pkg::VFmul ||
               o == wse_df_pkg::VFmac || o == wse_df_pkg::VFmax);
      need[4*sl + ItS]  = ub && ((m == wse_df_pkg::BPerPass && i0 == '0) ||
                                 (m == wse_df_pkg::BScalar && first) ||
                                 (m == wse_df_pkg::BAddend && first));
      need[4*sl + ItA]  = 1'b1;
      // BAddend: the addend comes from b in dst's stead
      need[4*sl + ItB]  = ub && (m == wse_df_pkg::BVec ||
                                 (m == wse_df_pkg::BAddend && o == wse_df_pkg::VFmac));
      need[4*sl + ItD]  = (o == wse_df_pkg::VFmac) && !qf_fab[h][0] &&
                          (m != wse_df_pkg::BAddend);
      isimm[4*sl + ItS] = (m == wse_df_pkg::BScalar || m == wse_df_pkg::BAddend);
      isimm[4*sl + ItA] = 1'b0;
      // SPMACS (slot 1 only within a pass): the value as an immediate at a
      // pass's first element, a from memory (+0 for the zero pass and the
      // closing element), dst read from the second pass on
      if (sp_h0) begin
        need[4*sl + ItS]  = !sl[0] && sp_start && kind_cur == SpPass;
        need[4*sl + ItB]  = 1'b0;
        need[4*sl + ItD]  = kind_cur == SpPass && (ex_mac_q || sp_acc);
        isimm[4*sl + ItS] = 1'b1;
        isimm[4*sl + ItA] = kind_cur != SpPass;
      end
      // an element that writes nothing: no operand but a +0 for a
      if (nop_h0) begin
        need[4*sl + ItS]  = 1'b0;
        need[4*sl + ItB]  = 1'b0;
        need[4*sl + ItD]  = 1'b0;
        isimm[4*sl + ItA] = 1'b1;
      end
      isimm[4*sl + ItB] = 1'b0;
      isimm[4*sl + ItD] = 1'b0;
      isfab[4*sl + ItS] = !isimm[4*sl + ItS] && qf_fab[h][2];
      isfab[4*sl + ItA] = qf_fab[h][1] && !isimm[4*sl + ItA];
      isfab[4*sl + ItB] = qf_fab[h][2];
      isfab[4*sl + ItD] = 1'b0;
      for (int k = 0; k < 4; k++) ismem[4*sl + k] = !isimm[4*sl + k] && !isfab[4*sl + k];
      iaddr[4*sl + ItS]  = rb;
      iaddr[4*sl + ItA]  = pa;
      iaddr[4*sl + ItB]  = pb;
      iaddr[4*sl + ItD]  = pd;
      icolor[4*sl + ItS] = qf_base[2][h][4:0];
      icolor[4*sl + ItA] = qf_base[1][h][4:0];
      icolor[4*sl + ItB] = qf_base[2][h][4:0];
      icolor[4*sl + ItD] = '0;
      for (int k = 0; k < 4; k++) iimm[4*sl + k] = qf_sc[h];
      if (sp_h0) begin
        iimm[4*sl + ItS] = nx_val_q;
        iimm[4*sl + ItA] = '0;
      end
      if (nop_h0) iimm[4*sl + ItA] = '0;
    end
  end

  // Completion queue (wse_df_rob; declared here: G checks its addresses).
  logic [RW:0]       rb_cnt;
  logic [7:0]        rb_pend;
  logic [8*AW-1:0]   pend_addr;
  logic              rb_fab, rb_nop, rb_last, rb_ten;
  logic [AW-1:0]     rb_addr;
  logic [5:0]        rb_tid;
  always_comb begin
    for (int i = 0; i < 8; i++) pend_addr[i*AW +: AW] = iaddr[i];
  end

  // A read waits while a pending result (or, for the next element, the
  // current element's result) will write its address.
  logic       cur_wr_mem;
  logic [7:0] haz;
  assign cur_wr_mem = !qf_fab[0][0] || sp_h0;
  always_comb begin
    for (int i = 0; i < 8; i++) begin
      haz[i] = (i >= 4) && cur_wr_mem && (iaddr[i] == p0e[0]);
      if (rb_pend[i]) haz[i] = 1'b1;
    end
  end

  // Operand cache for the a operand (wse_df_opcache): looked up by the a
  // items of both slots, filled by the a-reads.
  logic [7:0]          oc_hit;
  logic [31:0]         oc_val [8];
  logic [1:0]          oc_hit2, oc_fill;
  logic [63:0]         oc_data2;
  always_comb begin
    for (int i = 0; i < 8; i++) begin
      oc_hit[i] = 1'b0;
      oc_val[i] = '0;
    end
    for (int sl = 0; sl < 2; sl++) begin
      oc_hit[4*sl + ItA] = oc_hit2[sl] && ismem[4*sl + ItA];
      oc_val[4*sl + ItA] = oc_data2[sl*32 +: 32];
    end
  end

  wse_df_opcache #(
    .AW      (AW),
    .Entries (OcN)
  ) u_oc (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .addr_i        ({iaddr[4 + ItA], iaddr[ItA]}),
    .hit_o         (oc_hit2),
    .data_o        (oc_data2),
    .fill_i        (oc_fill),
    .fill_addr_i   ({rd1_addr_o, rd0_addr_o}),
    .fill_data_i   ({rd1_data_i, rd0_data_i}),
    .wr_i          (wr_req_o && wr_gnt_i),
    .wr_addr_i     (wr_addr_o),
    .wr_data_i     (wr_data_o),
    .mov_wr_i      (mov_wr_i),
    .mov_wr_addr_i (mov_wr_addr_i),
    .ext_we_i      (ext_we_i)
  );

  // A bank where a core or management read lost to the engine is left to
  // it the next cycle (yield_q: the arbiter's outcome reaches the engine's
  // requests only through this register), so those reads wait one cycle at
  // most.
  logic [DmemBanks-1:0] yield_q;
  logic [BankW-1:0]     ibank [8];
  always_comb begin
    for (int i = 0; i < 8; i++) ibank[i] = (DmemBanks > 1) ? iaddr[i][BankW-1:0] : '0;
  end

  logic       go, el_ok, la_ok;
  logic [7:0] rem, take_now, mcand, fcand;
  // an SPMACS has an element only with a pass decoded or running; the
  // look-ahead stays within a pass (the next pass's rows come from the
  // decoder) and does not enter an SPMACS
  // an SPIDX has its element once decoded or refused, a gathered operation
  // with its a address streamed; no look-ahead from an element that writes
  // nothing, within a gathered operation only with the next address there
  assign el_ok = (!sp_h0 || ex_act_q || nx_v_q) && (!ix_h0 || ix_bad || sd_done_q) &&
                 (!ga_run || ga_v0);
  assign la_ok = sp_h0 ? !last0 :
                 nop_h0 ? 1'b0 :
                 (n_h == h0) ? (!ga_run || ga_v1) : !la_special;
  assign go    = qv && (32'(rb_cnt) < RobDepth);
  assign sv    = {go && el_ok && n_valid && la_ok, go && el_ok};
  always_comb begin
    for (int i = 0; i < 8; i++) begin
      rem[i] = sv[i / 4] && need[i] && !((i < 4) ? g_got_q[i % 4] : la_got_q[i % 4]);
      take_now[i] = rem[i] && (isimm[i] || (oc_hit[i] && !haz[i]));
      mcand[i] = rem[i] && ismem[i] && !haz[i] && !oc_hit[i] && !yield_q[ibank[i]];
      fcand[i] = rem[i] && isfab[i];
    end
    // the next element pops only once the current one has all its wavelets
    if ((rem[3:0] & isfab[3:0]) != '0) fcand[7:4] = '0;
  end

  // Port 0 takes the first memory item, port 1 the next one in another bank
  // (current element first, then the next). The two read ports have the
  // highest priority at DMEM's arbiter and never share a bank, so a read is
  // granted in the cycle it is asked for: the gather counts it as got
  // without looking at the grants, which keeps the arbiter out of the
  // engine's next-state logic (ReadGranted checks it).
  logic       p0_v, p1_v, f_v;
  logic [2:0] p0_it, p1_it, f_it;
  always_comb begin
    p0_v = 1'b0; p0_it = '0;
    p1_v = 1'b0; p1_it = '0;
    f_v  = 1'b0; f_it  = '0;
    for (int i = 7; i >= 0; i--) begin
      if (mcand[i]) begin p0_v = 1'b1; p0_it = 3'(i); end
      if (fcand[i]) begin f_v = 1'b1; f_it = 3'(i); end
    end
    for (int i = 7; i >= 0; i--) begin
      if (mcand[i] && p0_v && 3'(i) != p0_it && (DmemBanks > 1) && ibank[i] != ibank[p0_it]) begin
        p1_v = 1'b1; p1_it = 3'(i);
      end
    end
  end

  // an a-read fills the operand cache
  assign oc_fill[0] = p0_v && (p0_it[1:0] == 2'(ItA));
  assign oc_fill[1] = p1_v && (p1_it[1:0] == 2'(ItA));
  assign rd0_req_o   = p0_v;
  assign rd0_addr_o  = iaddr[p0_it];
  assign rd1_req_o   = p1_v;
  assign rd1_addr_o  = iaddr[p1_it];
  assign pop_req_o   = f_v || sd_pop;
  assign pop_color_o = sd_pop ? qf_base[2][0][4:0] : icolor[f_it];
  assign sd_pop_ok   = sd_pop && pop_ok_i;

  logic [7:0] got_now;
  logic       g_done;
  always_comb begin
    got_now = take_now;
    if (p0_v)            got_now[p0_it] = 1'b1;
    if (p1_v)            got_now[p1_it] = 1'b1;
    if (f_v && pop_ok_i && !sd_pop) got_now[f_it] = 1'b1;
  end
  // An element held back (fpu_hold_i) keeps what it got and ends a cycle
  // later, as one that waits for an operand does.
  assign g_done = sv[0] && ((rem[3:0] & ~got_now[3:0]) == '0) && !fpu_hold_i;

  // Hold register of item i: bank (cb_q ^ slot), entry k.
  function automatic logic [2:0] hidx(input logic [2:0] i, input logic cb);
    hidx = {cb ^ i[2], i[1:0]};
  endfunction

  // ---- X: operands into the FPU ------------------------------------------------------
  logic        x_valid_q, x_news_q, x_bank_q;
  logic [3:0]  x_op_q;
  logic [1:0]  x_bm_q;
  logic [2:0]  x_rm_q;
  logic [7:0]  arr_q, arr_d;         // hold entry's read data arrive this cycle
  logic [7:0]  arrp_q, arrp_d;       // ... on port 1 (else port 0)
  logic [31:0] hold_q [8];
  logic [31:0] hold_d [8];
  logic [31:0] val [4];
  logic [31:0] s_cur_q;              // B of the current pass

  always_comb begin
    for (int j = 0; j < 8; j++) begin
      hold_d[j] = arr_q[j] ? (arrp_q[j] ? rd1_data_i : rd0_data_i) : hold_q[j];
      arr_d[j]  = 1'b0;
      arrp_d[j] = 1'b0;
    end
    for (int k = 0; k < 4; k++) val[k] = hold_d[{x_bank_q, 2'(k)}];
    if (p0_v) arr_d[hidx(p0_it, cb_q)] = 1'b1;
    if (p1_v) begin
      arr_d[hidx(p1_it, cb_q)]  = 1'b1;
      arrp_d[hidx(p1_it, cb_q)] = 1'b1;
    end
    if (f_v && pop_ok_i && !sd_pop) hold_d[hidx(f_it, cb_q)] = pop_data_i;
    for (int i = 0; i < 8; i++) begin
      if (take_now[i]) hold_d[hidx(3'(i), cb_q)] = isimm[i] ? iimm[i] : oc_val[i];
    end
  end

  fpu_pkg::op_e fop;
  logic [31:0]  fa, fb, fc, bval, sval;
  assign sval = x_news_q ? val[ItS] : s_cur_q;
  assign bval = (x_bm_q == wse_df_pkg::BVec) ? val[ItB] : sval;
  always_comb begin
    fa = val[ItA];
    fb = bval;
    fc = (x_bm_q == wse_df_pkg::BAddend) ? val[ItB] : val[ItD];
    unique case (x_op_q)
      wse_df_pkg::VFadd: fop = fpu_pkg::OpAdd;
      wse_df_pkg::VFmul: fop = fpu_pkg::OpMul;
      wse_df_pkg::VFmac: fop = fpu_pkg::OpMadd;
      wse_df_pkg::VFmax: fop = fpu_pkg::OpMax;
      wse_df_pkg::VRelu: begin fop = fpu_pkg::OpMax; fb = 32'd0; end
      default:           begin fop = fpu_pkg::OpSgnj; fb = val[ItA]; end
    endcase
  end

  logic        f_in_ready, f_out_valid;
  logic [31:0] f_res;
  logic [4:0]  f_flags;
  assign fpu_valid_o = x_valid_q;
  assign fpu_req_o   = {fop, x_rm_q, fa, fb, fc};  // op, rm, a, b, c
  assign f_in_ready  = fpu_ready_i;
  assign f_out_valid = fpu_rvalid_i;
  assign f_res       = fpu_rsp_i.result;
  assign f_flags     = fpu_rsp_i.flags;

  // ---- W: in-order retirement -----------------------------------------------------------
  logic        h_ready, h_pop;
  logic [31:0] h_data;

  wse_df_rob #(
    .AW    (AW),
    .Depth (RobDepth)
  ) u_rob (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .alloc_i      (g_done),
    .alloc_fab_i  (!cur_wr_mem),
    .alloc_nop_i  ((sp_h0 && kind_cur == SpEnd) || nop_h0),
    .alloc_addr_i (cur_wr_mem ? p0e[0] : qf_base[0][0]),
    .alloc_last_i (elast),
    .alloc_ten_i  (qf_ten),
    .alloc_tid_i  (qf_tid),
    .fill_i       (f_out_valid),
    .fill_data_i  (f_res),
    .head_ready_o (h_ready),
    .head_data_o  (h_data),
    .head_fab_o   (rb_fab),
    .head_nop_o   (rb_nop),
    .head_addr_o  (rb_addr),
    .head_last_o  (rb_last),
    .head_ten_o   (rb_ten),
    .head_tid_o   (rb_tid),
    .pop_i        (h_pop),
    .pend_addr_i  (pend_addr),
    .pend_o       (rb_pend),
    .cnt_o        (rb_cnt)
  );

  assign wr_req_o   = h_ready && !rb_fab && !rb_nop;
  assign wr_addr_o  = rb_addr;
  assign wr_data_o  = h_data;
  assign send_req_o = h_ready && rb_fab && !rb_nop;
  assign send_wavelet_o = {1'b0, rb_addr[4:0], h_data};
  assign h_pop      = (wr_req_o && wr_gnt_i) || (send_req_o && send_ok_i) ||
                      (h_ready && rb_nop);
  assign act_o      = h_pop && rb_last && rb_ten;
  assign act_task_o = rb_tid;

  // ---- State update -----------------------------------------------------------------------
  logic [4:0]  flags_q;
  logic [31:0] done_q;

  function automatic logic [QW-1:0] qinc(input logic [QW-1:0] v);
    qinc = (32'(v) == QDepth - 1) ? '0 : v + 1'b1;
  endfunction
  function automatic logic [AW-1:0] sx(input logic [15:0] s);
    sx = AW'({{16{s[15]}}, s});
  endfunction

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      scalar_q <= '0;
      q_head_q <= '0; q_tail_q <= '0; q_cnt_q <= '0;
      g_first_q <= 1'b1; g_i0_q <= '0; g_i1_q <= '0; g_got_q <= '0; la_got_q <= '0;
      cb_q <= 1'b0;
      for (int k = 0; k < 3; k++) begin g_p_q[k] <= '0; g_r_q[k] <= '0; end
      x_valid_q <= 1'b0; x_op_q <= '0; x_bm_q <= '0; x_rm_q <= '0;
      x_news_q <= 1'b0; x_bank_q <= 1'b0; s_cur_q <= '0;
      arr_q <= '0; arrp_q <= '0;
      for (int j = 0; j < 8; j++) hold_q[j] <= '0;
      yield_q <= '0;
      sd_idx_q <= 1'b1; sd_started_q <= 1'b0; sd_done_q <= 1'b0; sd_codes_q <= '0;
      sd_k_q <= '0; sd_pos_q <= '0; sd_last_q <= 1'b0;
      nx_v_q <= 1'b0; nx_last_q <= 1'b0; nx_kind_q <= SpPass; nx_val_q <= '0;
      nx_row_q[0] <= '0; nx_row_q[1] <= '0;
      ex_act_q <= 1'b0; ex_last_q <= 1'b0; ex_mac_q <= 1'b0; ex_kind_q <= SpPass;
      sp_err_q <= 1'b0;
      flags_q <= '0; done_q <= '0;
    end else begin
      // issue
      if (scalar_we_i) scalar_q <= scalar_i;
      if (iss) begin
        q_tail_q <= qinc(q_tail_q);
      end
      q_cnt_q <= q_cnt_q + (QW+1)'(iss) - (QW+1)'(g_done && elast);

      // G
      if (g_done) begin
        g_got_q  <= sv[1] ? (la_got_q | got_now[7:4]) : '0;
        la_got_q <= '0;
        cb_q      <= !cb_q;
        g_first_q <= n_first;
        g_i0_q    <= n_i0;
        g_i1_q    <= n_i1;
        for (int k = 0; k < 3; k++) begin
          g_p_q[k] <= n_p[k];
          g_r_q[k] <= n_r[k];
        end
        if (elast) q_head_q <= qinc(q_head_q);
      end else begin
        g_got_q  <= g_got_q | got_now[3:0];
        la_got_q <= la_got_q | got_now[7:4];
      end

      // X
      x_valid_q <= g_done;
      if (g_done) begin
        x_op_q   <= qf_op[0];
        x_bm_q   <= qf_bm[0];
        if (sp_h0) begin
          x_bm_q <= wse_df_pkg::BScalar;
          if (kind_cur != SpPass)          x_op_q <= wse_df_pkg::VFmov;
          else if (ex_mac_q || sp_acc)     x_op_q <= wse_df_pkg::VFmac;
          else                             x_op_q <= wse_df_pkg::VFmul;
        end
        if (nop_h0) x_op_q <= wse_df_pkg::VFmov;
        x_rm_q   <= qf_rm;
        x_news_q <= need[ItS];
        x_bank_q <= cb_q;
      end
      if (x_valid_q && x_news_q) s_cur_q <= val[ItS];
      arr_q  <= arr_d;
      arrp_q <= arrp_d;
      for (int j = 0; j < 8; j++) hold_q[j] <= hold_d[j];

      yield_q      <= rd_lost_i;

      // completion
      if (f_out_valid) flags_q <= flags_q | f_flags;
      if (h_pop && rb_last) done_q <= done_q + 32'd1;

      // SPMACS decoder: fills the next pass while the current one runs
      if (sp_h0 && !sd_done_q && !nx_v_q) begin
        if (sp_bad) begin
          // operands it does not take: nothing popped, one closing element
          sp_err_q  <= 1'b1;
          sd_done_q <= 1'b1;
          nx_v_q    <= 1'b1;
          nx_kind_q <= SpEnd;
          nx_last_q <= 1'b1;
        end else if (sd_idx_q) begin
          if (sd_pop_ok && pop_ctrl_i) begin
            // an empty share, or a control wavelet where an index was due
            sd_done_q   <= 1'b1;
            nx_v_q      <= 1'b1;
            nx_last_q   <= 1'b1;
            nx_kind_q   <= (sd_started_q || sp_acc) ? SpEnd : SpZero;
            nx_row_q[0] <= qf_base[0][0];
            nx_row_q[1] <= qf_base[1][0];
            if (sd_started_q) sp_err_q <= 1'b1;
          end else if (sd_pop_ok) begin
            sd_codes_q   <= pop_data_i;
            sd_k_q       <= '0;
            sd_started_q <= 1'b1;
            sd_idx_q     <= 1'b0;
          end
        end else if (!sd_hit) begin
          // only escapes left in this index wavelet
          sd_pos_q <= sd_skip;
          sd_idx_q <= 1'b1;
        end else if (sd_pop_ok) begin
          sd_k_q   <= 3'(sd_j) + 3'd1;
          sd_idx_q <= (sd_j == 2'd3);
          sd_pos_q <= sat18(19'(sd_posv) + 19'd1);
          if (pop_ctrl_i) sd_done_q <= 1'b1;
          if (sd_posv >= sd_lim) begin
            // a slot out of range: the value is dropped
            sp_err_q <= 1'b1;
            if (pop_ctrl_i) begin
              nx_v_q    <= 1'b1;
              nx_kind_q <= SpEnd;
              nx_last_q <= 1'b1;
            end
          end else begin
            nx_v_q      <= 1'b1;
            nx_kind_q   <= SpPass;
            nx_last_q   <= pop_ctrl_i;
            nx_val_q    <= pop_data_i;
            nx_row_q[0] <= sp_row(qf_base[0][0], qf_s1[0], sd_posv[AW-1:0]);
            nx_row_q[1] <= sp_row(qf_base[1][0], qf_s1[1], sd_posv[AW-1:0]);
          end
        end
      end
      // SPIDX decoder: pops an index wavelet, then a cycle per named slot
      // (stored, or refused out of range or past the table) and one for
      // escapes alone; done after the wavelet with the control bit
      if (ix_h0 && !ix_bad && !sd_done_q) begin
        if (sd_idx_q) begin
          if (sd_pop_ok) begin
            sd_codes_q <= pop_data_i;
            sd_k_q     <= '0;
            sd_idx_q   <= 1'b0;
            sd_last_q  <= pop_ctrl_i;
          end
        end else if (!sd_hit) begin
          sd_pos_q <= sd_skip;
          sd_idx_q <= 1'b1;
          if (sd_last_q) sd_done_q <= 1'b1;
        end else begin
          sd_k_q   <= 3'(sd_j) + 3'd1;
          sd_pos_q <= sat18(19'(sd_posv) + 19'd1);
          if (sd_posv >= sd_lim || ix_full) sp_err_q <= 1'b1;
          if (sd_j == 2'd3) begin
            sd_idx_q <= 1'b1;
            if (sd_last_q) sd_done_q <= 1'b1;
          end
        end
      end
      // a refused operation (nothing done) sets the sticky error
      if (g_done && ((gath_h0 && g_refuse) || (ix_h0 && ix_bad))) sp_err_q <= 1'b1;
      if (g_done && ix_h0) begin
        sd_idx_q <= 1'b1; sd_done_q <= 1'b0; sd_k_q <= '0; sd_pos_q <= '0;
        sd_last_q <= 1'b0;
      end
      // SPMACS executor: G takes the decoded pass at its first element
      if (g_done && sp_h0) begin
        if (sp_start) begin
          nx_v_q    <= 1'b0;
          ex_kind_q <= nx_kind_q;
          ex_last_q <= nx_last_q;
        end
        ex_act_q <= !last0;
        if (last0 && kind_cur == SpPass) ex_mac_q <= 1'b1;
        if (elast) begin
          sd_idx_q <= 1'b1; sd_started_q <= 1'b0; sd_done_q <= 1'b0; sd_k_q <= '0;
          sd_pos_q <= '0; nx_v_q <= 1'b0; ex_act_q <= 1'b0; ex_mac_q <= 1'b0;
        end
      end
      if (flags_clr_i) flags_q <= '0;
      if (flags_clr_i) sp_err_q <= 1'b0;
    end
  end

  assign flags_o    = flags_q;
  assign sp_err_o   = sp_err_q;
  assign busy_o     = (q_cnt_q != '0) || (rb_cnt != '0);
  assign status_o   = {busy_o, 23'd0, 4'(q_cnt_q), 4'(rb_cnt)};
  assign done_cnt_o = done_q;

  logic unused;
  assign unused = ^{vop_i[31:26], rd0_gnt_i, rd1_gnt_i};

  `ASSERT(FpuAlwaysReady, !x_valid_q || f_in_ready)
  `ASSERT(OnePopper, !(f_v && sd_pop))
  `ASSERT(SpLookAheadInPass, !(sp_h0 && sv[1] && last0))
  `ASSERT(SpPassDecoded, !(sp_h0 && sv[0] && !ex_act_q) || nx_v_q)
  // SPIDX's element (its end, which commits the count) only once decoded
  `ASSERT(IdxDecoded, !(ix_h0 && !ix_bad && g_done) || sd_done_q)
  // no operation looks ahead into an SPIDX or a gathered operation: a
  // gathered one reads the table only as the head, after the SPIDX before it
  `ASSERT(NoLookAheadIntoGather, !(sv[1] && n_h != h0 && la_special))
  `ASSERT(NoLookAheadFromNop, !(sv[1] && nop_h0))
  // a gathered element's a comes from the table's stream
  `ASSERT(GatherAddrStreamed, !(ga_run && sv[0]) || ga_v0)
  `ASSERT(GatherLookAheadStreamed, !(ga_run && sv[1] && n_h == h0) || ga_v1)
  // one element per cycle: the stream keeps up with a running operation
  `COVER(GatherBackToBack, ga_take && ga_v1)
  `COVER(GatherEmpty, g_done && gath_h0 && !g_refuse && g_cnt == '0)
  `COVER(IdxFull, ix_h0 && sd_hit && !sd_idx_q && ix_full)
  `COVER(SpDropped, sd_pop_ok && !sd_idx_q && sd_posv >= sd_lim)
  `COVER(SpEmpty, sp_start && nx_kind_q == SpZero)
  `COVER(SpOverlap, sd_pop_ok && ex_act_q)
  `COVER(SpLookAhead, sp_h0 && p1_v && p1_it[2])
  `ASSERT(ReadGranted, (!rd0_req_o || rd0_gnt_i) && (!rd1_req_o || rd1_gnt_i))
  `COVER(HazardStall, go && ((haz & rem) != '0))
  `COVER(LookAheadRead, p1_v && p1_it[2] && !p0_it[2])
  `COVER(CacheHit, (take_now & ~isimm) != '0)
endmodule
