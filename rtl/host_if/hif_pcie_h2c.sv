// Host-to-card data mover: reads a descriptor's buffer from host memory in
// reads of up to MaxRead words that never cross a MaxRead-word boundary,
// and delivers the words in order into the link receiver's word stream
// (hif_rx_frame's input, framing unchanged). A read is asked for only when
// the queue in front of the link has room for all of it, so completions
// are always taken at once (the port never back-pressures them) and a
// stalled mesh stops the reads instead of the bus. The queue carries on
// across descriptors, so a packet may span buffers.
`include "prim_assert.svh"

module hif_pcie_h2c #(
  parameter int unsigned      TagW    = 4,
  parameter logic [TagW-3:0]  Id      = '0,
  parameter int unsigned      LenW    = 6,
  parameter int unsigned      MaxRead = 16,       // words per read, a power of two
  parameter int unsigned      Depth   = 32,       // words queued for the link, >= MaxRead
  parameter int unsigned      Timeout = 1 << 20
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  // From the ring: one buffer at a time (length a multiple of 8, not 0).
  input  logic            xfer_start_i,
  input  logic [63:0]     xfer_addr_i,
  input  logic [31:0]     xfer_len_i,
  output logic            xfer_done_o,
  output logic [31:0]     xfer_bytes_o,
  output logic [7:0]      xfer_code_o,
  // DMA reads.
  output logic            rd_valid_o,
  input  logic            rd_ready_i,
  output logic [63:0]     rd_addr_o,
  output logic [LenW-1:0] rd_len_o,
  output logic [TagW-1:0] rd_tag_o,
  input  logic            cpl_valid_i,
  input  logic [TagW-1:0] cpl_tag_i,
  input  logic [63:0]     cpl_data_i,
  input  logic            cpl_last_i,
  input  logic            cpl_err_i,
  // Link words to the receiver framing (hif_rx_frame link_*).
  output logic            link_valid_o,
  input  logic            link_ready_i,
  output logic [63:0]     link_data_o
);
  localparam int unsigned ChunkW = $clog2(MaxRead);
  localparam int unsigned CntW   = $clog2(Depth + 1);

  typedef enum logic [1:0] {SIdle, SReq, SCpl, SDone} state_e;

  state_e          state_q, state_d;
  logic [63:0]     addr_q, addr_d;   // next word to ask for
  logic [28:0]     left_q, left_d;   // words not yet asked for
  logic [31:0]     got_q, got_d;     // bytes received
  logic [LenW-1:0] cur_q, cur_d;     // words of the read in flight still to come
  logic [1:0]      seq_q, seq_d;
  logic [7:0]      code_q, code_d;
  logic [LenW-1:0] chunk;
  logic [CntW-1:0] usage;
  logic            empty, full, cpl_mine, push, expired;

  // Up to the next MaxRead-word boundary, at most what is left.
  always_comb begin
    chunk = LenW'(MaxRead) - LenW'(addr_q[3 +: ChunkW]);
    if (left_q < 29'(chunk)) chunk = LenW'(left_q);
  end

  assign cpl_mine   = cpl_valid_i && cpl_tag_i == {Id, seq_q} && state_q == SCpl;
  assign push       = cpl_mine && !cpl_err_i;
  assign rd_valid_o = state_q == SReq && 32'(usage) + 32'(chunk) <= 32'(Depth);

  hif_pcie_wdog #(.Timeout(Timeout)) u_wdog (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .wait_i    ((rd_valid_o && !rd_ready_i) || state_q == SCpl),
    .expired_o (expired)
  );

  always_comb begin
    state_d = state_q;
    addr_d  = addr_q;
    left_d  = left_q;
    got_d   = got_q;
    cur_d   = cur_q;
    seq_d   = seq_q;
    code_d  = code_q;
    unique case (state_q)
      SIdle: begin
        if (xfer_start_i) begin
          addr_d  = xfer_addr_i;
          left_d  = xfer_len_i[31:3];
          got_d   = '0;
          code_d  = 8'(hif_pcie_pkg::PcieCplOk);
          state_d = SReq;
        end
      end
      SReq: begin
        if (rd_valid_o && rd_ready_i) begin
          addr_d  = addr_q + {55'h0, chunk, 3'h0};
          left_d  = left_q - 29'(chunk);
          cur_d   = chunk;
          state_d = SCpl;
        end
      end
      SCpl: begin
        if (cpl_mine && cpl_err_i) begin
          code_d  = 8'(hif_pcie_pkg::PcieCplBus);
          state_d = SDone;
        end else if (push) begin
          got_d = got_q + 32'd8;
          cur_d = cur_q - LenW'(1);
          if (cur_q == LenW'(1)) state_d = (left_q == '0) ? SDone : SReq;
        end
      end
      SDone:   state_d = SIdle;
      default: state_d = SIdle;
    endcase
    if (expired) begin
      code_d  = 8'(hif_pcie_pkg::PcieCplTimeout);
      state_d = SDone;
      seq_d   = seq_q + 2'd1;  // a late answer is not ours
    end
    if (state_q == SCpl && state_d != SCpl && !expired) seq_d = seq_q + 2'd1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= SIdle;
      addr_q  <= '0;
      left_q  <= '0;
      got_q   <= '0;
      cur_q   <= '0;
      seq_q   <= '0;
      code_q  <= '0;
    end else begin
      state_q <= state_d;
      addr_q  <= addr_d;
      left_q  <= left_d;
      got_q   <= got_d;
      cur_q   <= cur_d;
      seq_q   <= seq_d;
      code_q  <= code_d;
    end
  end

  prim_fifo_sync #(.Width(64), .Depth(Depth)) u_fifo (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .push_i  (push),
    .wdata_i (cpl_data_i),
    .pop_i   (link_valid_o && link_ready_i),
    .rdata_o (link_data_o),
    .empty_o (empty),
    .full_o  (full),
    .usage_o (usage)
  );

  // Lengths are whole words (the ring checks them).
  logic unused_len;
  assign unused_len = ^xfer_len_i[2:0];

  assign link_valid_o = !empty;
  assign rd_addr_o    = addr_q;
  assign rd_len_o     = chunk;
  assign rd_tag_o     = {Id, seq_q};
  assign xfer_done_o  = state_q == SDone;
  assign xfer_bytes_o = got_q;
  assign xfer_code_o  = code_q;

  // ---- assertions --------------------------------------------------------
  // The room was reserved when the read was asked for, so a completion
  // word always finds the queue with space.
  `ASSERT(NoPushFull, !(push && full))
  // The bus keeps the length it was asked for: the last word of a read
  // is marked last, and no other is.
  `ASSERT(CplLastAtEnd, !push || (cpl_last_i == (cur_q == LenW'(1))))
  // A read is never empty, never longer than MaxRead, never crosses a
  // MaxRead-word boundary.
  `ASSERT(ReadInChunk, !rd_valid_o || (chunk != '0 && 32'(chunk) <= 32'(MaxRead) &&
          32'(addr_q[3 +: ChunkW]) + 32'(chunk) <= 32'(MaxRead)))
  // The ring hands out one buffer at a time: a new one only when idle.
  `ASSERT(StartOnlyIdle, !xfer_start_i || state_q == SIdle)
  // hif_rx_frame expects a word offered to stay until taken.
  `ASSERT_NEXT(LinkHeld, link_valid_o && !link_ready_i, link_valid_o && $stable(link_data_o))
endmodule
