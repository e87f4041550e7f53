// Move channel of a PE: FMOVS fabric -> memory beside the vector engine.
// A move (register MOV) pops LEN0 x LEN1 wavelets of one color and writes
// them to DMEM at the elements of a memory descriptor, while the vector
// engine's own operation queue goes on computing.
//
//   issue   wse_df_vec snapshots the dst (memory) and a (fabric) descriptors
//           into this channel's queue of MDepth moves (the core waits while
//           it is full); the descriptors' bases then advance by ADV.
//   G       one wavelet per cycle from the head move's color, through the
//           fabric unit's move pop port (round robin with the engine on a
//           shared color), into a two-entry write buffer.
//   W       the buffer writes DMEM through the dataflow unit's write port
//           (round robin with the engine, wse_df); the last element of a
//           move counts it done and may activate a task.
// Element order as the engine's: i1 (passes) outer, i0 inner; element
// address base + i1*stride1 + i0*stride0 (words).
//
// No ordering with the engine: software must not let an engine operation
// read or write a move's destination before the move has completed (MDONE,
// MWAIT or its completion task); docs/pe-programming.md.
`include "prim_assert.svh"

module wse_df_mov #(
  parameter int unsigned DmemBytes = wse_cfg_pkg::DmemBytes,
  parameter int unsigned MDepth    = 2,
  localparam int unsigned AW = $clog2(DmemBytes / 4)
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  // Issue (descriptor snapshot from wse_df_vec)
  input  logic          push_i,
  input  logic          rej_i,         // an issue with wrong descriptor types
  input  logic [AW-1:0] push_base_i,   // word index
  input  logic [15:0]   push_len0_i,
  input  logic [15:0]   push_st0_i,
  input  logic [15:0]   push_len1_i,
  input  logic [15:0]   push_st1_i,
  input  logic [4:0]    push_color_i,
  input  logic          push_ten_i,
  input  logic [5:0]    push_tid_i,
  output logic          room_o,
  input  logic          err_clr_i,
  output logic          busy_o,
  output logic [31:0]   status_o,
  output logic [31:0]   done_cnt_o,
  // Fabric
  output logic          pop_req_o,
  output logic [4:0]    pop_color_o,
  input  logic          pop_ok_i,
  input  logic [31:0]   pop_data_i,
  // DMEM write
  output logic          wr_req_o,
  output logic [AW-1:0] wr_addr_o,
  output logic [31:0]   wr_data_o,
  input  logic          wr_gnt_i,
  // Completion
  output logic          act_o,
  output logic [5:0]    act_task_o
);
  localparam int unsigned QW = (MDepth > 1) ? $clog2(MDepth) : 1;

  function automatic logic [QW-1:0] qinc(input logic [QW-1:0] v);
    qinc = (32'(v) == MDepth - 1) ? '0 : v + 1'b1;
  endfunction
  function automatic logic [AW-1:0] sx(input logic [15:0] s);
    sx = AW'({{16{s[15]}}, s});
  endfunction

  // ---- Move queue ------------------------------------------------------------------
  logic [AW-1:0] q_base_q [MDepth];
  logic [AW-1:0] q_base_d [MDepth];
  logic [15:0]   q_len0_q [MDepth];
  logic [15:0]   q_len0_d [MDepth];
  logic [15:0]   q_st0_q  [MDepth];
  logic [15:0]   q_st0_d  [MDepth];
  logic [15:0]   q_len1_q [MDepth];
  logic [15:0]   q_len1_d [MDepth];
  logic [15:0]   q_st1_q  [MDepth];
  logic [15:0]   q_st1_d  [MDepth];
  logic [4:0]    q_color_q [MDepth];
  logic [4:0]    q_color_d [MDepth];
  logic [5:0]    q_tid_q  [MDepth];
  logic [5:0]    q_tid_d  [MDepth];
  logic [MDepth-1:0] q_ten_q, q_ten_d;
  logic [QW-1:0] q_head_q, q_head_d, q_tail_q, q_tail_d;
  logic [QW:0]   q_cnt_q, q_cnt_d;

  assign room_o = (32'(q_cnt_q) < MDepth);

  // ---- G: element walk ----------------------------------------------------------------
  logic          g_first_q, g_first_d;   // the head move has not popped yet
  logic [15:0]   g_i0_q, g_i0_d, g_i1_q, g_i1_d;
  logic [AW-1:0] g_p_q, g_p_d, g_r_q, g_r_d;  // element and row pointers
  logic [AW-1:0] p_e, r_e;
  logic          qv, last0, last1, elast, take;

  // Write buffer: two entries {addr, data, last, ten, tid}.
  logic [AW-1:0] wb_addr_q [2];
  logic [AW-1:0] wb_addr_d [2];
  logic [31:0]   wb_data_q [2];
  logic [31:0]   wb_data_d [2];
  logic [5:0]    wb_tid_q [2];
  logic [5:0]    wb_tid_d [2];
  logic [1:0]    wb_last_q, wb_last_d, wb_ten_q, wb_ten_d;
  logic          wb_head_q, wb_head_d, wb_tail_q, wb_tail_d;
  logic [1:0]    wb_cnt_q, wb_cnt_d;
  logic          wb_pop;

  assign qv    = (q_cnt_q != '0);
  assign p_e   = g_first_q ? q_base_q[q_head_q] : g_p_q;
  assign r_e   = g_first_q ? q_base_q[q_head_q] : g_r_q;
  assign last0 = (g_i0_q == q_len0_q[q_head_q] - 16'd1);
  assign last1 = (g_i1_q == q_len1_q[q_head_q] - 16'd1);
  assign elast = last0 && last1;

  // Pop while the buffer has an entry free at the end of this cycle
  // (registered count: no path from the write grant to the pop).
  assign pop_req_o   = qv && (wb_cnt_q != 2'd2);
  assign pop_color_o = q_color_q[q_head_q];
  assign take        = pop_req_o && pop_ok_i;

  // ---- W: DMEM write ----------------------------------------------------------------------
  assign wr_req_o   = (wb_cnt_q != '0);
  assign wr_addr_o  = wb_addr_q[wb_head_q];
  assign wr_data_o  = wb_data_q[wb_head_q];
  assign wb_pop     = wr_req_o && wr_gnt_i;
  assign act_o      = wb_pop && wb_last_q[wb_head_q] && wb_ten_q[wb_head_q];
  assign act_task_o = wb_tid_q[wb_head_q];

  // ---- Next state -------------------------------------------------------------------------
  logic        err_q, err_d;
  logic [31:0] done_q, done_d;

  always_comb begin
    for (int e = 0; e < MDepth; e++) q_base_d[e] = q_base_q[e];
    for (int e = 0; e < MDepth; e++) q_len0_d[e] = q_len0_q[e];
    for (int e = 0; e < MDepth; e++) q_st0_d[e] = q_st0_q[e];
    for (int e = 0; e < MDepth; e++) q_len1_d[e] = q_len1_q[e];
    for (int e = 0; e < MDepth; e++) q_st1_d[e] = q_st1_q[e];
    for (int e = 0; e < MDepth; e++) q_color_d[e] = q_color_q[e];
    for (int e = 0; e < MDepth; e++) q_tid_d[e] = q_tid_q[e];
    q_ten_d   = q_ten_q;
    q_head_d  = q_head_q;
    q_tail_d  = q_tail_q;
    q_cnt_d   = q_cnt_q;
    g_first_d = g_first_q;
    g_i0_d    = g_i0_q;
    g_i1_d    = g_i1_q;
    g_p_d     = g_p_q;
    g_r_d     = g_r_q;
    for (int e = 0; e < 2; e++) wb_addr_d[e] = wb_addr_q[e];
    for (int e = 0; e < 2; e++) wb_data_d[e] = wb_data_q[e];
    for (int e = 0; e < 2; e++) wb_tid_d[e] = wb_tid_q[e];
    wb_last_d = wb_last_q;
    wb_ten_d  = wb_ten_q;
    wb_head_d = wb_head_q;
    wb_tail_d = wb_tail_q;
    wb_cnt_d  = wb_cnt_q;
    err_d     = err_q;
    done_d    = done_q;

    if (push_i) begin
      q_base_d[q_tail_q]  = push_base_i;
      q_len0_d[q_tail_q]  = push_len0_i;
      q_st0_d[q_tail_q]   = push_st0_i;
      q_len1_d[q_tail_q]  = push_len1_i;
      q_st1_d[q_tail_q]   = push_st1_i;
      q_color_d[q_tail_q] = push_color_i;
      q_ten_d[q_tail_q]   = push_ten_i;
      q_tid_d[q_tail_q]   = push_tid_i;
      q_tail_d = qinc(q_tail_q);
      q_cnt_d  = q_cnt_d + 1'b1;
    end

    if (take) begin
      wb_addr_d[wb_tail_q] = p_e;
      wb_data_d[wb_tail_q] = pop_data_i;
      wb_last_d[wb_tail_q] = elast;
      wb_ten_d[wb_tail_q]  = q_ten_q[q_head_q];
      wb_tid_d[wb_tail_q]  = q_tid_q[q_head_q];
      wb_tail_d = !wb_tail_q;
      wb_cnt_d  = wb_cnt_d + 2'd1;
      g_first_d = 1'b0;
      if (elast) begin
        g_first_d = 1'b1;
        g_i0_d    = '0;
        g_i1_d    = '0;
        q_head_d  = qinc(q_head_q);
        q_cnt_d   = q_cnt_d - 1'b1;
      end else if (last0) begin
        g_i0_d = '0;
        g_i1_d = g_i1_q + 16'd1;
        g_r_d  = r_e + sx(q_st1_q[q_head_q]);
        g_p_d  = r_e + sx(q_st1_q[q_head_q]);
      end else begin
        g_i0_d = g_i0_q + 16'd1;
        g_r_d  = r_e;
        g_p_d  = p_e + sx(q_st0_q[q_head_q]);
      end
    end

    if (wb_pop) begin
      wb_head_d = !wb_head_q;
      wb_cnt_d  = wb_cnt_d - 2'd1;
      if (wb_last_q[wb_head_q]) done_d = done_q + 32'd1;
    end

    if (rej_i)          err_d = 1'b1;
    else if (err_clr_i) err_d = 1'b0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int e = 0; e < MDepth; e++) begin
        q_base_q[e] <= '0; q_len0_q[e] <= '0; q_st0_q[e] <= '0; q_len1_q[e] <= '0;
        q_st1_q[e] <= '0; q_color_q[e] <= '0; q_tid_q[e] <= '0;
      end
      q_ten_q <= '0; q_head_q <= '0; q_tail_q <= '0; q_cnt_q <= '0;
      g_first_q <= 1'b1; g_i0_q <= '0; g_i1_q <= '0; g_p_q <= '0; g_r_q <= '0;
      for (int j = 0; j < 2; j++) begin
        wb_addr_q[j] <= '0; wb_data_q[j] <= '0; wb_tid_q[j] <= '0;
      end
      wb_last_q <= '0; wb_ten_q <= '0; wb_head_q <= 1'b0; wb_tail_q <= 1'b0; wb_cnt_q <= '0;
      err_q <= 1'b0; done_q <= '0;
    end else begin
      for (int e = 0; e < MDepth; e++) q_base_q[e] <= q_base_d[e];
      for (int e = 0; e < MDepth; e++) q_len0_q[e] <= q_len0_d[e];
      for (int e = 0; e < MDepth; e++) q_st0_q[e] <= q_st0_d[e];
      for (int e = 0; e < MDepth; e++) q_len1_q[e] <= q_len1_d[e];
      for (int e = 0; e < MDepth; e++) q_st1_q[e] <= q_st1_d[e];
      for (int e = 0; e < MDepth; e++) q_color_q[e] <= q_color_d[e];
      for (int e = 0; e < MDepth; e++) q_tid_q[e] <= q_tid_d[e];
      q_ten_q   <= q_ten_d;
      q_head_q  <= q_head_d;
      q_tail_q  <= q_tail_d;
      q_cnt_q   <= q_cnt_d;
      g_first_q <= g_first_d;
      g_i0_q    <= g_i0_d;
      g_i1_q    <= g_i1_d;
      g_p_q     <= g_p_d;
      g_r_q     <= g_r_d;
      for (int e = 0; e < 2; e++) wb_addr_q[e] <= wb_addr_d[e];
      for (int e = 0; e < 2; e++) wb_data_q[e] <= wb_data_d[e];
      for (int e = 0; e < 2; e++) wb_tid_q[e] <= wb_tid_d[e];
      wb_last_q <= wb_last_d;
      wb_ten_q  <= wb_ten_d;
      wb_head_q <= wb_head_d;
      wb_tail_q <= wb_tail_d;
      wb_cnt_q  <= wb_cnt_d;
      err_q     <= err_d;
      done_q    <= done_d;
    end
  end

  assign busy_o     = qv || (wb_cnt_q != '0);
  assign status_o   = {busy_o, err_q, 22'd0, 4'(q_cnt_q), 4'(wb_cnt_q)};
  assign done_cnt_o = done_q;

  `ASSERT(MovNoPushWhenFull, !(push_i && !room_o))
  `ASSERT(MovNoPushAndReject, !(push_i && rej_i))
  `ASSERT(MovWbNoOverflow, !(take && wb_cnt_q == 2'd2))
  logic head_len_ok;
  assign head_len_ok = (q_len0_q[q_head_q] != '0) && (q_len1_q[q_head_q] != '0);
  `ASSERT(MovLenNonZero, !qv || head_len_ok)
  `COVER(MovQueueFull, !room_o)
  `COVER(MovWriteWaits, wr_req_o && !wr_gnt_i)
endmodule
