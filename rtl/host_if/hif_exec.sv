// Host interface executor (docs/host-if.md, "Executor"): takes the verdicts
// and payload words of hif_rx_frame, buffers up to two requests, executes
// them one at a time against the mesh's management port and edge ports,
// and answers through hif_tx_frame. It also sends STREAM_OUT events against
// the host's credits and CONSOLE events with the tiles' putchar output.
// One clock domain (the mesh's); the link crossing is in wse_top.
`include "prim_assert.svh"

module hif_exec #(
  parameter int unsigned NumCols    = 4,
  parameter int unsigned NumRows    = 4,
  parameter int unsigned NumVc      = 4,
  parameter int unsigned VcW        = 2,
  parameter int unsigned VcDepth    = 4,
  parameter logic [32*VcW-1:0] ColorVcMap = '0,
  parameter int unsigned MaxPayload = 4096,  // bytes, a multiple of 8
  parameter int unsigned DtbBytes   = 8,
  parameter int unsigned DtbWords   = 1,
  parameter logic [64*DtbWords-1:0] DtbRom = '0,
  parameter logic [255:0] BuildId   = '0,
  parameter int unsigned NumTiles   = NumCols * NumRows,
  parameter int unsigned NumPorts   = 2 * NumRows
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // From hif_rx_frame.
  input  logic        hdr_start_i,
  input  logic [7:0]  hdr_major_i,
  input  logic [7:0]  hdr_minor_i,
  input  logic [7:0]  hdr_opcode_i,
  input  logic [31:0] hdr_tag_i,
  input  logic [31:0] hdr_length_i,
  input  logic        pl_valid_i,
  output logic        pl_ready_o,
  input  logic [63:0] pl_data_i,
  input  logic        evt_valid_i,
  output logic        evt_ready_o,
  input  logic [2:0]  evt_code_i,
  input  logic        resync_i,
  // To hif_tx_frame.
  output logic        cmd_valid_o,
  input  logic        cmd_ready_i,
  output logic [7:0]  cmd_opcode_o,
  output logic [7:0]  cmd_flags_o,
  output logic [31:0] cmd_tag_o,
  output logic [15:0] cmd_status_o,
  output logic [31:0] cmd_length_o,
  output logic        tx_valid_o,
  input  logic        tx_ready_i,
  output logic [63:0] tx_data_o,
  // Management port of the mesh.
  output logic        mgmt_req_valid_o,
  input  logic        mgmt_req_ready_i,
  output logic        mgmt_req_write_o,
  output logic        mgmt_req_bcast_o,
  output logic [7:0]  mgmt_req_x_o,
  output logic [7:0]  mgmt_req_y_o,
  output logic [31:0] mgmt_req_addr_o,
  output logic [31:0] mgmt_req_wdata_o,
  input  logic        mgmt_rsp_valid_i,
  input  logic [31:0] mgmt_rsp_rdata_i,
  input  logic        mgmt_rsp_err_i,
  // Edge ports, port p = edge * NumRows + row (edge 0 west, 1 east).
  output logic [NumPorts-1:0]       in_valid_o,
  output logic [NumPorts*38-1:0]    in_data_o,
  input  logic [NumPorts*NumVc-1:0] in_credit_i,
  input  logic [NumPorts-1:0]       out_valid_i,
  input  logic [NumPorts*38-1:0]    out_data_i,
  output logic [NumPorts*NumVc-1:0] out_credit_o,
  // Tiles' putchar output, tile t = y * NumCols + x.
  input  logic [NumTiles-1:0]       putc_valid_i,
  input  logic [NumTiles*8-1:0]     putc_char_i,
  // Console characters dropped (a tile's buffer was full).
  output logic [31:0]               con_drops_o,
  // Work in progress: a request received, queued or executing, a packet
  // being sent, or an event waiting to be sent (for the simulator's clock).
  output logic                      busy_o
);
  localparam int unsigned BufWords = MaxPayload / 8;
  localparam int unsigned BW       = $clog2(BufWords) + 1;  // slot bit + index
  localparam int unsigned IW       = BW - 1;
  localparam int unsigned PW       = (NumPorts > 1) ? $clog2(NumPorts) : 1;
  localparam int unsigned TW       = (NumTiles > 1) ? $clog2(NumTiles) : 1;
  localparam int unsigned CredW    = $clog2(VcDepth + 1);
  localparam int unsigned OutDepth = NumVc * VcDepth;  // outlet buffer per port
  localparam int unsigned OW       = $clog2(OutDepth);
  localparam int unsigned ConDepth = 32;  // console bytes buffered per tile
  localparam int unsigned CPW      = $clog2(ConDepth);

  localparam logic [2:0] EvtOk = 3'd0, EvtVersion = 3'd1, EvtLength = 3'd2,
                         EvtMalformed = 3'd3, EvtOpcode = 3'd4,
                         EvtPayloadCrc = 3'd5, EvtDrop = 3'd6;

  // ---------------------------------------------------------------------
  // Request slots: two payload buffers with their header and verdict.
  // ---------------------------------------------------------------------
  logic [63:0] buf_q [2*BufWords];
  logic [1:0]  full_q;
  logic [2:0]  s_evt_q [2];
  logic [7:0]  s_op_q [2];
  logic [7:0]  s_major_q [2];
  logic [7:0]  s_minor_q [2];
  logic [31:0] s_tag_q [2];
  logic [31:0] s_len_q [2];

  logic        rd_q;          // oldest slot, executed next
  logic        rx_busy_q, wr_lat_q, wr_sel;
  logic [IW-1:0] wr_idx_q;
  logic        rx_pick;

  // A new packet goes to the oldest slot when it is free (or when both are
  // taken: it is freed first), else to the other one.
  assign rx_pick = (full_q[rd_q] && !full_q[~rd_q]) ? ~rd_q : rd_q;
  assign wr_sel  = rx_busy_q ? wr_lat_q : rx_pick;
  assign pl_ready_o  = !full_q[wr_sel];
  assign evt_ready_o = !full_q[wr_sel] || (evt_code_i == EvtDrop);

  // ---------------------------------------------------------------------
  // Executor state.
  // ---------------------------------------------------------------------
  typedef enum logic [4:0] {
    SIdle, SDispatch, SMgmtReq, SMgmtRsp, SSiChk, SSiRun, SCrChk, SCrApply,
    STxCmd, STxPl, SDone
  } state_e;
  state_e st_q;

  // What the mgmt loop does.
  typedef enum logic [2:0] {MkAcc, MkCtrl, MkReset, MkPerf} mgmt_kind_e;
  // Where payload words of a packet being sent come from.
  typedef enum logic [2:0] {SrcBuf, SrcInfo, SrcVer, SrcOut, SrcCon} src_e;
  // What follows a sent packet.
  typedef enum logic [1:0] {RetDone, RetIdle, RetSi, RetSide} ret_e;

  logic        cur_q;         // slot of the request being executed
  logic        hs_q;          // slot parsed by the credit/abort handler
  logic        side_q;        // handler runs inside a stalled STREAM_IN
  logic [7:0]  op_q;
  logic [31:0] tag_q;

  // Packet being sent.
  logic [7:0]  tx_op_q, tx_flags_q;
  logic [31:0] tx_tag_q, tx_len_q;
  logic [15:0] tx_st_q;
  src_e        tx_src_q;
  ret_e        tx_ret_q;
  logic [13:0] tx_idx_q, tx_nw_q;
  logic [PW-1:0] tx_port_q;
  logic [TW-1:0] tx_tile_q;
  logic [3:0]  tx_n_q;

  // Management loop.
  mgmt_kind_e  mk_q;
  logic        mg_write_q, mg_bcast_q;
  logic [7:0]  mg_x_q, mg_y_q;
  logic [31:0] mg_base_q, mg_i_q, mg_n_q;
  logic [31:0] mg_addr_q, mg_wdata_q;
  logic        mg_valid_q;

  // Stream-in and credit walks.
  logic [IW:0]  p_q;          // word pointer
  logic [IW:0]  nw_q;         // payload words
  logic [31:0]  remain_q;
  logic [PW-1:0] si_port_q;
  logic         err_q;
  logic [15:0]  err_st_q;

  // Host interface counters (docs/protocol.md 4.10).
  logic [31:0] cnt_q [7];

  // Stream-out credits the host granted, per port.
  logic [31:0] ocred_q [NumPorts];
  // Intake credits of the mesh, per port and VC.
  logic [CredW-1:0] icred_q [NumPorts][NumVc];
  logic [NumPorts-1:0]    in_valid_q;
  logic [NumPorts*38-1:0] in_data_q;

  // Outlet buffers.
  logic [37:0] omem_q [NumPorts][OutDepth];
  logic [OW:0] owp_q [NumPorts];
  logic [OW:0] orp_q [NumPorts];
  logic [NumPorts*NumVc-1:0] out_credit_q;

  // Console buffers.
  logic [7:0] cmem_q [NumTiles][ConDepth];
  logic [CPW:0] cwp_q [NumTiles];
  logic [CPW:0] crp_q [NumTiles];
  logic         ev_turn_q;  // an event goes before the next request
  logic [31:0] con_drops_q;
  assign con_drops_o = con_drops_q;
  assign busy_o = (st_q != SIdle) || (|full_q) || rx_busy_q || out_any || con_any;

  // ---------------------------------------------------------------------
  // Helpers.
  // ---------------------------------------------------------------------
  function automatic logic [VcW-1:0] vc_of(logic [4:0] color);
    vc_of = ColorVcMap[32'(color)*VcW +: VcW];
  endfunction

  // Word k of slot s.
  function automatic logic [BW-1:0] baddr(logic s, logic [IW:0] k);
    /* verilator lint_off UNUSEDSIGNAL */
    logic [IW:0] kk;
    /* verilator lint_on UNUSEDSIGNAL */
    kk = k;
    baddr = {s, kk[IW-1:0]};
  endfunction

  // Current payload word of the handler / the executor.
  logic [63:0] w_cur, w_p, w_hs;
  assign w_cur = buf_q[baddr(cur_q, '0)];
  assign w_p   = buf_q[baddr(cur_q, p_q)];
  assign w_hs  = buf_q[baddr(hs_q, p_q)];

  // Tile access fields of the current request.
  logic [7:0]  a_x, a_y;
  logic [15:0] a_rsvd;
  logic [31:0] a_addr, a_count;
  assign a_x     = w_cur[7:0];
  assign a_y     = w_cur[15:8];
  assign a_rsvd  = w_cur[31:16];
  assign a_addr  = w_cur[63:32];
  assign a_count = buf_q[baddr(cur_q, 1)][31:0];

  logic a_all, a_in;
  assign a_all = (a_x == 8'hFF) && (a_y == 8'hFF);
  assign a_in  = (32'(a_x) < NumCols) && (32'(a_y) < NumRows);

  // Slot length in words: ceil(len / 8).
  function automatic logic [IW:0] nwords(logic [31:0] len);
    /* verilator lint_off UNUSEDSIGNAL */
    logic [31:0] n;
    /* verilator lint_on UNUSEDSIGNAL */
    n = (len + 32'd7) >> 3;
    nwords = n[IW:0];
  endfunction

  // Edge port byte -> port index, and its validity.
  function automatic logic [PW-1:0] port_idx(logic [7:0] pb);
    /* verilator lint_off UNUSEDSIGNAL */
    logic [7:0] b;
    /* verilator lint_on UNUSEDSIGNAL */
    b = pb;
    port_idx = PW'(32'(b[7]) * NumRows + 32'(b[5:0]));
  endfunction

  // Outlet fill per port, first sendable port.
  logic [OW:0]   ofill [NumPorts];
  logic          out_any;
  logic [PW-1:0] out_sel;
  always_comb begin
    out_any = 1'b0;
    out_sel = '0;
    for (int p = NumPorts - 1; p >= 0; p--) begin
      ofill[p] = owp_q[p] - orp_q[p];
      if (ofill[p] != '0 && ocred_q[p] != '0) begin
        out_any = 1'b1;
        out_sel = PW'(p);
      end
    end
  end
  logic [31:0] out_n;
  always_comb begin
    out_n = 32'(ofill[out_sel]);
    if (ocred_q[out_sel] < out_n) out_n = ocred_q[out_sel];
  end

  // Console fill per tile, first tile with output.
  logic [CPW:0]  cfill [NumTiles];
  logic          con_any;
  logic [TW-1:0] con_sel;
  always_comb begin
    con_any = 1'b0;
    con_sel = '0;
    for (int t = NumTiles - 1; t >= 0; t--) begin
      cfill[t] = cwp_q[t] - crp_q[t];
      if (cfill[t] != '0) begin
        con_any = 1'b1;
        con_sel = TW'(t);
      end
    end
  end

  // Payload word source of the packet being sent.
  logic [63:0] src_word;
  logic [37:0] out_head;
  assign out_head = omem_q[tx_port_q][orp_q[tx_port_q][OW-1:0]];
  always_comb begin
    src_word = '0;
    unique case (tx_src_q)
      SrcBuf: src_word = buf_q[baddr(cur_q, tx_idx_q[IW:0])];
      SrcInfo: begin
        unique case (tx_idx_q)
          14'd0: src_word = {32'(MaxPayload), 16'h0, 8'(hif_pkg::ProtoMinor),
                             8'(hif_pkg::ProtoMajor)};
          14'd1: src_word = {32'(DtbBytes), 32'd2};
          14'd2: src_word = BuildId[63:0];
          14'd3: src_word = BuildId[127:64];
          14'd4: src_word = BuildId[191:128];
          14'd5: src_word = BuildId[255:192];
          default: src_word = (32'(tx_idx_q) - 6 < DtbWords) ?
                              DtbRom[64*(32'(tx_idx_q) - 6) +: 64] : '0;
        endcase
      end
      SrcVer: src_word = {32'h0, s_minor_q[cur_q], s_major_q[cur_q],
                          8'(hif_pkg::ProtoMinor), 8'(hif_pkg::ProtoMajor)};
      SrcOut: begin
        if (tx_idx_q == '0) begin
          src_word[63:32] = (tx_len_q - 32'd8) >> 3;
          src_word[7:0]   = (32'(tx_port_q) >= NumRows) ?
                            8'(32'h80 + 32'(tx_port_q) - NumRows) : 8'(tx_port_q);
        end else begin
          src_word = {26'h0, out_head};
        end
      end
      SrcCon: begin
        if (tx_idx_q == '0) begin
          src_word[7:0]   = 8'(32'(tx_tile_q) % NumCols);
          src_word[15:8]  = 8'(32'(tx_tile_q) / NumCols);
          src_word[31:16] = 16'(tx_n_q);
          for (int k = 0; k < 4; k++)
            src_word[32 + 8*k +: 8] = cmem_q[tx_tile_q][CPW'(crp_q[tx_tile_q] + (CPW+1)'(k))];
        end else begin
          for (int k = 0; k < 8; k++)
            src_word[8*k +: 8] = cmem_q[tx_tile_q][CPW'(crp_q[tx_tile_q] + (CPW+1)'(k + 4))];
        end
      end
      default: src_word = '0;
    endcase
  end

  assign cmd_valid_o  = (st_q == STxCmd);
  assign cmd_opcode_o = tx_op_q;
  assign cmd_flags_o  = tx_flags_q;
  assign cmd_tag_o    = tx_tag_q;
  assign cmd_status_o = tx_st_q;
  assign cmd_length_o = tx_len_q;
  assign tx_valid_o   = (st_q == STxPl);
  assign tx_data_o    = src_word;

  assign mgmt_req_valid_o = mg_valid_q;
  assign mgmt_req_write_o = mg_write_q;
  assign mgmt_req_bcast_o = mg_bcast_q;
  assign mgmt_req_x_o     = mg_x_q;
  assign mgmt_req_y_o     = mg_y_q;
  assign mgmt_req_addr_o  = mg_addr_q;
  assign mgmt_req_wdata_o = mg_wdata_q;

  assign in_valid_o   = in_valid_q;
  assign in_data_o    = in_data_q;
  assign out_credit_o = out_credit_q;

  // Current wavelet of the stream-in walk and its credit.
  logic [4:0]    si_color;
  logic [VcW-1:0] si_vc;
  assign si_color = w_p[36:32];
  assign si_vc    = vc_of(si_color);

  // The other slot holds a finished, intact STREAM_CREDIT or ABORT.
  logic side_ready;
  assign side_ready = full_q[~cur_q] && (s_evt_q[~cur_q] == EvtOk) &&
      (s_op_q[~cur_q] == 8'(hif_pkg::OpStreamCredit) ||
       s_op_q[~cur_q] == 8'(hif_pkg::OpAbort));

  // Intake credit pulses.
  logic [CredW-1:0] icred_add [NumPorts][NumVc];
  always_comb begin
    for (int p = 0; p < NumPorts; p++)
      for (int v = 0; v < NumVc; v++)
        icred_add[p][v] = CredW'(in_credit_i[p*NumVc + v]);
  end

  // Saturating counter add.
  function automatic logic [31:0] sat_add(logic [31:0] a, logic [31:0] b);
    logic [32:0] s;
    s = {1'b0, a} + {1'b0, b};
    sat_add = s[32] ? 32'hFFFF_FFFF : s[31:0];
  endfunction

  // Start sending a packet (task-like helper as a macro of assignments).
  logic        start_tx;
  logic        abort_ok_q;
  logic        unused_hdr;
  assign unused_hdr = hdr_start_i;
  logic [7:0]  stx_op, stx_flags;
  logic [31:0] stx_tag, stx_len;
  logic [15:0] stx_st;
  src_e        stx_src;
  ret_e        stx_ret;

  // ---------------------------------------------------------------------
  // Sequential logic.
  // ---------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      full_q     <= '0;
      rd_q       <= 1'b0;
      rx_busy_q  <= 1'b0;
      wr_lat_q   <= 1'b0;
      wr_idx_q   <= '0;
      for (int s = 0; s < 2; s++) begin
        s_evt_q[s] <= EvtOk;  s_op_q[s] <= '0;  s_major_q[s] <= '0;
        s_minor_q[s] <= '0;   s_tag_q[s] <= '0; s_len_q[s] <= '0;
      end
      st_q       <= SIdle;
      cur_q      <= 1'b0;
      hs_q       <= 1'b0;
      side_q     <= 1'b0;
      op_q       <= '0;
      tag_q      <= '0;
      tx_op_q    <= '0;  tx_flags_q <= '0; tx_tag_q <= '0; tx_len_q <= '0;
      tx_st_q    <= '0;  tx_src_q <= SrcBuf; tx_ret_q <= RetIdle;
      tx_idx_q   <= '0;  tx_nw_q <= '0; tx_port_q <= '0; tx_tile_q <= '0;
      tx_n_q     <= '0;
      mk_q       <= MkAcc;
      mg_write_q <= 1'b0; mg_bcast_q <= 1'b0; mg_x_q <= '0; mg_y_q <= '0;
      mg_base_q  <= '0; mg_i_q <= '0; mg_n_q <= '0; mg_addr_q <= '0;
      mg_wdata_q <= '0; mg_valid_q <= 1'b0;
      p_q        <= '0; nw_q <= '0; remain_q <= '0; si_port_q <= '0;
      err_q      <= 1'b0; err_st_q <= '0;
      for (int i = 0; i < 7; i++) cnt_q[i] <= '0;
      for (int p = 0; p < NumPorts; p++) begin
        ocred_q[p] <= '0;
        owp_q[p] <= '0;
        orp_q[p] <= '0;
        for (int v = 0; v < NumVc; v++) icred_q[p][v] <= CredW'(VcDepth);
      end
      in_valid_q   <= '0;
      in_data_q    <= '0;
      out_credit_q <= '0;
      for (int t = 0; t < NumTiles; t++) begin
        cwp_q[t] <= '0;
        crp_q[t] <= '0;
      end
      con_drops_q <= '0;
      ev_turn_q   <= 1'b0;
    end else begin
      // ---------------- receiver side ----------------
      if (pl_valid_i && pl_ready_o) begin
        buf_q[{wr_sel, wr_idx_q}] <= pl_data_i;
        wr_idx_q  <= wr_idx_q + 1'b1;
        rx_busy_q <= 1'b1;
        wr_lat_q  <= wr_sel;
      end
      if (evt_valid_i && evt_ready_o) begin
        rx_busy_q <= 1'b0;
        wr_idx_q  <= '0;
        if (evt_code_i != EvtDrop) begin
          full_q[wr_sel]    <= 1'b1;
          s_evt_q[wr_sel]   <= evt_code_i;
          s_op_q[wr_sel]    <= hdr_opcode_i;
          s_major_q[wr_sel] <= hdr_major_i;
          s_minor_q[wr_sel] <= hdr_minor_i;
          s_tag_q[wr_sel]   <= hdr_tag_i;
          s_len_q[wr_sel]   <= hdr_length_i;
          cnt_q[0] <= sat_add(cnt_q[0], 32'd1);
          if (evt_code_i == EvtPayloadCrc) cnt_q[3] <= sat_add(cnt_q[3], 32'd1);
        end
      end
      if (resync_i) cnt_q[2] <= sat_add(cnt_q[2], 32'd8);

      // ---------------- outlets ----------------
      out_credit_q <= '0;
      for (int p = 0; p < NumPorts; p++) begin
        if (out_valid_i[p]) begin
          omem_q[p][owp_q[p][OW-1:0]] <= out_data_i[p*38 +: 38];
          owp_q[p] <= owp_q[p] + 1'b1;
        end
      end

      // ---------------- intake ----------------
      in_valid_q <= '0;
      for (int p = 0; p < NumPorts; p++)
        for (int v = 0; v < NumVc; v++)
          icred_q[p][v] <= icred_q[p][v] + icred_add[p][v];

      // ---------------- console ----------------
      for (int t = 0; t < NumTiles; t++) begin
        if (putc_valid_i[t]) begin
          if ((cwp_q[t] - crp_q[t]) < (CPW+1)'(ConDepth)) begin
            cmem_q[t][cwp_q[t][CPW-1:0]] <= putc_char_i[t*8 +: 8];
            cwp_q[t] <= cwp_q[t] + 1'b1;
          end else begin
            con_drops_q <= sat_add(con_drops_q, 32'd1);
          end
        end
      end

      // ---------------- executor ----------------
      unique case (st_q)
        SIdle: begin
          if (full_q[rd_q] && !(ev_turn_q && (out_any || con_any))) begin
            ev_turn_q <= 1'b1;
            cur_q  <= rd_q;
            op_q   <= s_op_q[rd_q];
            tag_q  <= s_tag_q[rd_q];
            side_q <= 1'b0;
            hs_q   <= rd_q;
            p_q    <= '0;
            err_q  <= 1'b0;
            st_q   <= SDispatch;
          end else if (out_any) begin
            ev_turn_q <= 1'b0;
            tx_port_q <= out_sel;
            ocred_q[out_sel] <= ocred_q[out_sel] - out_n;
          end else if (con_any) begin
            ev_turn_q <= 1'b0;
            tx_tile_q <= con_sel;
            tx_n_q    <= (32'(cfill[con_sel]) > 8) ? 4'd8 : 4'(cfill[con_sel]);
          end
        end

        SDispatch: begin
          if (s_evt_q[cur_q] == EvtOk) begin
            mg_i_q <= '0;
            p_q    <= '0;
            nw_q   <= nwords(s_len_q[cur_q]);
            err_q  <= 1'b0;
            if (op_q == 8'(hif_pkg::OpStreamIn)) st_q <= SSiChk;
            else if (op_q == 8'(hif_pkg::OpStreamCredit)) st_q <= SCrChk;
          end
          // Management sequences.
          mg_bcast_q <= a_all;
          mg_x_q     <= a_x;
          mg_y_q     <= a_y;
          mg_i_q     <= '0;
          mg_n_q     <= a_count;
          mg_base_q  <= a_addr;
          mg_write_q <= 1'b1;
          unique case (op_q)
            8'(hif_pkg::OpMemRead), 8'(hif_pkg::OpCsrRead), 8'(hif_pkg::OpRouteRead),
            8'(hif_pkg::OpRegRead): begin
              mk_q <= MkAcc;
              mg_write_q <= 1'b0;
              if (op_q == 8'(hif_pkg::OpCsrRead)) mg_base_q <= 32'h0001_0000 + (a_addr << 2);
              if (op_q == 8'(hif_pkg::OpRouteRead)) mg_base_q <= 32'h0000_1000 + (a_addr << 2);
            end
            8'(hif_pkg::OpMemWrite), 8'(hif_pkg::OpCsrWrite), 8'(hif_pkg::OpRouteWrite),
            8'(hif_pkg::OpRegWrite): begin
              mk_q <= MkAcc;
              if (op_q == 8'(hif_pkg::OpCsrWrite)) mg_base_q <= 32'h0001_0000 + (a_addr << 2);
              if (op_q == 8'(hif_pkg::OpRouteWrite)) mg_base_q <= 32'h0000_1000 + (a_addr << 2);
            end
            8'(hif_pkg::OpHalt), 8'(hif_pkg::OpRun): begin
              mk_q <= MkCtrl;
              mg_n_q <= 32'd1;
            end
            8'(hif_pkg::OpReset): begin
              mk_q <= MkReset;
              mg_bcast_q <= 1'b1;
              mg_n_q <= 32'd33;
            end
            8'(hif_pkg::OpPerfRead): begin
              mk_q <= MkPerf;
              mg_write_q <= 1'b0;
              mg_n_q <= 32'd15;
            end
            default: ;
          endcase
          if (!start_tx && s_evt_q[cur_q] == EvtOk && op_q == 8'(hif_pkg::OpPerfRead) && a_all) begin
            // Host interface counters: straight into the response buffer.
            buf_q[baddr(cur_q, 0)] <= {cnt_q[0], 32'd7};
            buf_q[baddr(cur_q, 1)] <= {cnt_q[2], cnt_q[1]};
            buf_q[baddr(cur_q, 2)] <= {cnt_q[4], cnt_q[3]};
            buf_q[baddr(cur_q, 3)] <= {cnt_q[6], cnt_q[5]};
            mg_n_q <= 32'd7;
            p_q    <= '1;
          end else if (!start_tx && s_evt_q[cur_q] == EvtOk && op_q != 8'(hif_pkg::OpStreamIn) &&
                   op_q != 8'(hif_pkg::OpStreamCredit)) begin
            st_q <= SMgmtReq;
            if (op_q == 8'(hif_pkg::OpReset))
              for (int p = 0; p < NumPorts; p++) ocred_q[p] <= '0;
          end
        end

        SMgmtReq: begin
          if (!mg_valid_q) begin
            mg_valid_q <= 1'b1;
            unique case (mk_q)
              MkAcc: begin
                mg_addr_q  <= mg_base_q + (mg_i_q << 2);
                mg_wdata_q <= buf_q[baddr(cur_q, (IW+1)'((mg_i_q + 32'd3) >> 1))]
                                   [32*((mg_i_q + 32'd3) & 32'd1) +: 32];
              end
              MkCtrl: begin
                mg_addr_q  <= 32'h4;
                mg_wdata_q <= (op_q == 8'(hif_pkg::OpHalt)) ? 32'h1 : 32'h0;
              end
              MkReset: begin
                mg_addr_q  <= (mg_i_q == 0) ? 32'h4 : 32'h0000_1000 + ((mg_i_q - 1) << 2);
                mg_wdata_q <= (mg_i_q == 0) ? 32'h7 : 32'h0;
              end
              default: begin  // MkPerf
                mg_addr_q  <= 32'h2000 + ((mg_i_q / 3) << 4) + ((mg_i_q % 3) << 2);
                mg_wdata_q <= '0;
              end
            endcase
          end else if (mgmt_req_ready_i) begin
            mg_valid_q <= 1'b0;
            st_q <= SMgmtRsp;
          end
        end

        SMgmtRsp: begin
          if (mgmt_rsp_valid_i) begin
            // Read data: u32 index i (MkPerf: i + 1, after the count).
            if (!mg_write_q) begin
              if (mk_q == MkPerf)
                buf_q[baddr(cur_q, (IW+1)'((mg_i_q + 1) >> 1))][32*((mg_i_q + 1) & 1) +: 32]
                  <= mgmt_rsp_rdata_i;
              else
                buf_q[baddr(cur_q, (IW+1)'(mg_i_q >> 1))][32*(mg_i_q & 1) +: 32]
                  <= mgmt_rsp_rdata_i;
            end
            mg_i_q <= mg_i_q + 1;
            if (mgmt_rsp_err_i && mk_q != MkReset) begin
              err_q <= 1'b1;
              st_q  <= SDispatch;  // answered MGMT by the response logic
            end else if (mg_i_q + 1 == mg_n_q) begin
              err_q <= 1'b0;
              st_q  <= SDispatch;
              p_q   <= '1;  // marks "management sequence finished"
            end else begin
              st_q <= SMgmtReq;
            end
            if (mk_q == MkPerf && mg_i_q == 0)
              buf_q[baddr(cur_q, '0)][31:0] <= 32'd15;
          end
        end

        SSiChk: begin
          // Pass 1: the whole chunk list is checked before anything is sent.
          if (p_q == nw_q) begin
            p_q <= '0;
            remain_q <= '0;
            st_q <= SSiRun;
          end else if (remain_q == '0) begin
            // Chunk header.
            p_q <= p_q + 1'b1;
            remain_q <= w_p[63:32];
          end else begin
            p_q <= p_q + 1'b1;
            remain_q <= remain_q - 1;
          end
        end

        SSiRun: begin
          if (p_q == nw_q) begin
            ;  // response started below
          end else if (remain_q == '0) begin
            si_port_q <= port_idx(w_p[7:0]);
            remain_q  <= w_p[63:32];
            p_q <= p_q + 1'b1;
          end else if (icred_q[si_port_q][si_vc] != '0) begin
            in_valid_q[si_port_q] <= 1'b1;
            in_data_q[32'(si_port_q)*38 +: 38] <= w_p[37:0];
            icred_q[si_port_q][si_vc] <= icred_q[si_port_q][si_vc] + icred_add[si_port_q][si_vc] - 1'b1;
            cnt_q[5] <= sat_add(cnt_q[5], 32'd1);
            remain_q <= remain_q - 1;
            p_q <= p_q + 1'b1;
          end else if (out_any) begin
            tx_port_q <= out_sel;
            ocred_q[out_sel] <= ocred_q[out_sel] - out_n;
          end else if (side_ready) begin
            hs_q   <= ~cur_q;
            side_q <= 1'b1;
            p_q    <= p_q;
            if (s_op_q[~cur_q] == 8'(hif_pkg::OpStreamCredit)) begin
              st_q <= SCrChk;
              // The walk pointer of the stream-in is kept in mg_i_q.
              mg_i_q  <= 32'(p_q);
              nw_q    <= nwords(s_len_q[~cur_q]);
              p_q     <= '0;
              err_q   <= 1'b0;
            end
          end
        end

        SCrChk: begin
          // Grants: check all, then apply all.
          if (p_q == nw_q || err_q) begin
            p_q  <= '0;
            if (!err_q) st_q <= SCrApply;
          end else begin
            p_q <= p_q + 1'b1;
            if (w_hs[31:8] != '0 || w_hs[6] || w_hs[63:32] == '0) begin
              err_q <= 1'b1;  err_st_q <= 16'(hif_pkg::StMalformed);
            end else if (32'(w_hs[5:0]) >= NumRows) begin
              err_q <= 1'b1;  err_st_q <= 16'(hif_pkg::StRange);
            end
          end
        end

        SCrApply: begin
          if (p_q != nw_q) begin
            ocred_q[port_idx(w_hs[7:0])] <= sat_add(ocred_q[port_idx(w_hs[7:0])], w_hs[63:32]);
            p_q <= p_q + 1'b1;
          end
        end

        STxCmd: begin
          if (cmd_ready_i) begin
            st_q <= (tx_nw_q == '0) ? SDone : STxPl;
            cnt_q[1] <= sat_add(cnt_q[1], 32'd1);
            if (tx_flags_q == 8'(hif_pkg::FlagResponse) && tx_st_q != '0)
              cnt_q[4] <= sat_add(cnt_q[4], 32'd1);
          end
        end

        STxPl: begin
          if (tx_ready_i) begin
            tx_idx_q <= tx_idx_q + 1'b1;
            if (tx_src_q == SrcOut && tx_idx_q != '0) begin
              orp_q[tx_port_q] <= orp_q[tx_port_q] + 1'b1;
              out_credit_q[32'(tx_port_q)*NumVc + 32'(vc_of(out_head[36:32]))] <= 1'b1;
              cnt_q[6] <= sat_add(cnt_q[6], 32'd1);
            end
            if (tx_idx_q + 1'b1 == tx_nw_q) st_q <= SDone;
          end
        end

        SDone: begin
          if (tx_src_q == SrcCon) crp_q[tx_tile_q] <= crp_q[tx_tile_q] + (CPW+1)'(tx_n_q);
          unique case (tx_ret_q)
            RetDone: begin
              full_q[cur_q] <= 1'b0;
              rd_q <= ~cur_q;
              st_q <= SIdle;
            end
            RetSi: st_q <= SSiRun;
            RetSide: begin
              full_q[hs_q] <= 1'b0;
              side_q <= 1'b0;
              hs_q   <= cur_q;
              nw_q   <= nwords(s_len_q[cur_q]);
              p_q    <= (IW+1)'(mg_i_q);
              st_q   <= SSiRun;
            end
            RetIdle: st_q <= SIdle;
            default: st_q <= SIdle;
          endcase
        end

        default: st_q <= SIdle;
      endcase
      if (start_tx) begin
        tx_op_q    <= stx_op;
        tx_flags_q <= stx_flags;
        tx_tag_q   <= stx_tag;
        tx_len_q   <= stx_len;
        tx_st_q    <= stx_st;
        tx_src_q   <= stx_src;
        tx_ret_q   <= stx_ret;
        tx_idx_q   <= '0;
        tx_nw_q    <= 14'((stx_len + 32'd7) >> 3);
        st_q       <= STxCmd;
      end

    end
  end

  // Release the slot when the receiver writes into a freed one in the same
  // cycle the executor frees it: full_q is set by the receiver only for
  // wr_sel, which is never a slot being freed (it is full).

  // ---------------------------------------------------------------------
  // Which packet to send, and when (combinational; start_tx moves to STxCmd).
  // ---------------------------------------------------------------------
  logic        acc_rd, acc_wr, acc_op;
  logic [32:0] acc_end;
  always_comb begin
    start_tx  = 1'b0;
    stx_op    = op_q;
    stx_flags = 8'(hif_pkg::FlagResponse);
    stx_tag   = tag_q;
    stx_len   = '0;
    stx_st    = 16'(hif_pkg::StOk);
    stx_src   = SrcBuf;
    stx_ret   = RetDone;

    acc_rd = (op_q == 8'(hif_pkg::OpMemRead)) || (op_q == 8'(hif_pkg::OpCsrRead)) ||
             (op_q == 8'(hif_pkg::OpRouteRead)) || (op_q == 8'(hif_pkg::OpRegRead));
    acc_wr = (op_q == 8'(hif_pkg::OpMemWrite)) || (op_q == 8'(hif_pkg::OpCsrWrite)) ||
             (op_q == 8'(hif_pkg::OpRouteWrite)) || (op_q == 8'(hif_pkg::OpRegWrite));
    acc_op = acc_rd || acc_wr;
    acc_end = {1'b0, a_addr} + {1'b0, a_count};

    unique case (st_q)
      SIdle: begin
        if ((!full_q[rd_q] || ev_turn_q) && out_any) begin
          start_tx  = 1'b1;
          stx_op    = 8'(hif_pkg::OpStreamOut);
          stx_flags = 8'(hif_pkg::FlagEvent);
          stx_tag   = '0;
          stx_len   = 32'd8 + (out_n << 3);
          stx_src   = SrcOut;
          stx_ret   = RetIdle;
        end else if ((!full_q[rd_q] || ev_turn_q) && con_any) begin
          start_tx  = 1'b1;
          stx_op    = 8'(hif_pkg::OpConsole);
          stx_flags = 8'(hif_pkg::FlagEvent);
          stx_tag   = '0;
          stx_len   = 32'd4 + ((32'(cfill[con_sel]) > 8) ? 32'd8 : 32'(cfill[con_sel]));
          stx_src   = SrcCon;
          stx_ret   = RetIdle;
        end
      end

      SDispatch: begin
        start_tx = 1'b1;
        unique case (s_evt_q[cur_q])
          EvtVersion: begin
            stx_st  = 16'(hif_pkg::StVersion);
            stx_len = 32'd4;
            stx_src = SrcVer;
          end
          EvtLength:     stx_st = 16'(hif_pkg::StLength);
          EvtMalformed:  stx_st = 16'(hif_pkg::StMalformed);
          EvtOpcode:     stx_st = 16'(hif_pkg::StOpcode);
          EvtPayloadCrc: stx_st = 16'(hif_pkg::StPayloadCrc);
          EvtOk: begin
            if (p_q == '1) begin
              // A management sequence finished without error.
              if (acc_rd) stx_len = mg_n_q << 2;
              if (op_q == 8'(hif_pkg::OpPerfRead)) stx_len = 32'd4 + (mg_n_q << 2);
            end else if (err_q) begin
              stx_st = 16'(hif_pkg::StMgmt);
            end else begin
              unique case (op_q)
                8'(hif_pkg::OpInfo): begin
                  if (s_len_q[cur_q] != 0) stx_st = 16'(hif_pkg::StMalformed);
                  else begin
                    stx_len = 32'd48 + 32'(DtbBytes);
                    stx_src = SrcInfo;
                  end
                end
                8'(hif_pkg::OpPing): stx_len = s_len_q[cur_q];
                8'(hif_pkg::OpReset): begin
                  if (s_len_q[cur_q] != 4 || w_cur[31:0] != 0)
                    stx_st = 16'(hif_pkg::StMalformed);
                  else start_tx = 1'b0;
                end
                8'(hif_pkg::OpAbort): begin
                  // The ABORT that ended a stream-in is answered OK.
                  stx_st = (s_len_q[cur_q] != 4) ? 16'(hif_pkg::StMalformed) :
                           abort_ok_q ? 16'(hif_pkg::StOk) : 16'(hif_pkg::StNotFound);
                end
                8'(hif_pkg::OpHalt), 8'(hif_pkg::OpRun): begin
                  if (s_len_q[cur_q] != 4 || a_rsvd != 0) stx_st = 16'(hif_pkg::StMalformed);
                  else if (!a_all && !a_in) stx_st = 16'(hif_pkg::StRange);
                  else start_tx = 1'b0;
                end
                8'(hif_pkg::OpPerfRead): begin
                  if (s_len_q[cur_q] != 4 || a_rsvd != 0) stx_st = 16'(hif_pkg::StMalformed);
                  else if (a_all) begin
                    // Host interface counters, from registers.
                    start_tx = 1'b0;
                  end else if (!a_in) stx_st = 16'(hif_pkg::StRange);
                  else start_tx = 1'b0;
                end
                8'(hif_pkg::OpStreamIn): begin
                  if (s_len_q[cur_q] == 0 || s_len_q[cur_q][2:0] != 0)
                    stx_st = 16'(hif_pkg::StMalformed);
                  else start_tx = 1'b0;
                end
                8'(hif_pkg::OpStreamCredit): begin
                  if (s_len_q[cur_q] == 0 || s_len_q[cur_q][2:0] != 0)
                    stx_st = 16'(hif_pkg::StMalformed);
                  else start_tx = 1'b0;
                end
                8'(hif_pkg::OpFlashRead), 8'(hif_pkg::OpFlashErase),
                8'(hif_pkg::OpFlashProgram), 8'(hif_pkg::OpFlashVerify):
                  stx_st = 16'(hif_pkg::StNotSupported);
                default: begin
                  if (acc_op) begin
                    if (s_len_q[cur_q] < 12 || a_rsvd != 0 || a_count == 0 ||
                        (acc_rd && s_len_q[cur_q] != 12) ||
                        (acc_wr && ({3'b0, s_len_q[cur_q]} != 35'd12 + {1'b0, a_count, 2'b00})))
                      stx_st = 16'(hif_pkg::StMalformed);
                    else if (!a_in && !(a_all && acc_wr)) stx_st = 16'(hif_pkg::StRange);
                    else if ((op_q == 8'(hif_pkg::OpMemRead) || op_q == 8'(hif_pkg::OpMemWrite)) &&
                             (!a_addr[31] || ({2'b0, a_addr} + {a_count, 2'b00}) > 34'h1_0000_0000))
                      stx_st = 16'(hif_pkg::StRange);
                    else if ((op_q == 8'(hif_pkg::OpCsrRead) || op_q == 8'(hif_pkg::OpCsrWrite)) &&
                             acc_end > 33'd4096)
                      stx_st = 16'(hif_pkg::StRange);
                    else if ((op_q == 8'(hif_pkg::OpRouteRead) || op_q == 8'(hif_pkg::OpRouteWrite)) &&
                             acc_end > 33'd32)
                      stx_st = 16'(hif_pkg::StRange);
                    else if ((op_q == 8'(hif_pkg::OpRegRead) || op_q == 8'(hif_pkg::OpRegWrite)) &&
                             ({2'b0, a_addr} + {a_count, 2'b00}) > 34'h1_0000_0000)
                      stx_st = 16'(hif_pkg::StRange);
                    else if ((op_q == 8'(hif_pkg::OpMemRead) || op_q == 8'(hif_pkg::OpMemWrite) ||
                              op_q == 8'(hif_pkg::OpRegRead) || op_q == 8'(hif_pkg::OpRegWrite)) &&
                             a_addr[1:0] != 0)
                      stx_st = 16'(hif_pkg::StAlign);
                    else if (acc_rd && {a_count, 2'b00} > 34'(MaxPayload))
                      stx_st = 16'(hif_pkg::StLength);
                    else start_tx = 1'b0;
                  end else begin
                    stx_st = 16'(hif_pkg::StOpcode);
                  end
                end
              endcase
            end
          end
          default: stx_st = 16'(hif_pkg::StInternal);
        endcase
        if (stx_st != 16'(hif_pkg::StOk) && stx_st != 16'(hif_pkg::StVersion) &&
            !(p_q == '1 && s_evt_q[cur_q] == EvtOk)) begin
          stx_len = '0;
          stx_src = SrcBuf;
        end
      end

      SSiChk: begin
        if (p_q != nw_q && remain_q == '0) begin
          if (w_p[31:8] != '0 || w_p[6] || w_p[63:32] == '0 ||
              {1'b0, w_p[63:32]} >= {23'b0, nw_q - p_q}) begin
            start_tx = 1'b1;
            stx_st = 16'(hif_pkg::StMalformed);
          end else if (32'(w_p[5:0]) >= NumRows) begin
            start_tx = 1'b1;
            stx_st = 16'(hif_pkg::StRange);
          end
        end else if (p_q != nw_q && w_p[63:38] != '0) begin
          start_tx = 1'b1;
          stx_st = 16'(hif_pkg::StMalformed);
        end
      end

      SSiRun: begin
        if (p_q == nw_q) begin
          start_tx = 1'b1;
        end else if (remain_q != '0 && icred_q[si_port_q][si_vc] == '0) begin
          if (out_any) begin
            start_tx  = 1'b1;
            stx_op    = 8'(hif_pkg::OpStreamOut);
            stx_flags = 8'(hif_pkg::FlagEvent);
            stx_tag   = '0;
            stx_len   = 32'd8 + (out_n << 3);
            stx_src   = SrcOut;
            stx_ret   = RetSi;
          end else if (side_ready && s_op_q[~cur_q] == 8'(hif_pkg::OpAbort)) begin
            // ABORT of this stream-in: answer it ABORTED first.
            start_tx = 1'b1;
            stx_op   = s_op_q[~cur_q];
            stx_tag  = s_tag_q[~cur_q];
            stx_ret  = RetSide;
            if (s_len_q[~cur_q] != 4) stx_st = 16'(hif_pkg::StMalformed);
            else if (buf_q[baddr(~cur_q, '0)][31:0] == tag_q) begin
              stx_op  = op_q;
              stx_tag = tag_q;
              stx_st  = 16'(hif_pkg::StAborted);
              stx_ret = RetDone;
            end else stx_st = 16'(hif_pkg::StNotFound);
          end
        end
      end

      SCrChk: begin
        if (err_q) begin
          start_tx = 1'b1;
          stx_op   = s_op_q[hs_q];
          stx_tag  = s_tag_q[hs_q];
          stx_st   = err_st_q;
          stx_ret  = side_q ? RetSide : RetDone;
        end
      end

      SCrApply: begin
        if (p_q == nw_q) begin
          start_tx = 1'b1;
          stx_op   = s_op_q[hs_q];
          stx_tag  = s_tag_q[hs_q];
          stx_ret  = side_q ? RetSide : RetDone;
        end
      end

      default: ;
    endcase
  end

  // The ABORT that ended a stream-in is answered OK after the ABORTED
  // response: when a stream-in ends with ABORTED, the other slot holds the
  // ABORT, which the idle loop then executes. It finds no request in
  // flight, so it would say NOT_FOUND; abort_ok_q makes it answer OK.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) abort_ok_q <= 1'b0;
    else if (st_q == SSiRun && start_tx && stx_st == 16'(hif_pkg::StAborted)) abort_ok_q <= 1'b1;
    else if (st_q == SDispatch && start_tx) abort_ok_q <= 1'b0;
  end

  // ---------------------------------------------------------------------
  // Assertions.
  // ---------------------------------------------------------------------
  `ASSERT(MgmtValidHeld, mg_valid_q && !mgmt_req_ready_i |=> mg_valid_q)
  `ASSERT(NoRspWithoutReq, mgmt_rsp_valid_i |-> st_q == SMgmtRsp)
  `ASSERT_ONEHOT0(OneInjectPerCycle, in_valid_q)
  `ASSERT(RxWriteFreeSlot, pl_valid_i && pl_ready_o |-> !full_q[wr_sel])
  `ASSERT_KNOWN(CmdValidKnown, cmd_valid_o)
  `ASSERT_KNOWN(TxValidKnown, tx_valid_o)
  `ASSERT_KNOWN(MgmtValidKnown, mgmt_req_valid_o)

  for (genvar p = 0; p < NumPorts; p++) begin : g_port_asrt
    logic [OW:0] fill_p;
    assign fill_p = owp_q[p] - orp_q[p];
    `ASSERT(OutletNoOverflow, fill_p <= (OW+1)'(OutDepth))
    for (genvar v = 0; v < NumVc; v++) begin : g_vc
      logic [CredW-1:0] ic;
      assign ic = icred_q[p][v];
      `ASSERT(IntakeCreditBound, 32'(ic) <= VcDepth)
    end
  end
endmodule
