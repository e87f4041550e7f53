// Host interface event sender (docs/host-if.md, "Events"): buffers what the
// mesh sends out of its edge ports and the tiles' putchar output, and sends
// them to the host as STREAM_OUT events (never beyond the host's credits)
// and CONSOLE events on a packet interface of its own, so that stream-out
// data leaves while the executor injects a stream-in.
`include "prim_assert.svh"

module hif_evt #(
  parameter int unsigned NumCols    = 4,
  parameter int unsigned NumRows    = 4,
  parameter int unsigned NumVc      = 4,
  parameter int unsigned VcW        = 2,
  parameter int unsigned VcDepth    = 4,
  parameter logic [32*VcW-1:0] ColorVcMap = '0,
  // Outlet buffer per port in wavelets: a power of two, at least
  // 2 * NumVc * VcDepth, and at most 511 (one event of max_payload).
  parameter int unsigned OutDepth   = 256,
  // Most wavelets in one STREAM_OUT event: a response waits for at most
  // one event, so this bounds how long it can be held up.
  parameter int unsigned MaxEvent   = 64,
  // Console characters buffered per tile: a power of two. The tiles hold
  // as many credits (hif_putc_cdc), so the buffer never overflows.
  parameter int unsigned ConDepth   = 32,
  parameter int unsigned NumTiles   = NumCols * NumRows,
  parameter int unsigned NumPorts   = 2 * NumRows,
  parameter int unsigned TW         = (NumTiles > 1) ? $clog2(NumTiles) : 1
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Edge port outlets of the mesh, port p = edge * NumRows + row.
  input  logic [NumPorts-1:0]       out_valid_i,
  input  logic [NumPorts*38-1:0]    out_data_i,
  output logic [NumPorts*NumVc-1:0] out_credit_o,
  // Tiles' putchar output, tile t = y * NumCols + x.
  input  logic [NumTiles-1:0]       putc_valid_i,
  input  logic [NumTiles*8-1:0]     putc_char_i,
  output logic [31:0]               con_drops_o,
  // A CONSOLE event has gone out: its characters' credits go back to the
  // tile (hif_putc_cdc). A console event starts only while con_ret_ready_i.
  output logic                      con_ret_valid_o,
  input  logic                      con_ret_ready_i,
  output logic [TW-1:0]             con_ret_tile_o,
  output logic [3:0]                con_ret_n_o,
  // Host credits (STREAM_CREDIT): add to one port, saturating; or withdraw
  // all (RESET).
  input  logic                         cred_add_i,
  input  logic [$clog2(NumPorts)-1:0]  cred_port_i,
  input  logic [31:0]                  cred_n_i,
  input  logic                         cred_clear_i,
  // Event packets (to the transmitter, through the arbiter).
  output logic        cmd_valid_o,
  input  logic        cmd_ready_i,
  output logic [7:0]  cmd_opcode_o,
  output logic [31:0] cmd_length_o,
  output logic        tx_valid_o,
  input  logic        tx_ready_i,
  output logic [63:0] tx_data_o,
  // An event is waiting or being sent; one wavelet went to the host.
  output logic        pending_o,
  output logic        sent_wavelet_o
);
  localparam int unsigned PW       = $clog2(NumPorts);
  localparam int unsigned OW       = $clog2(OutDepth);
  localparam int unsigned CredW    = $clog2(VcDepth + 1);
  localparam int unsigned Held     = NumVc * VcDepth;  // credits the router starts with
  localparam int unsigned CPW      = $clog2(ConDepth);

  // EGather: a CONSOLE event's characters are read from the tile's
  // buffer into cst_q, one a cycle, before its header is sent.
  typedef enum logic [1:0] {EIdle, EGather, ECmd, EPl} est_e;

  function automatic logic [VcW-1:0] vc_of(logic [4:0] color);
    vc_of = ColorVcMap[32'(color)*VcW +: VcW];
  endfunction

  function automatic logic [31:0] sat_add(logic [31:0] a, logic [31:0] b);
    logic [32:0] s;
    s = {1'b0, a} + {1'b0, b};
    sat_add = s[32] ? 32'hFFFF_FFFF : s[31:0];
  endfunction

  // ---------------------------------------------------------------------
  // State.
  // ---------------------------------------------------------------------
  est_e          st_q, st_d;
  logic          con_q, con_d;        // the packet being sent is a CONSOLE event
  logic          turn_q, turn_d;      // console goes first next time
  logic [PW-1:0] port_q, port_d;
  logic [TW-1:0] tile_q, tile_d;
  logic [OW:0]   n_q, n_d;            // wavelets / characters in the packet
  logic [OW:0]   idx_q, idx_d;        // payload word being sent
  logic [OW:0]   nw_q, nw_d;          // payload words
  logic [2:0]    g_q, g_d;            // console character being gathered
  logic [63:0]   cst_q, cst_d;        // the CONSOLE event's characters

  logic [31:0]   ocred_q [NumPorts];  // host credits per port
  logic [31:0]   ocred_d [NumPorts];
  logic [OW:0]   owp_q [NumPorts];
  logic [OW:0]   owp_d [NumPorts];
  logic [OW:0]   orp_q [NumPorts];
  logic [OW:0]   orp_d [NumPorts];
  // Mesh credits not yet returned, per port and VC (port * NumVc + vc).
  logic [CredW-1:0] pend_q [NumPorts*NumVc];
  logic [CredW-1:0] pend_d [NumPorts*NumVc];
  logic [NumPorts*NumVc-1:0] ocr_q, ocr_d;

  logic [CPW:0]  cwp_q [NumTiles];
  logic [CPW:0]  cwp_d [NumTiles];
  logic [CPW:0]  crp_q [NumTiles];
  logic [CPW:0]  crp_d [NumTiles];
  logic [31:0]   drops_q, drops_d;

  // The console buffers are distributed RAM, one per tile, and the outlet
  // buffers block RAM, one per port (below).
  logic [7:0]    con_rd [NumTiles];   // each tile's character at crp + g_q
  logic [7:0]    con_byte;
  assign con_byte = con_rd[tile_q];

  // ---------------------------------------------------------------------
  // What can be sent.
  // ---------------------------------------------------------------------
  logic [OW:0]   ofill [NumPorts];
  logic          out_any;
  logic [PW-1:0] out_sel;
  logic [OW:0]   out_n;
  // The ports take turns, from the one after the last served: served
  // lowest first, one busy port would send an event as soon as the
  // transmitter is free, with the few wavelets that came in meanwhile
  // when the link is clocked faster than the mesh, and the others' outlets
  // would fill up and hold back their rows.
  always_comb begin
    int unsigned q;
    out_any = 1'b0;
    out_sel = '0;
    for (int p = 0; p < NumPorts; p++) ofill[p] = owp_q[p] - orp_q[p];
    for (int unsigned k = 1; k <= NumPorts; k++) begin
      q = 32'(port_q) + k;
      if (q >= NumPorts) q = q - NumPorts;
      if (!out_any && ofill[q] != '0 && ocred_q[q] != '0) begin
        out_any = 1'b1;
        out_sel = PW'(q);
      end
    end
    out_n = ofill[out_sel];
    if (ocred_q[out_sel] < 32'(out_n)) out_n = (OW+1)'(ocred_q[out_sel]);
    if (32'(out_n) > MaxEvent) out_n = (OW+1)'(MaxEvent);
  end

  // The tiles take turns too, from the one after the last served: a tile
  // whose buffer is full waits (its credits), so one that always has
  // output must not keep the others waiting.
  logic [CPW:0]  cfill [NumTiles];
  logic          con_any;
  logic [TW-1:0] con_sel;
  logic [3:0]    con_n;
  always_comb begin
    int unsigned q;
    con_any = 1'b0;
    con_sel = '0;
    for (int t = 0; t < NumTiles; t++) cfill[t] = cwp_q[t] - crp_q[t];
    for (int unsigned k = 1; k <= NumTiles; k++) begin
      q = 32'(tile_q) + k;
      if (q >= NumTiles) q = q - NumTiles;
      if (!con_any && cfill[q] != '0) begin
        con_any = 1'b1;
        con_sel = TW'(q);
      end
    end
    con_n = (32'(cfill[con_sel]) > 8) ? 4'd8 : 4'(cfill[con_sel]);
  end

  // ---------------------------------------------------------------------
  // Packet words.
  // ---------------------------------------------------------------------
  logic [37:0] out_head;
  logic [37:0] orow [NumPorts];  // each outlet's entry at its read pointer
  logic [63:0] word;
  assign out_head = orow[port_q];
  always_comb begin
    word = '0;
    if (con_q) begin
      if (idx_q == '0) begin
        word[7:0]   = 8'(32'(tile_q) % NumCols);
        word[15:8]  = 8'(32'(tile_q) / NumCols);
        word[31:16] = 16'(n_q);
        // Only the packet's characters: cst_q past them holds those of
        // an earlier event.
        for (int k = 0; k < 4; k++)
          if (k < 32'(n_q)) word[32 + 8*k +: 8] = cst_q[8*k +: 8];
      end else begin
        for (int k = 0; k < 4; k++)
          if (k + 4 < 32'(n_q)) word[8*k +: 8] = cst_q[32 + 8*k +: 8];
      end
    end else if (idx_q == '0) begin
      word[63:32] = 32'(n_q);
      word[7:0]   = (32'(port_q) >= NumRows) ? 8'(32'h80 + 32'(port_q) - NumRows)
                                             : 8'(port_q);
    end else begin
      word = {26'h0, out_head};
    end
  end

  assign cmd_valid_o  = (st_q == ECmd);
  assign cmd_opcode_o = con_q ? 8'(hif_pkg::OpConsole) : 8'(hif_pkg::OpStreamOut);
  assign cmd_length_o = con_q ? 32'd4 + 32'(n_q) : 32'd8 + (32'(n_q) << 3);
  assign tx_valid_o   = (st_q == EPl);
  assign tx_data_o    = word;
  assign pending_o    = (st_q != EIdle) || out_any || con_any;
  assign out_credit_o = ocr_q;
  assign con_drops_o  = drops_q;
  assign con_ret_valid_o = con_done;
  assign con_ret_tile_o  = tile_q;
  assign con_ret_n_o     = 4'(n_q);

  // ---------------------------------------------------------------------
  // Next state.
  // ---------------------------------------------------------------------
  logic start_out, start_con, pop, con_done;
  always_comb begin
    st_d   = st_q;
    con_d  = con_q;
    turn_d = turn_q;
    port_d = port_q;
    tile_d = tile_q;
    n_d    = n_q;
    idx_d  = idx_q;
    nw_d   = nw_q;
    g_d    = g_q;
    cst_d  = cst_q;
    start_out = 1'b0;
    start_con = 1'b0;
    pop       = 1'b0;
    con_done  = 1'b0;
    sent_wavelet_o = 1'b0;

    unique case (st_q)
      EIdle: begin
        // Stream-out first, but a console event gets every other turn. It
        // starts only if its credits can go back when it ends (nothing
        // else returns credits meanwhile).
        if (con_any && con_ret_ready_i && (turn_q || !out_any)) start_con = 1'b1;
        else if (out_any) start_out = 1'b1;
        if (start_out) begin
          st_d   = ECmd;
          con_d  = 1'b0;
          turn_d = 1'b1;
          port_d = out_sel;
          n_d    = out_n;
          nw_d   = out_n + 1'b1;
        end
        if (start_con) begin
          st_d   = EGather;
          g_d    = '0;
          con_d  = 1'b1;
          turn_d = 1'b0;
          tile_d = con_sel;
          n_d    = (OW+1)'(con_n);
          nw_d   = (OW+1)'((32'(con_n) + 32'd11) >> 3);
        end
        idx_d = '0;
      end
      EGather: begin
        // The characters were counted in the fill before the event began,
        // and a tile writes only past the fill: they stay as they are.
        cst_d[8*g_q +: 8] = con_byte;
        g_d = g_q + 1'b1;
        if (32'(g_q) + 1 == 32'(n_q)) st_d = ECmd;
      end
      ECmd: if (cmd_ready_i) st_d = EPl;
      EPl: begin
        if (tx_ready_i) begin
          idx_d = idx_q + 1'b1;
          if (!con_q && idx_q != '0) begin
            pop = 1'b1;
            sent_wavelet_o = 1'b1;
          end
          if (idx_q + 1'b1 == nw_q) begin
            st_d = EIdle;
            con_done = con_q;
          end
        end
      end
      default: st_d = EIdle;
    endcase
  end

  // Outlets: arrivals, pops, mesh credits, host credits.
  logic [31:0] held [NumPorts];
  logic        ret  [NumPorts];
  always_comb begin
    ocr_d = '0;
    for (int p = 0; p < NumPorts; p++) begin
      ocred_d[p] = ocred_q[p];
      owp_d[p]   = owp_q[p] + (OW+1)'(out_valid_i[p]);
      orp_d[p]   = orp_q[p];
      if (pop && port_q == PW'(p)) orp_d[p] = orp_q[p] + 1'b1;
      if (start_out && out_sel == PW'(p)) ocred_d[p] = ocred_q[p] - 32'(out_n);
      if (cred_add_i && cred_port_i == PW'(p)) ocred_d[p] = sat_add(ocred_d[p], cred_n_i);
      if (cred_clear_i) ocred_d[p] = '0;
      // A credit goes back to the router only while the buffer has room for
      // everything the router may then send: fill + held <= OutDepth.
      held[p] = 32'(Held);
      for (int v = 0; v < NumVc; v++) held[p] = held[p] - 32'(pend_q[p*NumVc + v]);
      ret[p] = (32'(ofill[p]) + held[p]) < OutDepth;
      for (int v = 0; v < NumVc; v++) begin
        pend_d[p*NumVc + v] = pend_q[p*NumVc + v];
        if (out_valid_i[p] && vc_of(out_data_i[p*38 + 32 +: 5]) == VcW'(v))
          pend_d[p*NumVc + v] = pend_d[p*NumVc + v] + 1'b1;
        if (ret[p] && pend_q[p*NumVc + v] != '0) begin
          ret[p] = 1'b0;
          ocr_d[p*NumVc + v] = 1'b1;
          pend_d[p*NumVc + v] = pend_d[p*NumVc + v] - 1'b1;
        end
      end
    end
  end

  // Console buffers.
  always_comb begin
    drops_d = drops_q;
    for (int t = 0; t < NumTiles; t++) begin
      cwp_d[t] = cwp_q[t];
      crp_d[t] = crp_q[t];
      if (putc_valid_i[t]) begin
        if (cfill[t] < (CPW+1)'(ConDepth)) cwp_d[t] = cwp_q[t] + 1'b1;
        else drops_d = sat_add(drops_d, 32'd1);
      end
      if (con_done && tile_q == TW'(t)) crp_d[t] = crp_q[t] + (CPW+1)'(n_q);
    end
  end

  // ---------------------------------------------------------------------
  // Registers.
  // ---------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q    <= EIdle;
      con_q   <= 1'b0;
      turn_q  <= 1'b0;
      port_q  <= '0;
      tile_q  <= '0;
      n_q     <= '0;
      idx_q   <= '0;
      nw_q    <= '0;
      g_q     <= '0;
      cst_q   <= '0;
      ocr_q   <= '0;
      drops_q <= '0;
      for (int p = 0; p < NumPorts; p++) begin
        ocred_q[p] <= '0;
        owp_q[p]   <= '0;
        orp_q[p]   <= '0;
      end
      for (int i = 0; i < NumPorts * NumVc; i++) pend_q[i] <= '0;
      for (int t = 0; t < NumTiles; t++) begin
        cwp_q[t] <= '0;
        crp_q[t] <= '0;
      end
    end else begin
      st_q    <= st_d;
      con_q   <= con_d;
      turn_q  <= turn_d;
      port_q  <= port_d;
      tile_q  <= tile_d;
      n_q     <= n_d;
      idx_q   <= idx_d;
      nw_q    <= nw_d;
      g_q     <= g_d;
      cst_q   <= cst_d;
      ocr_q   <= ocr_d;
      drops_q <= drops_d;
      for (int p = 0; p < NumPorts; p++) begin
        ocred_q[p] <= ocred_d[p];
        owp_q[p]   <= owp_d[p];
        orp_q[p]   <= orp_d[p];
      end
      for (int i = 0; i < NumPorts * NumVc; i++) pend_q[i] <= pend_d[i];
      for (int t = 0; t < NumTiles; t++) begin
        cwp_q[t] <= cwp_d[t];
        crp_q[t] <= crp_d[t];
      end
    end
  end

  // Outlet buffers: one block RAM a port, since every port may write a
  // wavelet in the same cycle. The read address is the read pointer's next
  // value, so that the registered read gives the entry at orp_q, as an
  // asynchronous read would: the entry was written before it was counted
  // in the fill, and it is not overwritten before it is popped (the
  // credits bound the fill), so read-first never returns a stale entry.
  for (genvar p = 0; p < NumPorts; p++) begin : g_outlet
    prim_ram_sdp #(
      .Width(38),
      .Depth(OutDepth)
    ) u_ram (
      .clk_i  (clk_i),
      .we_i   (out_valid_i[p]),
      .waddr_i(owp_q[p][OW-1:0]),
      .wdata_i(out_data_i[p*38 +: 38]),
      .raddr_i(orp_d[p][OW-1:0]),
      .rdata_o(orow[p])
    );
  end

  // Console buffers: distributed RAM, one a tile, since every tile may
  // write a character in the same cycle. Read a character a cycle at
  // crp + g_q (EGather), so that one asynchronous read port a tile
  // serves, where reading a whole event's characters at once took a
  // multiplexer per byte over all the buffers.
  for (genvar t = 0; t < NumTiles; t++) begin : g_con
    logic           con_we;
    logic [CPW-1:0] con_ra;
    assign con_we = putc_valid_i[t] && cfill[t] < (CPW+1)'(ConDepth);
    assign con_ra = CPW'(crp_q[t]) + CPW'(g_q);
    prim_ram_1r1w #(
      .Width(8),
      .Depth(ConDepth)
    ) u_ram (
      .clk_i  (clk_i),
      .we_i   (con_we),
      .waddr_i(cwp_q[t][CPW-1:0]),
      .wdata_i(putc_char_i[t*8 +: 8]),
      .raddr_i(con_ra),
      .rdata_o(con_rd[t])
    );
  end

  // ---------------------------------------------------------------------
  // Assertions.
  // ---------------------------------------------------------------------
  `ASSERT_KNOWN(CmdValidKnown, cmd_valid_o)
  `ASSERT_KNOWN(TxValidKnown, tx_valid_o)
  `ASSERT(CmdHeld, cmd_valid_o && !cmd_ready_i |=> cmd_valid_o)
  `ASSERT(TxHeld, tx_valid_o && !tx_ready_i |=> tx_valid_o && $stable(tx_data_o))
  `ASSERT(ConReturnTaken, con_ret_valid_o |-> con_ret_ready_i)
  // With the tiles' credits the console buffers never overflow.
  `ASSERT(ConNoDrop, $stable(drops_q))
  for (genvar p = 0; p < NumPorts; p++) begin : g_port_asrt
    logic [OW:0]  fill_p;
    logic [31:0]  held_p;
    assign fill_p = owp_q[p] - orp_q[p];
    always_comb begin
      held_p = 32'(Held);
      for (int v = 0; v < NumVc; v++) held_p = held_p - 32'(pend_q[p*NumVc + v]);
    end
    `ASSERT(OutletNoOverflow, fill_p <= (OW+1)'(OutDepth))
    // The router can never send more than the buffer holds.
    `ASSERT(OutletRoom, 32'(fill_p) + held_p <= OutDepth)
    `ASSERT(OutletPopOnlyFilled, pop && port_q == PW'(p) |-> fill_p != '0)
    for (genvar v = 0; v < NumVc; v++) begin : g_vc
      logic [CredW-1:0] pc;
      assign pc = pend_q[p*NumVc + v];
      `ASSERT(PendBound, 32'(pc) <= VcDepth)
    end
  end
endmodule
