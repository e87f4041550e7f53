// Card-to-host data mover: takes the link transmitter's words (responses
// and stream-out events, hif_tx_frame's link_* output) and writes them, a
// word per write, into the host buffer of the ring's current descriptor.
// A buffer ends at the end of a packet (the trailer word, link_last_i:
// the completion says EOP) or when it is full (the packet goes on in the
// next buffer), so a buffer of at least the largest frame holds one whole
// packet. Without a buffer the transmitter waits (link_ready_o low). A
// buffer still empty when the ring is stopped is completed empty, so that
// stopping a ring does not wait for the next packet.
`include "prim_assert.svh"

module hif_pcie_c2h #(
  parameter int unsigned Timeout = 1 << 20
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // From the ring: one buffer at a time (length a multiple of 8, not 0).
  input  logic        xfer_start_i,
  input  logic        stop_i,        // the ring's RUN is clear
  input  logic [63:0] xfer_addr_i,
  input  logic [31:0] xfer_len_i,
  output logic        xfer_done_o,
  output logic [31:0] xfer_bytes_o,
  output logic        xfer_eop_o,
  output logic [7:0]  xfer_code_o,
  // Link words from the transmitter framing.
  input  logic        link_valid_i,
  output logic        link_ready_o,
  input  logic [63:0] link_data_i,
  input  logic        link_last_i,
  // DMA writes.
  output logic        wr_valid_o,
  input  logic        wr_ready_i,
  output logic [63:0] wr_addr_o,
  output logic [63:0] wr_data_o
);
  typedef enum logic [1:0] {SIdle, SMove, SDone} state_e;

  state_e      state_q, state_d;
  logic [63:0] addr_q, addr_d;
  logic [31:0] len_q, len_d, bytes_q, bytes_d;
  logic        eop_q, eop_d;
  logic [7:0]  code_q, code_d;
  logic        expired;

  assign wr_valid_o   = state_q == SMove && link_valid_i;
  assign link_ready_o = state_q == SMove && wr_ready_i;

  hif_pcie_wdog #(.Timeout(Timeout)) u_wdog (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .wait_i    (wr_valid_o && !wr_ready_i),
    .expired_o (expired)
  );

  always_comb begin
    state_d = state_q;
    addr_d  = addr_q;
    len_d   = len_q;
    bytes_d = bytes_q;
    eop_d   = eop_q;
    code_d  = code_q;
    unique case (state_q)
      SIdle: begin
        if (xfer_start_i) begin
          addr_d  = xfer_addr_i;
          len_d   = xfer_len_i;
          bytes_d = '0;
          eop_d   = 1'b0;
          code_d  = 8'(hif_pcie_pkg::PcieCplOk);
          state_d = SMove;
        end
      end
      SMove: begin
        if (wr_valid_o && wr_ready_i) begin
          addr_d  = addr_q + 64'd8;
          bytes_d = bytes_q + 32'd8;
          eop_d   = link_last_i;
          if (link_last_i || bytes_q + 32'd8 == len_q) state_d = SDone;
        end else if (expired) begin
          code_d  = 8'(hif_pcie_pkg::PcieCplTimeout);
          state_d = SDone;
        end else if (stop_i && bytes_q == '0 && !link_valid_i) begin
          state_d = SDone;  // nothing offered, nothing written: empty
        end
      end
      SDone:   state_d = SIdle;
      default: state_d = SIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= SIdle;
      addr_q  <= '0;
      len_q   <= '0;
      bytes_q <= '0;
      eop_q   <= 1'b0;
      code_q  <= '0;
    end else begin
      state_q <= state_d;
      addr_q  <= addr_d;
      len_q   <= len_d;
      bytes_q <= bytes_d;
      eop_q   <= eop_d;
      code_q  <= code_d;
    end
  end

  assign wr_addr_o    = addr_q;
  assign wr_data_o    = link_data_i;
  assign xfer_done_o  = state_q == SDone;
  assign xfer_bytes_o = bytes_q;
  assign xfer_eop_o   = eop_q;
  assign xfer_code_o  = code_q;

  // ---- assertions --------------------------------------------------------
  // Never past the buffer: the ring gives lengths that are whole words.
  `ASSERT(InBuffer, state_q != SMove || bytes_q < len_q)
  // The ring hands out one buffer at a time: a new one only when idle.
  `ASSERT(StartOnlyIdle, !xfer_start_i || state_q == SIdle)
  // A write stays offered until taken (the transmitter holds its word),
  // unless the wait has timed out and the arbiter keeps it.
  `ASSERT_NEXT(WrHeld, wr_valid_o && !wr_ready_i && !expired,
               wr_valid_o && $stable(wr_addr_o) && $stable(wr_data_o))
endmodule
