// Stream-in lanes of the host interface's executor (docs/host-if.md,
// "STREAM_IN"): a STREAM_IN's payload is a list of chunks, each a header
// word (edge port, wavelet count) and its wavelets. The dispatcher hands
// the chunk at the executor's walk pointer to a free lane; each lane then
// injects its chunk's wavelets into its port, one a cycle while the
// port's virtual channel has an intake credit. Several lanes run at once
// so that chunks for different ports overlap; a lane never takes a port
// another lane holds, which keeps each port's wavelets in list order.
//
// Apart from the executor because the lanes are state of their own (a
// chunk's port, its next word and what is left of it) that only the
// stream-in touches; the executor keeps the walk pointer, the credits and
// the injection registers, and asks this block what can move this cycle.
`include "prim_assert.svh"

module hif_si_lanes #(
  parameter int unsigned NumLanes   = 4,
  parameter int unsigned NumPorts   = 8,
  parameter int unsigned NumVc      = 4,
  parameter int unsigned VcW        = 2,
  parameter logic [32*VcW-1:0] ColorVcMap = '0,
  parameter int unsigned IW         = 9,   // a word index within a slot is IW+1 bits
  // Derived; do not override.
  parameter int unsigned PW         = (NumPorts > 1) ? $clog2(NumPorts) : 1,
  parameter int unsigned LW         = (NumLanes > 1) ? $clog2(NumLanes) : 1
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  // A new request is dispatched: every lane idle.
  input  logic                        clear_i,
  // The stream-in runs this cycle (neither finished nor stalled): the lanes
  // that can inject do, and the dispatcher hands out the chunk at p_i.
  input  logic                        run_i,
  // The executor's walk pointer over the payload's words, their number,
  // and the word at p_i (a chunk header) from the slot RAM's main port,
  // valid when hdr_valid_i; hdr_port_i is its edge port byte as an index.
  input  logic [IW:0]                 p_i,
  input  logic [IW:0]                 nw_i,
  input  logic                        hdr_valid_i,
  input  logic [IW:0]                 hdr_count_i,
  input  logic [PW-1:0]               hdr_port_i,
  // The color of each lane's wavelet at its word (lane_p_o), from the
  // slot RAM's lane ports, valid when wv_valid_i.
  input  logic [NumLanes*5-1:0]       wv_color_i,
  input  logic [NumLanes-1:0]         wv_valid_i,
  // Intake credits: bit p*NumVc+v is set when port p's VC v has one.
  input  logic [NumPorts*NumVc-1:0]   cred_nz_i,
  // What moves this cycle when run_i: each lane's wavelet into its port
  // (go_o), and a chunk handed to a lane (dsp_go_o; the executor moves its
  // walk pointer past the chunk).
  output logic [NumLanes-1:0]         go_o,
  output logic [NumLanes*PW-1:0]      port_o,
  output logic [NumLanes*VcW-1:0]     vc_o,
  output logic [NumLanes*(IW+1)-1:0]  lane_p_o,
  output logic                        dsp_go_o,
  output logic [NumLanes-1:0]         take_o,  // the lane dsp_go_o hands the chunk to
  // The stream-in's state: done (every chunk dispatched and injected), or
  // stalled (nothing can move, and not for a cycle's wait on the block RAM:
  // a side request may be served meanwhile).
  output logic                        done_o,
  output logic                        stall_o,
  output logic [$clog2(NumLanes+1)-1:0] n_o   // wavelets injected this cycle
);
  logic [NumLanes-1:0] act_d, act_q;
  logic [PW-1:0]       port_d [NumLanes], port_q [NumLanes];
  logic [IW:0]         p_d [NumLanes], p_q [NumLanes];      // word of the next wavelet
  logic [IW:0]         rem_d [NumLanes], rem_q [NumLanes];  // wavelets left in the chunk

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      act_q <= '0;
      for (int l = 0; l < NumLanes; l++) begin
        port_q[l] <= '0;
        p_q[l]    <= '0;
        rem_q[l]  <= '0;
      end
    end else begin
      act_q <= act_d;
      for (int l = 0; l < NumLanes; l++) begin
        port_q[l] <= port_d[l];
        p_q[l]    <= p_d[l];
        rem_q[l]  <= rem_d[l];
      end
    end
  end

  logic [LW-1:0]  dsp_lane;
  logic           port_busy;
  logic [VcW-1:0] vc [NumLanes];
  logic           wait_rd;  // a cycle's wait for the block RAM
  always_comb begin
    n_o = '0;
    for (int l = 0; l < NumLanes; l++) begin
      vc[l]    = ColorVcMap[32'(wv_color_i[l*5 +: 5])*VcW +: VcW];
      go_o[l]  = act_q[l] && wv_valid_i[l] && cred_nz_i[32'(port_q[l])*NumVc + 32'(vc[l])];
      n_o      = n_o + $bits(n_o)'(go_o[l]);
      port_o[l*PW +: PW]          = port_q[l];
      vc_o[l*VcW +: VcW]          = vc[l];
      lane_p_o[l*(IW+1) +: IW+1]  = p_q[l];
    end
    // The lowest free lane takes the chunk, unless a lane holds its port.
    port_busy = 1'b0;
    dsp_lane  = '0;
    for (int l = NumLanes - 1; l >= 0; l--) begin
      if (act_q[l] && port_q[l] == hdr_port_i) port_busy = 1'b1;
      if (!act_q[l]) dsp_lane = LW'(l);
    end
    dsp_go_o = (p_i != nw_i) && !(&act_q) && hdr_valid_i && !port_busy;
    for (int l = 0; l < NumLanes; l++) take_o[l] = dsp_go_o && dsp_lane == LW'(l);
    done_o   = (p_i == nw_i) && !(|act_q);
    // Waiting a cycle for the block RAM is not a stall.
    wait_rd  = ((p_i != nw_i) && !(&act_q) && !hdr_valid_i) || (|(act_q & ~wv_valid_i));
    stall_o  = !done_o && !wait_rd && !dsp_go_o && !(|go_o);
  end

  // Element by element, with the dispatcher's lane as a mask (take_o),
  // not an index: Yosys takes neither whole unpacked arrays nor writes at a
  // variable index in a combinational process (docs/rtl-conventions.md).
  always_comb begin
    for (int l = 0; l < NumLanes; l++) begin
      act_d[l]  = act_q[l];
      port_d[l] = port_q[l];
      p_d[l]    = p_q[l];
      rem_d[l]  = rem_q[l];
      if (clear_i) begin
        act_d[l] = 1'b0;
      end else if (run_i) begin
        if (go_o[l]) begin
          p_d[l]   = p_q[l] + 1'b1;
          rem_d[l] = rem_q[l] - 1'b1;
          if (rem_q[l] == (IW+1)'(1)) act_d[l] = 1'b0;
        end
        // A lane that takes a chunk is free, so it injects nothing now.
        if (take_o[l]) begin
          act_d[l]  = 1'b1;
          port_d[l] = hdr_port_i;
          p_d[l]    = p_i + 1'b1;
          rem_d[l]  = hdr_count_i;
        end
      end
    end
  end

  // Lanes never share a port (per-port order) and never run past a chunk.
  for (genvar l = 0; l < NumLanes; l++) begin : g_lane_asrt
    logic [IW:0] rem_l;
    assign rem_l = rem_q[l];
    `ASSERT(LaneChunkLeft, act_q[l] |-> rem_l != '0)
    for (genvar m = l + 1; m < NumLanes; m++) begin : g_other
      logic [PW-1:0] port_l, port_m;
      assign port_l = port_q[l];
      assign port_m = port_q[m];
      `ASSERT(LanePortsDistinct, !(act_q[l] && act_q[m] && port_l == port_m))
    end
  end
endmodule
