// Host interface executor (docs/host-if.md, "Executor"): takes the verdicts
// and payload words of hif_rx_frame, buffers up to two requests and one
// small control request (ABORT or STREAM_CREDIT) beside them, executes
// them one at a time against the mesh's management port and edge ports,
// and answers through hif_tx_frame. Its event sender (hif_evt) sends
// STREAM_OUT events against the host's credits and CONSOLE events with the
// tiles' putchar output at the same time, sharing the transmitter through
// hif_tx_arb. One clock domain, the link's: wse_top clocks it with the
// link clock, and what it exchanges with the mesh crosses through the
// hif_*_cdc modules (edge ports, management port, putchar vector).
`include "prim_assert.svh"

module hif_exec #(
  parameter int unsigned NumCols    = 4,
  parameter int unsigned NumRows    = 4,
  parameter int unsigned NumVc      = 4,
  parameter int unsigned VcW        = 2,
  parameter int unsigned VcDepth    = 4,
  parameter logic [32*VcW-1:0] ColorVcMap = '0,
  parameter int unsigned MaxPayload = 4096,  // bytes, a multiple of 8
  parameter int unsigned OutDepth   = 256,   // stream-out buffer per port (wavelets)
  parameter int unsigned NumLanes   = 4,     // chunks of a STREAM_IN injected at once
  parameter int unsigned ConDepth   = 32,    // console characters buffered per tile
  // Cycles a management access may wait (for the port, then for the
  // response) before its request is answered TIMEOUT.
  parameter int unsigned MgmtTimeout = 65536,
  parameter int unsigned DtbBytes   = 8,
  parameter int unsigned DtbWords   = 1,
  parameter logic [64*DtbWords-1:0] DtbRom = '0,
  parameter logic [255:0] BuildId   = '0,
  parameter int unsigned NumTiles   = NumCols * NumRows,
  parameter int unsigned NumPorts   = 2 * NumRows,
  parameter int unsigned TW         = (NumTiles > 1) ? $clog2(NumTiles) : 1
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
  // Console characters dropped (a tile's buffer was full: the tiles'
  // credits rule it out while mesh and link are reset together).
  output logic [31:0]               con_drops_o,
  // A CONSOLE event went out: the tile's credits go back (hif_putc_cdc).
  output logic                      con_ret_valid_o,
  input  logic                      con_ret_ready_i,
  output logic [TW-1:0]             con_ret_tile_o,
  output logic [3:0]                con_ret_n_o,
  // Work in progress: a request received, queued or executing, a packet
  // being sent, or an event waiting to be sent (for the simulator's clock).
  output logic                      busy_o,
  // The SPI NOR flash of the FLASH_* requests (hif_flash).
  output logic                      flash_sck_o,
  output logic                      flash_cs_no,
  output logic                      flash_mosi_o,
  input  logic                      flash_miso_i
);
  localparam int unsigned BufWords = MaxPayload / 8;
  localparam int unsigned BW       = $clog2(BufWords) + 1;  // slot bit + index
  localparam int unsigned IW       = BW - 1;
  localparam int unsigned PW       = (NumPorts > 1) ? $clog2(NumPorts) : 1;
  localparam int unsigned CredW    = $clog2(VcDepth + 1);
  // The control slot: an ABORT or STREAM_CREDIT of up to CtlWords payload
  // words that arrives while both request slots are full.
  localparam int unsigned CtlWords = hif_pkg::ProtoCtlPayload / 8;
  localparam int unsigned CIW      = $clog2(CtlWords);
  localparam logic [1:0]  CtlSlot  = 2'd2;

  localparam logic [2:0] EvtOk = 3'd0, EvtVersion = 3'd1, EvtLength = 3'd2,
                         EvtMalformed = 3'd3, EvtOpcode = 3'd4,
                         EvtPayloadCrc = 3'd5, EvtDrop = 3'd6,
                         EvtTagBusy = 3'd7;  // ours: the tag of a request in flight

  // ---------------------------------------------------------------------
  // Request slots: two payload buffers (slots 0 and 1) and the control
  // slot (2), each with its header and verdict. The payload buffers are
  // block RAM (registered read, below); the control slot's few words and
  // the first two words of each request slot (the fields the dispatcher
  // decodes in one cycle) are also kept in flip-flops.
  // ---------------------------------------------------------------------
  logic [63:0] ctl_q [CtlWords];
  logic [63:0] hd_q [2][2];    // [slot][word]: words 0 and 1 as received
  logic [2:0]  full_q;
  logic [2:0]  s_evt_q [3];
  logic [7:0]  s_op_q [3];
  logic [7:0]  s_major_q [3];
  logic [7:0]  s_minor_q [3];
  logic [31:0] s_tag_q [3];
  logic [31:0] s_len_q [3];

  logic        rd_q;          // oldest request slot, executed next
  logic        rx_busy_q;
  logic [1:0]  wr_lat_q, wr_sel, rx_pick;
  logic [IW-1:0] wr_idx_q;

  // A new packet goes to the oldest request slot when it is free, else to
  // the other one, else to the control slot. A request slot is filled only
  // after the older one (full_q[~rd_q] implies full_q[rd_q]), so that a
  // control request that finds both taken still gets in
  // (docs/protocol.md 3.5).
  logic [1:0] rd_sl, rd_oth;     // the oldest request slot, the other one
  assign rd_sl  = {1'b0, rd_q};
  assign rd_oth = {1'b0, ~rd_q};
  always_comb begin
    if (!full_q[rd_sl])       rx_pick = rd_sl;
    else if (!full_q[rd_oth]) rx_pick = rd_oth;
    else                      rx_pick = CtlSlot;
  end
  assign wr_sel  = rx_busy_q ? wr_lat_q : rx_pick;

  // A request whose tag is that of a request in flight (in a slot, the
  // executing one included) is answered BUSY (docs/protocol.md 3.5).
  logic tag_in_flight;
  always_comb begin
    tag_in_flight = 1'b0;
    for (int s = 0; s < 3; s++)
      if (full_q[s] && s_tag_q[s] == hdr_tag_i) tag_in_flight = 1'b1;
  end
  // A payload word waits while the executor writes management read data
  // into the block RAM (one write port).
  logic x_we;
  assign pl_ready_o  = !full_q[wr_sel] && !x_we;
  assign evt_ready_o = !full_q[wr_sel] || (evt_code_i == EvtDrop);

  // ---------------------------------------------------------------------
  // Executor state.
  // ---------------------------------------------------------------------
  typedef enum logic [4:0] {
    SIdle, SDispatch, SMgmt, SSiRun, SCrChk, SCrApply,
    STxCmd, STxPl, SDone, SFlash
  } state_e;
  state_e st_q;

  // Where payload words of a packet being sent come from.
  // SrcCnt: the host interface counters, as sampled at dispatch (csnap_q).
  typedef enum logic [1:0] {SrcBuf, SrcInfo, SrcVer, SrcCnt} src_e;
  // What follows a sent packet.
  // RetSideQueued: an ABORT in the control slot ended the queued request in
  // the other request slot; the stalled stream-in goes on.
  typedef enum logic [1:0] {RetDone, RetSide, RetSideQueued} ret_e;

  logic [1:0]  cur_q;         // slot of the request being executed
  logic [1:0]  hs_q;          // slot parsed by the credit/abort handler
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

  // Management sequences (hif_mgmt_seq); tmo_q: the failed one timed out.
  logic        tmo_q;
  logic        seq_start, seq_done, seq_err, seq_tmo;
  logic [31:0] seq_widx, seq_widx_next;
  logic        unused_seq_widx;  // a slot has 2^IW words
  assign unused_seq_widx = ^{seq_widx[31:IW+1], seq_widx_next[31:IW+1]};
  logic        seq_rd_we, seq_rd_count;
  logic [31:0] seq_rd_idx, seq_rd_data;
  // The walk pointer of a stalled stream-in while a side request is served.
  logic [IW:0] si_save_q;

  // Stream-in and credit walks.
  logic [IW:0]  p_q;          // word pointer
  logic [IW:0]  nw_q;         // payload words
  // The stream-in lanes (each injects one chunk, one port) are
  // hif_si_lanes; the dispatcher's walk pointer is p_q.
  logic         err_q;
  logic [15:0]  err_st_q;

  // Host interface counters (docs/protocol.md 4.10), and their values when
  // a PERF_READ of the host interface was dispatched (its answer).
  logic [31:0] cnt_q [7];
  logic [31:0] csnap_q [7];

  // Intake credits of the mesh, per port and VC.
  logic [CredW-1:0] icred_q [NumPorts][NumVc];
  logic [NumPorts-1:0]    in_valid_q;
  logic [NumPorts*38-1:0] in_data_q;

  // Stream-out credit grants and withdrawal, to the event sender.
  logic          cred_add_q, cred_clear_q;
  logic [PW-1:0] cred_port_q;
  logic [31:0]   cred_n_q;

  // Receive-side check of a STREAM_IN chunk list, per slot: the walk runs
  // as the payload words arrive, so execution starts injecting at once.
  logic [31:0]  ck_remain_q;     // wavelets left in the current chunk
  logic         ck_err_q [3];    // the slot's chunk list is refused
  logic [15:0]  ck_st_q [3];     // with this status
  logic         ctl_big_q;       // the control slot's payload did not fit

  // Response queue: one answer without payload (a STREAM_IN's, say) waits
  // here for the transmitter while the executor goes on with the next
  // request. Answers leave in order: a later one waits until it is empty.
  logic        rq_valid_q, rq_valid_d;
  logic [7:0]  rq_op_q, rq_op_d;
  logic [31:0] rq_tag_q, rq_tag_d;
  logic [15:0] rq_st_q, rq_st_d;
  logic        rq_push, x_direct;

  // Executor side of the transmitter; event sender; arbiter.
  logic        x_cmd_valid, x_cmd_ready, x_tx_valid, x_tx_ready;
  logic        e_cmd_valid, e_cmd_ready, e_tx_valid, e_tx_ready;
  logic [7:0]  e_cmd_opcode;
  logic [31:0] e_cmd_length;
  logic [63:0] e_tx_data;
  logic        ev_pending, ev_sent_wavelet, arb_busy;
  logic [1:0]  arb_cmd_ready, arb_tx_ready;

  hif_evt #(
    .NumCols(NumCols), .NumRows(NumRows), .NumVc(NumVc), .VcW(VcW), .VcDepth(VcDepth),
    .ColorVcMap(ColorVcMap), .OutDepth(OutDepth), .ConDepth(ConDepth), .NumTiles(NumTiles),
    .NumPorts(NumPorts), .TW(TW)
  ) u_evt (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .out_valid_i(out_valid_i), .out_data_i(out_data_i), .out_credit_o(out_credit_o),
    .putc_valid_i(putc_valid_i), .putc_char_i(putc_char_i), .con_drops_o(con_drops_o),
    .con_ret_valid_o(con_ret_valid_o), .con_ret_ready_i(con_ret_ready_i),
    .con_ret_tile_o(con_ret_tile_o), .con_ret_n_o(con_ret_n_o),
    .cred_add_i(cred_add_q), .cred_port_i(cred_port_q), .cred_n_i(cred_n_q),
    .cred_clear_i(cred_clear_q),
    .cmd_valid_o(e_cmd_valid), .cmd_ready_i(e_cmd_ready), .cmd_opcode_o(e_cmd_opcode),
    .cmd_length_o(e_cmd_length),
    .tx_valid_o(e_tx_valid), .tx_ready_i(e_tx_ready), .tx_data_o(e_tx_data),
    .pending_o(ev_pending), .sent_wavelet_o(ev_sent_wavelet)
  );

  hif_tx_arb u_arb (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .cmd_valid_i({e_cmd_valid, x_cmd_valid}), .cmd_ready_o(arb_cmd_ready),
    .cmd_opcode_i({e_cmd_opcode, rq_valid_q ? rq_op_q : tx_op_q}),
    .cmd_flags_i({8'(hif_pkg::FlagEvent), rq_valid_q ? 8'(hif_pkg::FlagResponse) : tx_flags_q}),
    .cmd_tag_i({32'h0, rq_valid_q ? rq_tag_q : tx_tag_q}),
    .cmd_status_i({16'(hif_pkg::StOk), rq_valid_q ? rq_st_q : tx_st_q}),
    .cmd_length_i({e_cmd_length, rq_valid_q ? 32'h0 : tx_len_q}),
    .tx_valid_i({e_tx_valid, x_tx_valid}), .tx_ready_o(arb_tx_ready),
    .tx_data_i({e_tx_data, src_word}),
    .cmd_valid_o(cmd_valid_o), .cmd_ready_i(cmd_ready_i), .cmd_opcode_o(cmd_opcode_o),
    .cmd_flags_o(cmd_flags_o), .cmd_tag_o(cmd_tag_o), .cmd_status_o(cmd_status_o),
    .cmd_length_o(cmd_length_o),
    .tx_valid_o(tx_valid_o), .tx_ready_i(tx_ready_i), .tx_data_o(tx_data_o),
    .busy_o(arb_busy)
  );
  assign x_cmd_ready = arb_cmd_ready[0];
  assign e_cmd_ready = arb_cmd_ready[1];
  assign x_tx_ready  = arb_tx_ready[0];
  assign e_tx_ready  = arb_tx_ready[1];

  assign busy_o = (st_q != SIdle) || (|full_q) || rx_busy_q || ev_pending || arb_busy ||
                  rq_valid_q;

  // ---------------------------------------------------------------------
  // Helpers.
  // ---------------------------------------------------------------------
  function automatic logic [VcW-1:0] vc_of(logic [4:0] color);
    vc_of = ColorVcMap[32'(color)*VcW +: VcW];
  endfunction

  // Word k of request slot s.
  function automatic logic [BW-1:0] baddr(logic [1:0] s, logic [IW:0] k);
    /* verilator lint_off UNUSEDSIGNAL */
    logic [IW:0] kk;
    logic [1:0]  ss;
    /* verilator lint_on UNUSEDSIGNAL */
    kk = k;
    ss = s;
    baddr = {ss[0], kk[IW-1:0]};
  endfunction

  // Word 0 or 1 of any slot, from the flip-flops.
  function automatic logic [63:0] hdr_word(logic [1:0] s, logic k);
    hdr_word = (s == CtlSlot) ? ctl_q[CIW'(k)] : hd_q[s[0]][k];
  endfunction

  // The other request slot.
  logic [1:0] oth;
  assign oth = {1'b0, ~cur_q[0]};

  // Current payload word of the handler / the executor. w_p and w_hs come
  // from the block RAM (rv_main says whether its data is that of the
  // address the state asks for); the control slot's words from ctl_q.
  logic [63:0] w_cur, w_p, w_hs, rd_main;
  logic        rv_main, hs_rv;
  assign w_cur = hdr_word(cur_q, 1'b0);
  assign w_p   = rd_main;
  assign w_hs  = (hs_q == CtlSlot) ? ctl_q[p_q[CIW-1:0]] : rd_main;
  assign hs_rv = (hs_q == CtlSlot) || rv_main;

  // Tile access fields of the current request.
  logic [7:0]  a_x, a_y;
  logic [15:0] a_rsvd;
  logic [31:0] a_addr, a_count;
  assign a_x     = w_cur[7:0];
  assign a_y     = w_cur[15:8];
  assign a_rsvd  = w_cur[31:16];
  assign a_addr  = w_cur[63:32];
  logic [63:0] w_cur1;
  logic        unused_w_cur1;
  assign w_cur1  = hdr_word(cur_q, 1'b1);
  assign a_count = w_cur1[31:0];
  assign unused_w_cur1 = ^w_cur1[63:32];

  logic a_all;
  assign a_all = (a_x == 8'hFF) && (a_y == 8'hFF);

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

  // Payload word source of the packet being sent.
  logic [63:0] src_word;
  always_comb begin
    src_word = '0;
    unique case (tx_src_q)
      SrcBuf: src_word = rd_main;  // never the control slot
      SrcCnt: begin
        unique case (tx_idx_q[1:0])
          2'd0:    src_word = {csnap_q[0], 32'd7};
          2'd1:    src_word = {csnap_q[2], csnap_q[1]};
          2'd2:    src_word = {csnap_q[4], csnap_q[3]};
          default: src_word = {csnap_q[6], csnap_q[5]};
        endcase
      end
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
      SrcVer: src_word = {32'h0, s_minor_q[hs_q], s_major_q[hs_q],
                          8'(hif_pkg::ProtoMinor), 8'(hif_pkg::ProtoMajor)};
      default: src_word = '0;
    endcase
  end

  assign rq_push     = (st_q == STxCmd) && !rq_valid_q && (tx_nw_q == '0) &&
                       (tx_ret_q == RetDone);
  assign x_direct    = (st_q == STxCmd) && !rq_valid_q && !rq_push;
  assign x_cmd_valid = rq_valid_q || x_direct;

  always_comb begin
    rq_valid_d = rq_valid_q;
    rq_op_d    = rq_op_q;
    rq_tag_d   = rq_tag_q;
    rq_st_d    = rq_st_q;
    if (rq_valid_q && x_cmd_ready) rq_valid_d = 1'b0;
    if (rq_push) begin
      rq_valid_d = 1'b1;
      rq_op_d    = tx_op_q;
      rq_tag_d   = tx_tag_q;
      rq_st_d    = tx_st_q;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rq_valid_q <= 1'b0;
      rq_op_q    <= '0;
      rq_tag_q   <= '0;
      rq_st_q    <= '0;
    end else begin
      rq_valid_q <= rq_valid_d;
      rq_op_q    <= rq_op_d;
      rq_tag_q   <= rq_tag_d;
      rq_st_q    <= rq_st_d;
    end
  end
  assign x_tx_valid   = (st_q == STxPl) && (tx_src_q != SrcBuf || rv_main);

  // Start a management sequence: a request that passed its checks and is
  // neither a stream, a flash request nor the host interface's own counters.
  assign seq_start = (st_q == SDispatch) && !start_tx && (s_evt_q[cur_q] == EvtOk) &&
                     op_q != 8'(hif_pkg::OpStreamIn) && op_q != 8'(hif_pkg::OpStreamCredit) &&
                     !fl_op && !(op_q == 8'(hif_pkg::OpPerfRead) && a_all);

  hif_mgmt_seq #(
    .MgmtTimeout(MgmtTimeout)
  ) u_mgmt (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .start_i         (seq_start),
    .op_i            (op_q),
    .x_i             (a_x),
    .y_i             (a_y),
    .all_i           (a_all),
    .addr_i          (a_addr),
    .count_i         (a_count),
    .widx_o          (seq_widx),
    .widx_next_o     (seq_widx_next),
    .wword_i         (rd_main),
    .wvalid_i        (rv_main),
    .rd_we_o         (seq_rd_we),
    .rd_idx_o        (seq_rd_idx),
    .rd_data_o       (seq_rd_data),
    .rd_count_o      (seq_rd_count),
    .done_o          (seq_done),
    .err_o           (seq_err),
    .tmo_o           (seq_tmo),
    .mgmt_req_valid_o(mgmt_req_valid_o),
    .mgmt_req_ready_i(mgmt_req_ready_i),
    .mgmt_req_write_o(mgmt_req_write_o),
    .mgmt_req_bcast_o(mgmt_req_bcast_o),
    .mgmt_req_x_o    (mgmt_req_x_o),
    .mgmt_req_y_o    (mgmt_req_y_o),
    .mgmt_req_addr_o (mgmt_req_addr_o),
    .mgmt_req_wdata_o(mgmt_req_wdata_o),
    .mgmt_rsp_valid_i(mgmt_rsp_valid_i),
    .mgmt_rsp_rdata_i(mgmt_rsp_rdata_i),
    .mgmt_rsp_err_i  (mgmt_rsp_err_i)
  );

  assign in_valid_o   = in_valid_q;
  assign in_data_o    = in_data_q;

  // Stream-in lanes (hif_si_lanes): the wavelet each would inject, whether
  // it can, and whether the chunk header at p_q goes to a free lane.
  logic [37:0]    ln_w [NumLanes];
  logic [NumLanes-1:0] ln_rv;
  logic [NumLanes*5-1:0] ln_color;
  logic [NumLanes*PW-1:0] ln_port_v;
  logic [NumLanes*VcW-1:0] ln_vc_v;
  logic [NumLanes*(IW+1)-1:0] ln_p_v;
  logic [PW-1:0]  ln_port [NumLanes];
  logic [VcW-1:0] ln_vc [NumLanes];
  logic [IW:0]    ln_p [NumLanes];
  logic [NumLanes-1:0] ln_go, ln_take;
  logic [NumPorts*NumVc-1:0] cred_nz;
  logic           dsp_go, si_done, si_stall;
  logic [$clog2(NumLanes+1)-1:0] si_n;  // wavelets injected this cycle
  logic           unused_hdr_rsvd;
  assign unused_hdr_rsvd = ^w_p[31:8];  // checked on arrival
  always_comb begin
    for (int l = 0; l < NumLanes; l++) begin
      ln_color[l*5 +: 5] = ln_w[l][36:32];
      ln_port[l] = ln_port_v[l*PW +: PW];
      ln_vc[l]   = ln_vc_v[l*VcW +: VcW];
      ln_p[l]    = ln_p_v[l*(IW+1) +: IW+1];
    end
    for (int p = 0; p < NumPorts; p++)
      for (int v = 0; v < NumVc; v++) cred_nz[p*NumVc + v] = icred_q[p][v] != '0;
  end

  hif_si_lanes #(
    .NumLanes  (NumLanes),
    .NumPorts  (NumPorts),
    .NumVc     (NumVc),
    .VcW       (VcW),
    .ColorVcMap(ColorVcMap),
    .IW        (IW)
  ) u_lanes (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .clear_i    (st_q == SDispatch && s_evt_q[cur_q] == EvtOk),
    .run_i      (st_q == SSiRun && !si_done && !si_stall),
    .p_i        (p_q),
    .nw_i       (nw_q),
    .hdr_valid_i(rv_main),
    .hdr_count_i(w_p[32 +: IW+1]),
    .hdr_port_i (port_idx(w_p[7:0])),
    .wv_color_i (ln_color),
    .wv_valid_i (ln_rv),
    .cred_nz_i  (cred_nz),
    .go_o       (ln_go),
    .port_o     (ln_port_v),
    .vc_o       (ln_vc_v),
    .lane_p_o   (ln_p_v),
    .dsp_go_o   (dsp_go),
    .take_o     (ln_take),
    .done_o     (si_done),
    .stall_o    (si_stall),
    .n_o        (si_n)
  );

  // ---------------------------------------------------------------------
  // Read addresses of the request slots' block RAM (hif_slot_ram). A word
  // comes a cycle after its address, so every read site asks for its
  // address in the cycle before (ra_issue), and uses the data only when
  // the address read then is the one its state needs now (rv_main, ln_rv):
  // the same words as an asynchronous read, a cycle later at most. Where
  // the next address is known (the next word of a response, of a grant
  // walk, of a stream-in's chunk list, the next management access) it is
  // asked for at once, so that those walks read a word a cycle. Nothing
  // writes an address while it is being read for use: the receiver writes
  // only a free slot, the executor only management read data, words ahead
  // of the one it reads.
  // ---------------------------------------------------------------------
  logic [BW-1:0] ra_need, ra_issue;
  logic [IW:0]   p_next;       // p_q after the dispatch of a chunk
  logic [BW-1:0] x_wa, rx_wa;
  logic [1:0]    x_whalf;      // halves written: {upper, lower}
  logic [31:0]   x_wd_lo, x_wd_hi;
  logic          rx_we;
  assign p_next = (IW+1)'(32'(p_q) + 32'd1 + w_p[63:32]);
  always_comb begin
    unique case (st_q)
      SMgmt:              ra_need = baddr(cur_q, (IW+1)'(seq_widx));
      SFlash:             ra_need = baddr(cur_q, {1'b0, fl_idx});
      SSiRun:             ra_need = baddr(cur_q, p_q);
      SCrChk, SCrApply:   ra_need = baddr(hs_q, p_q);
      default:            ra_need = baddr(cur_q, tx_idx_q[IW:0]);
    endcase
  end
  // Apart from ra_need, which the go signals (and so ra_issue) depend on.
  always_comb begin
    ra_issue = ra_need;
    if (st_q == STxPl && x_tx_valid && x_tx_ready)
      ra_issue = baddr(cur_q, tx_idx_q[IW:0] + 1'b1);
    if (st_q == SMgmt)
      ra_issue = baddr(cur_q, (IW+1)'(seq_widx_next));
    if (st_q == SSiRun && dsp_go)
      ra_issue = baddr(cur_q, p_next);
    if ((st_q == SCrChk && p_q != nw_q && !err_q && hs_rv) ||
        (st_q == SCrApply && p_q != nw_q && hs_rv))
      ra_issue = baddr(hs_q, p_q + 1'b1);
  end

  // Management read data, a u32 at a time; with the first PERF_READ
  // counter, the count into the lower half of word 0.
  always_comb begin
    x_we    = seq_rd_we;
    x_wa    = baddr(cur_q, (IW+1)'(seq_rd_idx >> 1));
    x_whalf = seq_rd_idx[0] ? 2'b10 : 2'b01;
    x_wd_lo = seq_rd_data;
    x_wd_hi = seq_rd_data;
    if (seq_rd_count) begin
      x_whalf = 2'b11;
      x_wd_lo = 32'd15;
    end
    // A flash request's read data, a word at a time.
    if (fl_we) begin
      x_we    = 1'b1;
      x_wa    = baddr(cur_q, {1'b0, fl_widx});
      x_whalf = 2'b11;
      x_wd_lo = fl_wdata[31:0];
      x_wd_hi = fl_wdata[63:32];
    end
  end
  assign rx_we = pl_valid_i && pl_ready_o && (wr_sel != CtlSlot);
  assign rx_wa = {wr_sel[0], wr_idx_q};

  // One write port, shared: the receiver waits (pl_ready_o) while the
  // executor writes, so the lanes' copies take the receiver's words at the
  // same address.
  logic [BW-1:0] m_wa;
  logic [1:0]    m_we;
  logic [63:0]   m_wd;
  assign m_we = x_we ? x_whalf : {2{rx_we}};
  assign m_wa = x_we ? x_wa : rx_wa;
  assign m_wd = x_we ? {x_wd_hi, x_wd_lo} : pl_data_i;

  // The lanes' read addresses: the wavelet each needs now, and the one to
  // read for the next cycle (the next one when it injects now, the chunk's
  // first when the dispatcher hands it a chunk).
  logic [NumLanes*BW-1:0] ln_need, ln_issue;
  logic [NumLanes*38-1:0] ln_rdata;
  always_comb begin
    for (int l = 0; l < NumLanes; l++) begin
      ln_need[l*BW +: BW]  = baddr(cur_q, ln_p[l]);
      ln_issue[l*BW +: BW] = baddr(cur_q, ln_p[l]);
      if (st_q == SSiRun && ln_go[l]) ln_issue[l*BW +: BW] = baddr(cur_q, ln_p[l] + 1'b1);
      if (st_q == SSiRun && ln_take[l])
        ln_issue[l*BW +: BW] = baddr(cur_q, p_q + 1'b1);
    end
  end
  always_comb begin
    for (int l = 0; l < NumLanes; l++) ln_w[l] = ln_rdata[l*38 +: 38];
  end

  hif_slot_ram #(
    .Words   (2 * BufWords),
    .NumLanes(NumLanes)
  ) u_slots (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .we_i       (m_we),
    .lane_we_i  (rx_we),
    .waddr_i    (m_wa),
    .wdata_i    (m_wd),
    .need_i     (ra_need),
    .next_i     (ra_issue),
    .rdata_o    (rd_main),
    .rvalid_o   (rv_main),
    .ln_need_i  (ln_need),
    .ln_next_i  (ln_issue),
    .ln_rdata_o (ln_rdata),
    .ln_rvalid_o(ln_rv)
  );

  // Slot s holds a finished, intact STREAM_CREDIT or ABORT that fits.
  function automatic logic ctl_ok(logic [1:0] s);
    ctl_ok = full_q[s] && (s_evt_q[s] == EvtOk) && !(s == CtlSlot && ctl_big_q) &&
             (s_op_q[s] == 8'(hif_pkg::OpStreamCredit) || s_op_q[s] == 8'(hif_pkg::OpAbort));
  endfunction

  // What a stalled stream-in serves meanwhile (side_sl): a control request
  // in the other request slot (older), else whatever the control slot
  // holds; anything there but a control request that fits is answered at
  // once (BUSY, or the receiver's verdict), so the slot is free again.
  logic       side_ready, side_ctl;
  logic [1:0] side_sl;
  logic [31:0] side_abort_tag;
  assign side_sl        = ctl_ok(oth) ? oth : CtlSlot;
  assign side_ready     = ctl_ok(oth) || full_q[CtlSlot];
  assign side_ctl       = ctl_ok(side_sl);
  logic [63:0] w_side;
  assign w_side         = hdr_word(side_sl, 1'b0);
  assign side_abort_tag = w_side[31:0];
  logic unused_w_side;
  assign unused_w_side = ^w_side[63:32];

  // Intake credit pulses.
  logic [CredW-1:0] icred_add [NumPorts][NumVc];
  always_comb begin
    for (int p = 0; p < NumPorts; p++)
      for (int v = 0; v < NumVc; v++)
        icred_add[p][v] = CredW'(in_credit_i[p*NumVc + v]);
  end

  // The answer to a packet the receiver refused (or that reused a tag).
  function automatic logic [15:0] refusal_st(logic [2:0] e);
    unique case (e)
      EvtVersion:    refusal_st = 16'(hif_pkg::StVersion);
      EvtLength:     refusal_st = 16'(hif_pkg::StLength);
      EvtMalformed:  refusal_st = 16'(hif_pkg::StMalformed);
      EvtOpcode:     refusal_st = 16'(hif_pkg::StOpcode);
      EvtPayloadCrc: refusal_st = 16'(hif_pkg::StPayloadCrc);
      EvtTagBusy:    refusal_st = 16'(hif_pkg::StBusy);
      default:       refusal_st = 16'(hif_pkg::StInternal);
    endcase
  endfunction

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
      wr_lat_q   <= '0;
      wr_idx_q   <= '0;
      ctl_big_q  <= 1'b0;
      for (int s = 0; s < 3; s++) begin
        s_evt_q[s] <= EvtOk;  s_op_q[s] <= '0;  s_major_q[s] <= '0;
        s_minor_q[s] <= '0;   s_tag_q[s] <= '0; s_len_q[s] <= '0;
      end
      st_q       <= SIdle;
      cur_q      <= '0;
      hs_q       <= '0;
      side_q     <= 1'b0;
      op_q       <= '0;
      tag_q      <= '0;
      tx_op_q    <= '0;  tx_flags_q <= '0; tx_tag_q <= '0; tx_len_q <= '0;
      tx_st_q    <= '0;  tx_src_q <= SrcBuf; tx_ret_q <= RetDone;
      tx_idx_q   <= '0;  tx_nw_q <= '0;
      tmo_q      <= 1'b0;
      si_save_q  <= '0;
      p_q        <= '0; nw_q <= '0;
      err_q      <= 1'b0; err_st_q <= '0;
      for (int i = 0; i < 7; i++) begin
        cnt_q[i]   <= '0;
        csnap_q[i] <= '0;
      end
      for (int p = 0; p < NumPorts; p++)
        for (int v = 0; v < NumVc; v++) icred_q[p][v] <= CredW'(VcDepth);
      in_valid_q   <= '0;
      in_data_q    <= '0;
      cred_add_q   <= 1'b0;
      cred_clear_q <= 1'b0;
      cred_port_q  <= '0;
      cred_n_q     <= '0;
      ck_remain_q  <= '0;
      for (int s = 0; s < 3; s++) begin
        ck_err_q[s] <= 1'b0;
        ck_st_q[s]  <= '0;
      end
    end else begin
      // ---------------- receiver side ----------------
      if (pl_valid_i && pl_ready_o) begin
        if (wr_sel != CtlSlot && 32'(wr_idx_q) < 2) hd_q[wr_sel[0]][wr_idx_q[0]] <= pl_data_i;
        if (wr_sel == CtlSlot && 32'(wr_idx_q) < CtlWords) ctl_q[wr_idx_q[CIW-1:0]] <= pl_data_i;
        wr_idx_q  <= wr_idx_q + 1'b1;
        rx_busy_q <= 1'b1;
        wr_lat_q  <= wr_sel;
        ck_remain_q     <= ck_remain_d;
        ck_err_q[wr_sel] <= ck_err_d;
        ck_st_q[wr_sel]  <= ck_st_d;
      end
      if (evt_valid_i && evt_ready_o) begin
        rx_busy_q <= 1'b0;
        wr_idx_q  <= '0;
        if (evt_code_i != EvtDrop) begin
          full_q[wr_sel]    <= 1'b1;
          s_evt_q[wr_sel]   <= (evt_code_i == EvtOk && tag_in_flight) ? EvtTagBusy : evt_code_i;
          s_op_q[wr_sel]    <= hdr_opcode_i;
          s_major_q[wr_sel] <= hdr_major_i;
          s_minor_q[wr_sel] <= hdr_minor_i;
          s_tag_q[wr_sel]   <= hdr_tag_i;
          s_len_q[wr_sel]   <= hdr_length_i;
          if (wr_sel == CtlSlot) ctl_big_q <= hdr_length_i > 32'(CtlWords * 8);
          cnt_q[0] <= sat_add(cnt_q[0], 32'd1);
          if (evt_code_i == EvtPayloadCrc) cnt_q[3] <= sat_add(cnt_q[3], 32'd1);
        end
      end
      if (resync_i) cnt_q[2] <= sat_add(cnt_q[2], 32'd8);

      // ---------------- stream-out credits ----------------
      cred_add_q   <= 1'b0;
      cred_clear_q <= 1'b0;
      if (ev_sent_wavelet) cnt_q[6] <= sat_add(cnt_q[6], 32'd1);
      if (e_cmd_valid && e_cmd_ready) cnt_q[1] <= sat_add(cnt_q[1], 32'd1);

      // ---------------- intake ----------------
      in_valid_q <= '0;
      for (int p = 0; p < NumPorts; p++)
        for (int v = 0; v < NumVc; v++)
          icred_q[p][v] <= icred_q[p][v] + icred_add[p][v];


      // ---------------- executor ----------------
      unique case (st_q)
        SIdle: begin
          // The oldest request first; the control slot when both request
          // slots are free (a request there overtakes, docs/protocol.md 3.5).
          if (full_q[rd_sl] || full_q[CtlSlot]) begin
            cur_q  <= full_q[rd_sl] ? rd_sl : CtlSlot;
            op_q   <= full_q[rd_sl] ? s_op_q[rd_sl] : s_op_q[CtlSlot];
            tag_q  <= full_q[rd_sl] ? s_tag_q[rd_sl] : s_tag_q[CtlSlot];
            side_q <= 1'b0;
            hs_q   <= full_q[rd_sl] ? rd_sl : CtlSlot;
            p_q    <= '0;
            err_q  <= 1'b0;
            tmo_q  <= 1'b0;
            st_q   <= SDispatch;
          end
        end

        SDispatch: begin
          if (s_evt_q[cur_q] == EvtOk) begin
            p_q    <= '0;
            nw_q   <= nwords(s_len_q[cur_q]);
            err_q  <= 1'b0;
            if (op_q == 8'(hif_pkg::OpStreamIn)) st_q <= SSiRun;
            else if (op_q == 8'(hif_pkg::OpStreamCredit)) st_q <= SCrChk;
          end
          if (!start_tx && s_evt_q[cur_q] == EvtOk && op_q == 8'(hif_pkg::OpPerfRead) && a_all) begin
            // Host interface counters: sampled for the response (SrcCnt).
            for (int i = 0; i < 7; i++) csnap_q[i] <= cnt_q[i];
            p_q    <= '1;
          end else if (fl_start) begin
            st_q <= SFlash;
          end else if (seq_start) begin
            st_q <= SMgmt;
            if (op_q == 8'(hif_pkg::OpReset))
              cred_clear_q <= 1'b1;
          end
        end

        SFlash: begin
          if (fl_done) begin
            p_q  <= '1;  // finished: answered from fl_status
            st_q <= SDispatch;
          end
        end

        SMgmt: begin
          if (seq_done) begin
            st_q  <= SDispatch;  // answers the request
            err_q <= seq_err;
            if (seq_tmo) tmo_q <= 1'b1;
            if (!seq_err) p_q <= '1;  // marks "management sequence finished"
          end
        end

        SSiRun: begin
          if (si_done) begin
            ;  // response started below
          end else if (!si_stall) begin
            for (int l = 0; l < NumLanes; l++) begin
              if (ln_go[l]) begin
                in_valid_q[ln_port[l]] <= 1'b1;
                in_data_q[32'(ln_port[l])*38 +: 38] <= ln_w[l][37:0];
                icred_q[ln_port[l]][ln_vc[l]] <= icred_q[ln_port[l]][ln_vc[l]] +
                    icred_add[ln_port[l]][ln_vc[l]] - 1'b1;
              end
            end
            cnt_q[5] <= sat_add(cnt_q[5], 32'(si_n));
            // The chunk went to a lane (hif_si_lanes): walk past it.
            if (dsp_go) p_q <= (IW+1)'(32'(p_q) + 32'd1 + w_p[63:32]);
          end else if (side_ready) begin
            hs_q   <= side_sl;
            side_q <= 1'b1;
            // The walk pointer of the stream-in is kept in si_save_q while
            // the side request is served (RetSide* restores it).
            si_save_q <= p_q;
            if (side_ctl && s_op_q[side_sl] == 8'(hif_pkg::OpStreamCredit)) begin
              st_q <= SCrChk;
              nw_q    <= nwords(s_len_q[side_sl]);
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
          end else if (hs_rv) begin
            p_q <= p_q + 1'b1;
            if (w_hs[31:8] != '0 || w_hs[6] || w_hs[63:32] == '0) begin
              err_q <= 1'b1;  err_st_q <= 16'(hif_pkg::StMalformed);
            end else if (32'(w_hs[5:0]) >= NumRows) begin
              err_q <= 1'b1;  err_st_q <= 16'(hif_pkg::StRange);
            end
          end
        end

        SCrApply: begin
          if (p_q != nw_q && hs_rv) begin
            cred_add_q  <= 1'b1;
            cred_port_q <= port_idx(w_hs[7:0]);
            cred_n_q    <= w_hs[63:32];
            p_q <= p_q + 1'b1;
          end
        end

        STxCmd: begin
          if (rq_push || (x_direct && x_cmd_ready)) begin
            st_q <= (tx_nw_q == '0) ? SDone : STxPl;
            cnt_q[1] <= sat_add(cnt_q[1], 32'd1);
            if (tx_flags_q == 8'(hif_pkg::FlagResponse) && tx_st_q != '0)
              cnt_q[4] <= sat_add(cnt_q[4], 32'd1);
          end
        end

        STxPl: begin
          if (x_tx_valid && x_tx_ready) begin
            tx_idx_q <= tx_idx_q + 1'b1;
            if (tx_idx_q + 1'b1 == tx_nw_q) st_q <= SDone;
          end
        end

        SDone: begin
          unique case (tx_ret_q)
            RetDone: begin
              full_q[cur_q] <= 1'b0;
              if (cur_q != CtlSlot) rd_q <= ~cur_q[0];
              st_q <= SIdle;
            end
            RetSide, RetSideQueued: begin
              // RetSideQueued frees the request slot whose request the ABORT
              // ended; the ABORT stays, to be answered OK next.
              full_q[(tx_ret_q == RetSide) ? hs_q : oth] <= 1'b0;
              side_q <= 1'b0;
              hs_q   <= cur_q;
              nw_q   <= nwords(s_len_q[cur_q]);
              p_q    <= si_save_q;
              st_q   <= SSiRun;
            end
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

  // Chunk-list check of the word being received, as if the packet were a
  // STREAM_IN (used only if it is one): chunk headers (port byte, reserved
  // bytes, a count >= 1 that fits the payload), bits 63:38 of every
  // wavelet zero. The first error decides the status.
  logic [31:0]  ck_remain_d;
  logic         ck_err_d;
  logic [15:0]  ck_st_d;
  logic [IW:0]  ck_left;      // payload words from this one to the end
  always_comb begin
    ck_left     = nwords(hdr_length_i) - (IW+1)'(wr_idx_q);
    ck_remain_d = (wr_idx_q == '0) ? '0 : ck_remain_q;
    ck_err_d    = (wr_idx_q == '0) ? 1'b0 : ck_err_q[wr_sel];
    ck_st_d     = (wr_idx_q == '0) ? '0 : ck_st_q[wr_sel];
    if (!ck_err_d) begin
      if (ck_remain_d == '0) begin
        if (pl_data_i[31:8] != '0 || pl_data_i[6] || pl_data_i[63:32] == '0 ||
            {1'b0, pl_data_i[63:32]} >= 33'(ck_left)) begin
          ck_err_d = 1'b1;
          ck_st_d  = 16'(hif_pkg::StMalformed);
        end else if (32'(pl_data_i[5:0]) >= NumRows) begin
          ck_err_d = 1'b1;
          ck_st_d  = 16'(hif_pkg::StRange);
        end
        ck_remain_d = pl_data_i[63:32];
      end else begin
        if (pl_data_i[63:38] != '0) begin
          ck_err_d = 1'b1;
          ck_st_d  = 16'(hif_pkg::StMalformed);
        end
        ck_remain_d = ck_remain_d - 32'd1;
      end
    end
  end

  // Release the slot when the receiver writes into a freed one in the same
  // cycle the executor frees it: full_q is set by the receiver only for
  // wr_sel, which is never a slot being freed (it is full).

  // ---------------------------------------------------------------------
  // Which packet to send, and when (combinational; start_tx moves to STxCmd).
  // ---------------------------------------------------------------------
  // The checks of a request before its first effect.
  logic        chk_run, chk_info, acc_rd;
  logic [15:0] chk_st;
  logic [31:0] chk_len;
  hif_req_check #(
    .NumCols   (NumCols),
    .NumRows   (NumRows),
    .MaxPayload(MaxPayload),
    .DtbBytes  (DtbBytes)
  ) u_check (
    .op_i      (op_q),
    .len_i     (s_len_q[cur_q]),
    .x_i       (a_x),
    .y_i       (a_y),
    .rsvd_i    (a_rsvd),
    .addr_i    (a_addr),
    .count_i   (a_count),
    .abort_ok_i(abort_ok_q),
    .ck_err_i  (ck_err_q[cur_q]),
    .ck_st_i   (ck_st_q[cur_q]),
    .run_o     (chk_run),
    .st_o      (chk_st),
    .len_o     (chk_len),
    .info_o    (chk_info),
    .acc_rd_o  (acc_rd)
  );

  always_comb begin
    start_tx  = 1'b0;
    stx_op    = op_q;
    stx_flags = 8'(hif_pkg::FlagResponse);
    stx_tag   = tag_q;
    stx_len   = '0;
    stx_st    = 16'(hif_pkg::StOk);
    stx_src   = SrcBuf;
    stx_ret   = RetDone;

    unique case (st_q)
      SDispatch: begin
        start_tx = 1'b1;
        unique case (s_evt_q[cur_q])
          EvtVersion: begin
            stx_st  = 16'(hif_pkg::StVersion);
            stx_len = 32'd4;
            stx_src = SrcVer;
          end
          EvtOk: begin
            if (cur_q == CtlSlot && !ctl_ok(CtlSlot)) begin
              // More requests than max_outstanding, or a control request
              // longer than the control slot.
              stx_st = 16'(hif_pkg::StBusy);
            end else if (p_q == '1) begin
              // A management sequence finished without error.
              // Tile reads: the words read; PERF_READ: the count, then the
              // host interface's 7 counters or a tile's 15.
              if (acc_rd) stx_len = a_count << 2;
              if (op_q == 8'(hif_pkg::OpPerfRead)) stx_len = a_all ? 32'd32 : 32'd64;
              if (op_q == 8'(hif_pkg::OpPerfRead) && a_all) stx_src = SrcCnt;
              if (fl_op) begin  // a flash request finished (SFlash)
                stx_st  = fl_status;
                stx_len = fl_rsp_len;
              end
            end else if (err_q) begin
              stx_st = tmo_q ? 16'(hif_pkg::StTimeout) : 16'(hif_pkg::StMgmt);
            end else begin
              stx_st  = chk_st;
              stx_len = chk_len;
              if (chk_info) stx_src = SrcInfo;
              if (chk_run) start_tx = 1'b0;
            end
          end
          default: stx_st = refusal_st(s_evt_q[cur_q]);
        endcase
        if (stx_st != 16'(hif_pkg::StOk) && stx_st != 16'(hif_pkg::StVersion) &&
            !(p_q == '1 && s_evt_q[cur_q] == EvtOk)) begin
          stx_len = '0;
          stx_src = SrcBuf;
        end
      end

      SSiRun: begin
        if (si_done) begin
          start_tx = 1'b1;
        end else if (si_stall && side_ready) begin
          stx_op  = s_op_q[side_sl];
          stx_tag = s_tag_q[side_sl];
          stx_ret = RetSide;
          if (!side_ctl) begin
            // The control slot holds something else: answer it now.
            start_tx = 1'b1;
            stx_st = (s_evt_q[side_sl] == EvtOk) ? 16'(hif_pkg::StBusy) :
                                                   refusal_st(s_evt_q[side_sl]);
            if (s_evt_q[side_sl] == EvtVersion) begin
              stx_len = 32'd4;
              stx_src = SrcVer;
            end
          end else if (s_op_q[side_sl] == 8'(hif_pkg::OpAbort)) begin
            start_tx = 1'b1;
            if (s_len_q[side_sl] != 4) stx_st = 16'(hif_pkg::StMalformed);
            else if (side_abort_tag == tag_q) begin
              // ABORT of this stream-in: answer it ABORTED first.
              stx_op  = op_q;
              stx_tag = tag_q;
              stx_st  = 16'(hif_pkg::StAborted);
              stx_ret = RetDone;
            end else if (side_sl == CtlSlot && full_q[oth] && side_abort_tag == s_tag_q[oth]) begin
              // ABORT of the request queued behind it: that one never runs.
              stx_op  = s_op_q[oth];
              stx_tag = s_tag_q[oth];
              stx_st  = 16'(hif_pkg::StAborted);
              stx_ret = RetSideQueued;
            end else begin
              stx_st = abort_ok_q ? 16'(hif_pkg::StOk) : 16'(hif_pkg::StNotFound);
            end
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

  // The ABORT that ended a request is answered OK after the ABORTED
  // response: the ABORT is still in its slot, and is answered later (by
  // the idle loop, or beside the next stalled stream-in). It finds no
  // request in flight, so it would say NOT_FOUND; abort_ok_q makes it
  // answer OK. Cleared when an ABORT is answered.
  logic abort_answered;
  assign abort_answered = start_tx && stx_op == 8'(hif_pkg::OpAbort) &&
                          (st_q == SDispatch || st_q == SSiRun);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) abort_ok_q <= 1'b0;
    else if (st_q == SSiRun && start_tx && stx_st == 16'(hif_pkg::StAborted)) abort_ok_q <= 1'b1;
    else if (abort_answered) abort_ok_q <= 1'b0;
  end

  // ---------------------------------------------------------------------
  // Flash requests (hif_flash): started from SDispatch, answered when done.
  // Its slot reads go through the block RAM's main read port (SFlash's
  // ra_need), its writes through the executor's write port.
  // ---------------------------------------------------------------------
  logic          fl_op, fl_start, fl_done, fl_req, fl_we, unused_fl_busy;
  logic [15:0]   fl_status;
  logic [31:0]   fl_rsp_len;
  logic [IW-1:0] fl_idx, fl_widx;
  logic [63:0]   fl_wdata;
  assign fl_op    = op_q >= 8'(hif_pkg::OpFlashRead) && op_q <= 8'(hif_pkg::OpFlashVerify);
  assign fl_start = st_q == SDispatch && !start_tx && s_evt_q[cur_q] == EvtOk && fl_op;
  hif_flash #(
    .MaxPayload (MaxPayload)
  ) u_flash (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .start_i      (fl_start),
    .op_i         (2'(op_q - 8'(hif_pkg::OpFlashRead))),
    .len_i        (s_len_q[cur_q]),
    .done_o       (fl_done),
    .status_o     (fl_status),
    .rsp_len_o    (fl_rsp_len),
    .busy_o       (unused_fl_busy),
    .buf_req_o    (fl_req),
    .buf_idx_o    (fl_idx),
    .buf_rvalid_i (fl_req && st_q == SFlash && rv_main),
    .buf_rdata_i  (rd_main),
    .buf_we_o     (fl_we),
    .buf_widx_o   (fl_widx),
    .buf_wdata_o  (fl_wdata),
    .sck_o        (flash_sck_o),
    .cs_no        (flash_cs_no),
    .mosi_o       (flash_mosi_o),
    .miso_i       (flash_miso_i)
  );

  // ---------------------------------------------------------------------
  // Assertions.
  // ---------------------------------------------------------------------
  `ASSERT(SeqDoneOnlyInMgmt, seq_done |-> st_q == SMgmt)
  `ASSERT(InjectOnlyInSi, in_valid_q != '0 |-> $past(st_q) == SSiRun)
  `ASSERT(RxWriteFreeSlot, pl_valid_i && pl_ready_o |-> !full_q[wr_sel])
  // The control slot only holds requests answered without management
  // accesses, injection or payload from the slot.
  `ASSERT(CtlSlotNoExec, st_q == SMgmt || st_q == SSiRun || st_q == SFlash |->
                         cur_q != CtlSlot)
  `ASSERT(CtlSlotNoPayload, st_q == STxPl && tx_src_q == SrcBuf |-> cur_q != CtlSlot)
  `ASSERT(SlotIndexInRange, cur_q != 2'd3 && hs_q != 2'd3 && wr_sel != 2'd3)
  // A request slot is filled only after the older one.
  `ASSERT(OlderSlotFirst, full_q[rd_oth] |-> full_q[rd_sl])
  `ASSERT_KNOWN(CmdValidKnown, cmd_valid_o)
  `ASSERT_KNOWN(TxValidKnown, tx_valid_o)
  `ASSERT(RspQueueNoOverwrite, rq_push |-> !rq_valid_q)
  `ASSERT(RspQueueOnlyEmpty, rq_push |-> tx_nw_q == '0 && tx_flags_q == 8'(hif_pkg::FlagResponse))

  for (genvar p = 0; p < NumPorts; p++) begin : g_port_asrt
    for (genvar v = 0; v < NumVc; v++) begin : g_vc
      logic [CredW-1:0] ic;
      assign ic = icred_q[p][v];
      `ASSERT(IntakeCreditBound, 32'(ic) <= VcDepth)
    end
  end
endmodule
