// Five-port color-routed wavelet router (N, E, S, W, RAMP). Input buffers per
// port and virtual channel, credit-based lossless links, registered outputs,
// multicast by non-atomic fork. See docs/fabric.md for the interface
// contract and the microarchitecture.
`include "prim_assert.svh"

module wse_router #(
  parameter int unsigned NumVc          = wse_cfg_pkg::NumVc,
  parameter int unsigned VcW            = wse_cfg_pkg::VcW,
  parameter int unsigned VcDepth        = wse_cfg_pkg::VcDepth,
  parameter int unsigned RampColorDepth = wse_cfg_pkg::RampColorDepth,
  // VC of color c is ColorVcMap[c*VcW +: VcW].
  parameter logic [wse_pkg::NumColors*VcW-1:0] ColorVcMap = wse_cfg_pkg::ColorVcMap
) (
  input  logic clk_i,
  input  logic rst_ni,

  // Links to the neighbours; direction d (N=0, E=1, S=2, W=3) at [d*.. +: ..].
  input  logic [3:0]                           link_in_valid_i,
  input  logic [4*wse_pkg::WaveletW-1:0]       link_in_data_i,
  output logic [4*NumVc-1:0]                   link_in_credit_o,
  output logic [3:0]                           link_out_valid_o,
  output logic [4*wse_pkg::WaveletW-1:0]       link_out_data_o,
  input  logic [4*NumVc-1:0]                   link_out_credit_i,

  // RAMP: this tile's PE. PE -> router uses per-VC credits, router -> PE
  // per-color credits (the PE has one queue per color).
  input  logic                                 ramp_in_valid_i,
  input  logic [wse_pkg::WaveletW-1:0]         ramp_in_data_i,
  output logic [NumVc-1:0]                     ramp_in_credit_o,
  output logic                                 ramp_out_valid_o,
  output logic [wse_pkg::WaveletW-1:0]         ramp_out_data_o,
  input  logic [wse_pkg::NumColors-1:0]        ramp_out_credit_i,

  // Route table write port; entry = {rx mask[4:0], tx mask[4:0]}.
  input  logic                                 route_we_i,
  input  logic [wse_pkg::ColorW-1:0]           route_color_i,
  input  logic [9:0]                           route_wdata_i,
  output logic [wse_pkg::NumColors*10-1:0]     route_table_o,

  // Per-port counters, port p at [p*32 +: 32]; saturating; cleared by a pulse.
  input  logic                                 cnt_clear_i,
  output logic [wse_pkg::NumPorts*32-1:0]      cnt_fwd_o,
  output logic [wse_pkg::NumPorts*32-1:0]      cnt_stall_o,
  output logic [wse_pkg::NumPorts*32-1:0]      cnt_drop_o
);
  localparam int unsigned NP = wse_pkg::NumPorts;
  localparam int unsigned NC = wse_pkg::NumColors;
  localparam int unsigned WW = wse_pkg::WaveletW;
  localparam int unsigned CL = wse_pkg::ColorLsb;
  localparam int unsigned CW = wse_pkg::ColorW;
  localparam int unsigned RP = wse_pkg::PortRamp;
  localparam int unsigned NV = NumVc;
  localparam int unsigned VIW = (NV > 1) ? $clog2(NV) : 1;   // VC index
  localparam int unsigned PW  = (VcDepth > 1) ? $clog2(VcDepth) : 1;   // queue slot
  // Queue entry, kept in two RAMs: the control {drop, tx mask, color} in the
  // queue's FIFO, the wavelet in a RAM that the input's NV queues share (see
  // Input queues). The route is looked up on arrival.
  localparam int unsigned QW = 1 + NP + CW;
  // Vectors are flat (Yosys 0.23 has no multi-dimensional packed arrays):
  // per (port p, VC v) index p*NV+v; per (p, v, port o) index (p*NV+v)*NP+o.

  // ---------------------------------------------------------------------------
  // Route table
  // ---------------------------------------------------------------------------
  // Every index below is a constant or a bare color: an index such as
  // color*10 makes Yosys build a multiplier (a MULT18X18D on ECP5) and a
  // shifter across the whole table. The write decodes the color against
  // each entry; a read takes one bit of the entry from all colors (rt_bit,
  // the table transposed, only wiring) and selects it by the color: a
  // 32:1 multiplexer per bit read.
  logic [NC*10-1:0] route_q, route_d;
  logic [10*NC-1:0] rt_bit;   // bit b of color c at [b*NC + c]

  always_comb begin
    route_d = route_q;
    for (int c = 0; c < NC; c++) begin
      if (route_we_i && (route_color_i == CW'(c))) route_d[c*10 +: 10] = route_wdata_i;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) route_q <= '0;
    else         route_q <= route_d;
  end

  always_comb begin
    for (int b = 0; b < 10; b++) begin
      for (int c = 0; c < NC; c++) rt_bit[b*NC + c] = route_q[c*10 + b];
    end
  end

  assign route_table_o = route_q;

  // VC of a color, ColorVcMap read with constant indices (see above).
  function automatic logic [VcW-1:0] color_vc(logic [CW-1:0] color);
    logic [NC-1:0] col;
    for (int k = 0; k < VcW; k++) begin
      for (int c = 0; c < NC; c++) col[c] = ColorVcMap[c*VcW + k];
      color_vc[k] = col[color];
    end
  endfunction

  // ---------------------------------------------------------------------------
  // Arrival: route lookup and VC of every incoming wavelet
  // ---------------------------------------------------------------------------
  logic [NP-1:0]     in_valid;
  logic [NP*WW-1:0]  in_data;
  logic [NP*VcW-1:0] in_vc;
  logic [NP*QW-1:0]  in_ent;    // control of the arriving wavelet

  assign in_valid = {ramp_in_valid_i, link_in_valid_i};
  assign in_data  = {ramp_in_data_i, link_in_data_i};

  always_comb begin
    for (int p = 0; p < NP; p++) begin
      logic [CW-1:0] color;
      logic [NC-1:0] col;
      logic [NP-1:0] tx;
      logic          rx, drop;
      color = in_data[p*WW + CL +: CW];
      for (int b = 0; b < NP; b++) begin
        col   = rt_bit[b*NC +: NC];
        tx[b] = col[color];
      end
      col = rt_bit[(NP + p)*NC +: NC];
      rx  = col[color];
      in_vc[p*VcW +: VcW] = color_vc(color);
      // Dropped: the arrival port is not in the rx mask, or nowhere to go.
      drop  = !rx || (tx == '0);
      in_ent[p*QW +: QW] = {drop, tx, color};
    end
  end

  // ---------------------------------------------------------------------------
  // Input queues, one per port and VC, with a bypass when the queue is empty
  // ---------------------------------------------------------------------------
  // A queue's FIFO holds each entry's control {drop, tx, color}, read at
  // every head each cycle for the allocation. The wavelets of an input's NV
  // queues share one RAM, slot {VC, pointer}: an input sends at most one
  // wavelet a cycle, so one read port (at the chosen VC's head) serves
  // them, and one write port the one arrival. The wavelet RAM's pointers
  // follow the FIFO's (RtrPayloadPtrs). The arriving wavelet is written at
  // its queue's tail whether or not it leaves at once by the bypass: that
  // slot is free, and the write does not wait for the allocation.
  logic [NP*NV-1:0]    q_push, q_pop, q_empty, q_full;
  logic [NP*NV*QW-1:0] q_rdata;
  logic [NP*WW-1:0]    q_wavelet;  // the chosen VC's head wavelet per input
  logic [NP*VIW-1:0]   sel_vidx;   // the chosen VC per input (binary)
  logic [NP*NV-1:0]    fire;       // the head leaves (sent or dropped)

  for (genvar p = 0; p < NP; p++) begin : g_in_port
    logic [NV*PW-1:0] wp_q, wp_d, rp_q, rp_d;   // wavelet RAM pointers per VC
    logic [2*NV*PW-1:0] ptr_q;                  // {wp_q, rp_q}
    logic [VIW-1:0]   in_vidx;
    logic [PW-1:0]    wp, rp;

    for (genvar v = 0; v < NV; v++) begin : g_vc
      localparam int unsigned I = p * NV + v;
      logic [$clog2(VcDepth+1)-1:0] usage;

      // The incoming wavelet is queued unless it left at once by the bypass.
      assign q_push[I] = in_valid[p] && (32'(in_vc[p*VcW +: VcW]) == v) &&
                         !(fire[I] && q_empty[I]);
      assign q_pop[I]  = fire[I] && !q_empty[I];

      prim_fifo_sync #(
        .Width (QW),
        .Depth (VcDepth)
      ) u_fifo (
        .clk_i   (clk_i),
        .rst_ni  (rst_ni),
        .push_i  (q_push[I]),
        .wdata_i (in_ent[p*QW +: QW]),
        .pop_i   (q_pop[I]),
        .rdata_o (q_rdata[I*QW +: QW]),
        .empty_o (q_empty[I]),
        .full_o  (q_full[I]),
        .usage_o (usage)
      );

      always_comb begin
        wp_d[v*PW +: PW] = wp_q[v*PW +: PW];
        rp_d[v*PW +: PW] = rp_q[v*PW +: PW];
        if (q_push[I]) wp_d[v*PW +: PW] = (32'(wp_q[v*PW +: PW]) == VcDepth - 1) ? '0 : wp_q[v*PW +: PW] + 1'b1;
        if (q_pop[I])  rp_d[v*PW +: PW] = (32'(rp_q[v*PW +: PW]) == VcDepth - 1) ? '0 : rp_q[v*PW +: PW] + 1'b1;
      end

      // The wavelet RAM's pointers lead each other by the FIFO's usage, as
      // the FIFO's own do (FifoPtrsConsistent): its head slot is the head.
      logic [31:0] ptr_sum;
      assign ptr_sum = 32'(rp_q[v*PW +: PW]) + 32'(usage);
      `ASSERT(RtrPayloadPtrs, ((ptr_sum >= VcDepth) ? ptr_sum - VcDepth : ptr_sum) ==
              32'(wp_q[v*PW +: PW]))
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) ptr_q <= '0;
      else         ptr_q <= {wp_d, rp_d};
    end
    assign {wp_q, rp_q} = ptr_q;

    // Write at the arriving wavelet's queue's tail, read at the chosen
    // queue's head (both by a binary VC index: a multiplexer per bit).
    assign in_vidx = VIW'(in_vc[p*VcW +: VcW]);
    always_comb begin
      wp = '0;
      rp = '0;
      for (int v = 0; v < NV; v++) begin
        if (in_vidx == VIW'(v))          wp = wp_q[v*PW +: PW];
        if (sel_vidx[p*VIW +: VIW] == VIW'(v)) rp = rp_q[v*PW +: PW];
      end
    end

    prim_ram_1r1w #(
      .Width (WW),
      .Depth (1 << (VIW + PW))
    ) u_wavelets (
      .clk_i   (clk_i),
      .we_i    (in_valid[p]),
      .waddr_i ({in_vidx, wp}),
      .wdata_i (in_data[p*WW +: WW]),
      .raddr_i ({sel_vidx[p*VIW +: VIW], rp}),
      .rdata_o (q_wavelet[p*WW +: WW])
    );
  end

  // ---------------------------------------------------------------------------
  // Heads: what each (port, VC) offers this cycle
  // ---------------------------------------------------------------------------
  logic [NP*NV-1:0]    hd_valid, hd_drop, elig;
  logic [NP*NV*NP-1:0] hd_tx;            // tx mask of each head
  logic [NP*NV*CW-1:0] hd_color;         // color of each head
  logic [NP*NV*NP-1:0] hd_rem, hd_can;   // branches remaining / sendable now
  logic [NP*NV*NP-1:0] sent_q, sent_d;   // fork branches already sent
  logic [4*NV-1:0]     oc_avail;         // link credits
  logic [NC-1:0]       rc_avail;         // RAMP credits, per color

  // Only the head's route and color are selected here (bypass or queue);
  // its wavelet is selected once the VC is chosen (sel_data).
  always_comb begin
    for (int p = 0; p < NP; p++) begin
      for (int v = 0; v < NV; v++) begin
        logic [QW-1:0] e;
        logic [CW-1:0] color;
        logic [NP-1:0] rem, can;
        e     = q_empty[p*NV + v] ? in_ent[p*QW +: QW] : q_rdata[(p*NV + v)*QW +: QW];
        color = e[CW-1:0];
        hd_valid[p*NV + v] = !q_empty[p*NV + v] || (in_valid[p] && 32'(in_vc[p*VcW +: VcW]) == v);
        hd_drop[p*NV + v]  = e[QW-1];
        rem   = e[CW +: NP] & ~sent_q[(p*NV + v)*NP +: NP];
        for (int o = 0; o < 4; o++) can[o] = rem[o] && oc_avail[o*NV + v];
        can[RP] = rem[RP] && rc_avail[color];
        if (!hd_valid[p*NV + v] || hd_drop[p*NV + v]) can = '0;
        hd_tx[(p*NV + v)*NP +: NP] = e[CW +: NP];
        hd_color[(p*NV + v)*CW +: CW] = color;
        hd_rem[(p*NV + v)*NP +: NP] = rem;
        hd_can[(p*NV + v)*NP +: NP] = can;
        elig[p*NV + v] = hd_valid[p*NV + v] && (hd_drop[p*NV + v] || (can != '0));
      end
    end
  end

  // ---------------------------------------------------------------------------
  // Allocation, two rounds of separable input-first allocation in one cycle.
  // Round 1: each input picks one eligible VC, each output grants one of the
  // inputs whose pick wants it. Round 2: each input that round 1 left
  // without progress picks again among its VCs whose heads want an output
  // that round 1 left free; those outputs grant again. An input still
  // takes at most one VC per cycle (one wavelet, one credit).
  //
  // The rounds overlap rather than follow each other: an output is taken in
  // round 1 exactly when some input's pick requests it (its arbiter grants
  // whenever it has a request), so the outputs round 1 leaves free are known
  // from round 1's VC picks alone, and round 2's VC picks are made from
  // them while round 1's outputs arbitrate. Only the inputs' progress in
  // round 1 waits for round 1's output grants; it masks round 2's picks
  // before round 2's outputs arbitrate. The picks, grants and priority
  // updates are those of the two rounds one after the other; the longest
  // path has three arbiters in a row instead of four.
  // ---------------------------------------------------------------------------
  logic [NP*NV-1:0] vsel;                       // final VC choice per input
  logic [NP-1:0]    sel_any, sel_drop, sel_done;
  logic [NP*NP-1:0] sel_rem, sel_tx;            // [input p][output o]: p*NP+o
  logic [NP*WW-1:0] sel_data;
  logic [NP*NP-1:0] ognt;                       // [output o][input p]: o*NP+p
  logic [NP*NP-1:0] g_in;                       // [input p][output o]: p*NP+o

  // Round 1 (suffix 1) and round 2 (suffix 2).
  logic [NP*NV-1:0] elig2, vsel1, vsel2, vsel2_any;
  logic [NP*NP-1:0] oreq1, oreq2, ognt1, ognt2; // [output o][input p]
  logic [NP*NP-1:0] g_in2;                      // ognt2 as [input p][output o]
  logic [NP-1:0]    prog1, prog2;               // input made progress in the round
  logic [NP-1:0]    taken1;                     // output granted in round 1
  logic [NP-1:0]    use2;                       // input's VC comes from round 2

  for (genvar p = 0; p < NP; p++) begin : g_vc_arb
    prim_arb_rr #(
      .N (NV)
    ) u_arb (
      .clk_i    (clk_i),
      .rst_ni   (rst_ni),
      .req_i    (elig[p*NV +: NV]),
      .update_i (prog1[p]),
      .gnt_o    (vsel1[p*NV +: NV])
    );
    prim_arb_rr #(
      .N (NV)
    ) u_arb2 (
      .clk_i    (clk_i),
      .rst_ni   (rst_ni),
      .req_i    (elig2[p*NV +: NV]),
      .update_i (use2[p]),
      .gnt_o    (vsel2_any[p*NV +: NV])
    );
  end

  for (genvar o = 0; o < NP; o++) begin : g_out_arb
    prim_arb_rr #(
      .N (NP)
    ) u_arb (
      .clk_i    (clk_i),
      .rst_ni   (rst_ni),
      .req_i    (oreq1[o*NP +: NP]),
      .update_i (1'b1),
      .gnt_o    (ognt1[o*NP +: NP])
    );
    prim_arb_rr #(
      .N (NP)
    ) u_arb2 (
      .clk_i    (clk_i),
      .rst_ni   (rst_ni),
      .req_i    (oreq2[o*NP +: NP]),
      .update_i (1'b1),
      .gnt_o    (ognt2[o*NP +: NP])
    );
  end

  // Requests of a round: output o is requested by input p when p's pick vs
  // can use o and o is still free.
  function automatic logic [NP*NP-1:0] round_req(logic [NP*NV-1:0] vs, logic [NP*NV*NP-1:0] can,
                                                 logic [NP-1:0] free);
    round_req = '0;
    for (int o = 0; o < NP; o++) begin
      for (int p = 0; p < NP; p++) begin
        for (int v = 0; v < NV; v++) begin
          if (vs[p*NV + v] && can[(p*NV + v)*NP + o] && free[o]) round_req[o*NP + p] = 1'b1;
        end
      end
    end
  endfunction

  // Progress of a round per input: its pick is a drop, or some output granted it.
  function automatic logic [NP-1:0] round_prog(logic [NP*NV-1:0] vs, logic [NP*NV-1:0] drop,
                                               logic [NP*NP-1:0] gnt);
    round_prog = '0;
    for (int p = 0; p < NP; p++) begin
      for (int v = 0; v < NV; v++) begin
        if (vs[p*NV + v] && drop[p*NV + v]) round_prog[p] = 1'b1;
      end
      for (int o = 0; o < NP; o++) begin
        if (gnt[o*NP + p]) round_prog[p] = 1'b1;
      end
    end
  endfunction

  // Round 1: every eligible head, every output. An output is taken when it
  // is requested (RtrTaken1Requested), which does not wait for its arbiter.
  always_comb begin
    oreq1 = round_req(vsel1, hd_can, '1);
    prog1 = round_prog(vsel1, hd_drop, ognt1);
    for (int o = 0; o < NP; o++) taken1[o] = (oreq1[o*NP +: NP] != '0);
  end

  // Round 2: heads that can use an output that round 1 left free (or
  // drops). Every input picks among them while round 1's outputs
  // arbitrate (vsel2_any); the pick counts only for an input without
  // round-1 progress (vsel2). An input with progress has no round-2 pick
  // and does not move its round-2 priority (use2 is 0), as if it had not
  // competed.
  always_comb begin
    for (int p = 0; p < NP; p++) begin
      for (int v = 0; v < NV; v++) begin
        elig2[p*NV + v] = hd_valid[p*NV + v] &&
            (hd_drop[p*NV + v] || ((hd_can[(p*NV + v)*NP +: NP] & ~taken1) != '0));
      end
      vsel2[p*NV +: NV] = prog1[p] ? '0 : vsel2_any[p*NV +: NV];
    end
    oreq2 = round_req(vsel2, hd_can, ~taken1);
  end

  // Separate block: these read round 2's grants, which depend on oreq2.
  always_comb begin
    for (int p = 0; p < NP; p++) begin
      for (int o = 0; o < NP; o++) g_in2[p*NP + o] = ognt2[o*NP + p];
    end
    prog2 = round_prog(vsel2, hd_drop, ognt2);
  end

  // Final choice: round 1's pick, or round 2's where round 1 made no progress.
  always_comb begin
    for (int p = 0; p < NP; p++) begin
      use2[p] = prog2[p];   // only inputs without round-1 progress compete
      vsel[p*NV +: NV] = use2[p] ? vsel2[p*NV +: NV] : vsel1[p*NV +: NV];
    end
    ognt = ognt1 | ognt2;
  end

  // The chosen head of each input: its drop flag, remaining and whole tx
  // masks, and its VC as a binary index, which addresses the input's
  // wavelet RAM (below).
  always_comb begin
    for (int p = 0; p < NP; p++) begin
      logic [VIW-1:0] vidx;
      sel_any[p]            = (vsel[p*NV +: NV] != '0);
      sel_drop[p]           = 1'b0;
      sel_rem[p*NP +: NP]   = '0;
      sel_tx[p*NP +: NP]    = '0;
      vidx                  = '0;
      for (int v = 0; v < NV; v++) begin
        if (vsel[p*NV + v]) begin
          sel_drop[p]          = hd_drop[p*NV + v];
          sel_rem[p*NP +: NP]  = hd_rem[(p*NV + v)*NP +: NP];
          sel_tx[p*NP +: NP]   = hd_tx[(p*NV + v)*NP +: NP];
          vidx                 = VIW'(v);
        end
      end
      sel_vidx[p*VIW +: VIW] = vidx;
    end
  end

  // The wavelet: the shared RAM read at the chosen VC's head (sel_vidx), or
  // the arriving one. With no VC chosen it is don't-care (no output takes
  // it). A block of its own: the RAM's read address is sel_vidx.
  always_comb begin
    for (int p = 0; p < NP; p++) begin
      logic byp;
      byp = (vsel[p*NV +: NV] & q_empty[p*NV +: NV]) != '0;
      sel_data[p*WW +: WW] = byp ? in_data[p*WW +: WW] : q_wavelet[p*WW +: WW];
    end
  end

  always_comb begin
    for (int p = 0; p < NP; p++) begin
      for (int o = 0; o < NP; o++) g_in[p*NP + o] = ognt[o*NP + p];
      sel_done[p] = sel_any[p] &&
                    (sel_drop[p] || ((sel_rem[p*NP +: NP] & ~g_in[p*NP +: NP]) == '0));
    end
    for (int p = 0; p < NP; p++) begin
      for (int v = 0; v < NV; v++) begin
        fire[p*NV + v] = vsel[p*NV + v] && sel_done[p];
        sent_d[(p*NV + v)*NP +: NP] = sent_q[(p*NV + v)*NP +: NP];
        if (vsel[p*NV + v]) begin
          sent_d[(p*NV + v)*NP +: NP] = sel_done[p] ? '0 : (sent_q[(p*NV + v)*NP +: NP] | g_in[p*NP +: NP]);
        end
      end
    end
  end

  // ---------------------------------------------------------------------------
  // Outputs (registered) and credit counters
  // ---------------------------------------------------------------------------
  logic [NP-1:0]    out_valid_d, out_valid_q;
  logic [NP*WW-1:0] out_data_d, out_data_q;
  logic [NP*NV-1:0] in_credit_q;

  always_comb begin
    for (int o = 0; o < NP; o++) begin
      out_valid_d[o]         = (ognt[o*NP +: NP] != '0);
      out_data_d[o*WW +: WW] = out_data_q[o*WW +: WW];
      for (int p = 0; p < NP; p++) begin
        if (ognt[o*NP + p]) out_data_d[o*WW +: WW] = sel_data[p*WW +: WW];
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_valid_q <= '0;
      out_data_q  <= '0;
      in_credit_q <= '0;
      sent_q      <= '0;
    end else begin
      out_valid_q <= out_valid_d;
      out_data_q  <= out_data_d;
      in_credit_q <= fire;   // a slot was freed (sent, dropped or bypassed)
      sent_q      <= sent_d;
    end
  end

  assign link_out_valid_o = out_valid_q[3:0];
  assign link_out_data_o  = out_data_q[4*WW-1:0];
  assign link_in_credit_o = in_credit_q[4*NV-1:0];
  assign ramp_out_valid_o = out_valid_q[RP];
  assign ramp_out_data_o  = out_data_q[RP*WW +: WW];
  assign ramp_in_credit_o = in_credit_q[RP*NV +: NV];

  // The credit a link output spends is that of the VC its wavelet was
  // queued on: the granted input's picked VC (a queue holds only wavelets
  // of its VC, and so does the bypass into it), taken from the grants
  // rather than from the sent wavelet's color (RtrTakeVc checks they agree).
  logic [4*NV-1:0] oc_take;

  always_comb begin
    for (int o = 0; o < 4; o++) begin
      for (int v = 0; v < NV; v++) begin
        oc_take[o*NV + v] = 1'b0;
        for (int p = 0; p < NP; p++) begin
          if (ognt[o*NP + p] && vsel[p*NV + v]) oc_take[o*NV + v] = 1'b1;
        end
      end
    end
  end

  for (genvar o = 0; o < 4; o++) begin : g_link_credit
    for (genvar v = 0; v < NV; v++) begin : g_vc
      logic unused_cnt;
      logic [$clog2(VcDepth+1)-1:0] count;
      prim_credit_cnt #(
        .Depth (VcDepth)
      ) u_credit (
        .clk_i   (clk_i),
        .rst_ni  (rst_ni),
        .take_i  (oc_take[o*NV + v]),
        .give_i  (link_out_credit_i[o*NV + v]),
        .avail_o (oc_avail[o*NV + v]),
        .count_o (count)
      );
      assign unused_cnt = ^count;
    end
  end

  // The color whose credit the RAMP output spends: that of the head it was
  // granted to, selected from the heads' colors by the grant and the
  // input's pick rather than from the sent wavelet (RtrRampTakeColor).
  logic [CW-1:0] ramp_color;

  always_comb begin
    ramp_color = '0;
    for (int p = 0; p < NP; p++) begin
      for (int v = 0; v < NV; v++) begin
        if (ognt[RP*NP + p] && vsel[p*NV + v]) ramp_color |= hd_color[(p*NV + v)*CW +: CW];
      end
    end
  end

  for (genvar c = 0; c < NC; c++) begin : g_ramp_credit
    logic unused_cnt;
    logic [$clog2(RampColorDepth+1)-1:0] count;
    prim_credit_cnt #(
      .Depth (RampColorDepth)
    ) u_credit (
      .clk_i   (clk_i),
      .rst_ni  (rst_ni),
      .take_i  (out_valid_d[RP] && (32'(ramp_color) == c)),
      .give_i  (ramp_out_credit_i[c]),
      .avail_o (rc_avail[c]),
      .count_o (count)
    );
    assign unused_cnt = ^count;
  end

  // ---------------------------------------------------------------------------
  // Counters
  // ---------------------------------------------------------------------------
  logic [NP-1:0]    inc_fwd, inc_stall, inc_drop;
  logic [NP*32-1:0] fwd_q, stall_q, drop_q, fwd_d, stall_d, drop_d;

  // Heads that want output o: valid, not a drop, o among their remaining
  // branches. Output o sends at most one wavelet per cycle, and only for a
  // head that wants it (RtrNoResend), so some head is left waiting exactly
  // when two or more want o, or one does and o sends nothing. Counting
  // needs no grant: the allocation stays out of this logic.
  logic [NP-1:0] want_any, want_multi;

  always_comb begin
    for (int o = 0; o < NP; o++) begin
      want_any[o]   = 1'b0;
      want_multi[o] = 1'b0;
      for (int i = 0; i < NP*NV; i++) begin
        logic want;
        want          = hd_valid[i] && !hd_drop[i] && hd_rem[i*NP + o];
        want_multi[o] = want_multi[o] || (want_any[o] && want);
        want_any[o]   = want_any[o] || want;
      end
    end
  end

  function automatic logic [31:0] sat_inc(logic [31:0] c, logic inc);
    sat_inc = c + {31'd0, inc && (c != 32'hFFFF_FFFF)};
  endfunction

  always_comb begin
    for (int o = 0; o < NP; o++) begin
      inc_fwd[o]   = out_valid_d[o];
      inc_drop[o]  = sel_any[o] && sel_drop[o];
      // A wavelet wanted output o and did not get it (credit or arbitration).
      inc_stall[o] = want_multi[o] || (want_any[o] && !out_valid_d[o]);
      fwd_d[o*32 +: 32]   = sat_inc(fwd_q[o*32 +: 32], inc_fwd[o]);
      stall_d[o*32 +: 32] = sat_inc(stall_q[o*32 +: 32], inc_stall[o]);
      drop_d[o*32 +: 32]  = sat_inc(drop_q[o*32 +: 32], inc_drop[o]);
    end
    if (cnt_clear_i) begin
      fwd_d   = '0;
      stall_d = '0;
      drop_d  = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fwd_q   <= '0;
      stall_q <= '0;
      drop_q  <= '0;
    end else begin
      fwd_q   <= fwd_d;
      stall_q <= stall_d;
      drop_q  <= drop_d;
    end
  end

  assign cnt_fwd_o   = fwd_q;
  assign cnt_stall_o = stall_q;
  assign cnt_drop_o  = drop_q;

  // ---------------------------------------------------------------------------
  // Assertions and cover points
  // ---------------------------------------------------------------------------
  for (genvar p = 0; p < NP; p++) begin : g_assert_port
    // At most one wavelet leaves an input port per cycle: one credit.
    `ASSERT_ONEHOT0(RtrOneCreditPerPort, in_credit_q[p*NV +: NV])
    // Round 2 only uses outputs that round 1 left free (output p here), for
    // inputs that round 1 left idle: with the arbiters' one-hot grants, one
    // input per output and one VC per input over both rounds.
    `ASSERT(RtrRound2Disjoint, (ognt2[p*NP +: NP] == '0) || !taken1[p])
    `ASSERT(RtrOneRoundPerInput, !prog1[p] || (g_in2[p*NP +: NP] == '0))
    `COVER(RtrRound2, use2[p])
    // Round 2's outputs are known before round 1's outputs arbitrate: an
    // output is granted in round 1 exactly when it is requested in round 1.
    `ASSERT(RtrTaken1Requested, taken1[p] == (ognt1[p*NP +: NP] != '0))
    // A fork branch is never sent twice, and only where the route says.
    `ASSERT(RtrNoResend, (g_in[p*NP +: NP] & ~sel_rem[p*NP +: NP]) == '0)
    `ASSERT_KNOWN(RtrOutValidKnown, out_valid_q[p])
    `COVER(RtrDrop, inc_drop[p])
    `COVER(RtrStall, inc_stall[p])
    for (genvar o = 0; o < NP; o++) begin : g_pair
      `COVER(RtrPortPair, ognt[o*NP + p])
    end
    for (genvar v = 0; v < NV; v++) begin : g_vc
      `COVER(RtrQueueFull, q_full[p*NV + v])
    end
    for (genvar k = 2; k <= NP; k++) begin : g_fanout
      // A multicast to k ports completes.
      `COVER(RtrFanout, sel_done[p] && !sel_drop[p] &&
             ($countones(sel_tx[p*NP +: NP]) == k))
    end
  end
  for (genvar o = 0; o < 4; o++) begin : g_assert_link
    logic [VcW-1:0] out_vc;
    assign out_vc = color_vc(out_data_d[o*WW + CL +: CW]);
    // The credit spent is the sent wavelet's VC's, one per wavelet sent.
    `ASSERT(RtrTakeVc, out_valid_d[o] == (oc_take[o*NV +: NV] != '0) &&
            (!out_valid_d[o] || oc_take[o*NV + 32'(out_vc)]))
    for (genvar v = 0; v < NV; v++) begin : g_vc
      `COVER(RtrZeroCredit, !oc_avail[o*NV + v])
    end
  end
  // The RAMP output spends the credit of the color it sends.
  `ASSERT(RtrRampTakeColor, !out_valid_d[RP] || ramp_color == out_data_d[RP*WW + CL +: CW])
  for (genvar c = 0; c < NC; c++) begin : g_assert_ramp
    `COVER(RtrRampZeroCredit, !rc_avail[c])
  end
endmodule
