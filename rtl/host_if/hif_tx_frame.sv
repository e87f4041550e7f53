// Link transmitter framing: turns a packet description (opcode, flags, tag,
// status, length) and its payload words into link words: the 3-word header
// with its CRC-32C, the payload with the padding bytes forced to zero, and
// the trailer with the payload CRC, all computed on the fly, one word per
// cycle, so responses and events stream out without being buffered here.
// One 8-byte CRC update serves the header and the payload: it takes the
// header's first two words as they are sent, and then the third word's
// length (the header's last 4 bytes) for the CRC sent beside it. A 20-byte
// update of the whole header in one cycle was 887 LUT4 on the ECP5
// (docs/fpga.md).
`include "prim_assert.svh"

module hif_tx_frame #(
  parameter int unsigned MaxLength = 65536  // largest payload sent (bytes)
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Packet description; taken when cmd_valid_i && cmd_ready_o.
  input  logic        cmd_valid_i,
  output logic        cmd_ready_o,
  input  logic [7:0]  cmd_opcode_i,
  input  logic [7:0]  cmd_flags_i,
  input  logic [31:0] cmd_tag_i,
  input  logic [15:0] cmd_status_i,
  input  logic [31:0] cmd_length_i,
  // Payload: ceil(length / 8) words, byte 0 in bits [7:0]; bytes past the
  // length are ignored (sent as zero).
  input  logic        pl_valid_i,
  output logic        pl_ready_o,
  input  logic [63:0] pl_data_i,
  // Link words.
  output logic        link_valid_o,
  input  logic        link_ready_i,
  output logic [63:0] link_data_o,
  output logic        link_last_o   // trailer word: end of packet
);
  localparam int unsigned NwW = 14;

  typedef enum logic [2:0] {StIdle, StHdr0, StHdr1, StHdr2, StBody, StTrailer} state_e;

  state_e       state_q, state_d;
  logic [63:0]  hdr0_q, hdr1_q, hdr0_d, hdr1_d;
  logic [31:0]  length_q, length_d;
  logic [31:0]  crc_q, crc_d;
  logic [NwW:0] left_q, left_d;
  logic [63:0]  masked, crc_word;
  logic [31:0]  hcrc, body_crc, crc_in;

  // The update's state and word. StHdr0, StHdr1: the header word being
  // sent. StHdr2: the length after the first 16 bytes, crc_q. The first 4
  // bytes of an update fold into the state by XOR, so the update of 4
  // bytes from crc_q is that of crc_q ^ length_q by 4 zero bytes, which is
  // the 8-byte update from a zero state of a word whose first 4 bytes are
  // zero and whose last 4 are crc_q ^ length_q. Else the payload word.
  always_comb begin
    crc_in = crc_q;
    unique case (state_q)
      StHdr0:  crc_word = hdr0_q;
      StHdr1:  crc_word = hdr1_q;
      StHdr2: begin
        crc_in   = 32'h0;
        crc_word = {crc_q ^ length_q, 32'h0};
      end
      default: crc_word = masked;
    endcase
  end

  hif_crc32c #(
    .Bytes(8)
  ) u_crc (
    .crc_i (crc_in),
    .data_i(crc_word),
    .crc_o (body_crc)
  );
  assign hcrc = ~body_crc;  // in StHdr2

  // Bytes of payload in the last payload word (1..8), and the word with
  // the bytes past the length cleared.
  logic [3:0] last_bytes;
  always_comb begin
    last_bytes = (length_q[2:0] == 3'd0) ? 4'd8 : {1'b0, length_q[2:0]};
    masked     = pl_data_i;
    if (left_q == (NwW + 1)'(1)) begin
      for (int unsigned i = 0; i < 8; i++)
        if (i >= last_bytes) masked[8*i +: 8] = 8'h00;
    end
  end

  always_comb begin
    state_d      = state_q;
    hdr0_d       = hdr0_q;
    hdr1_d       = hdr1_q;
    length_d     = length_q;
    crc_d        = crc_q;
    left_d       = left_q;
    cmd_ready_o  = 1'b0;
    pl_ready_o   = 1'b0;
    link_valid_o = 1'b0;
    link_data_o  = '0;
    link_last_o  = 1'b0;

    unique case (state_q)
      StIdle: begin
        cmd_ready_o = 1'b1;
        if (cmd_valid_i) begin
          hdr0_d   = {cmd_flags_i, cmd_opcode_i, 8'(hif_pkg::ProtoMinor),
                      8'(hif_pkg::ProtoMajor), 32'(hif_pkg::ProtoMagic)};
          hdr1_d   = {16'h0, cmd_status_i, cmd_tag_i};
          length_d = cmd_length_i;
          left_d   = (NwW + 1)'((cmd_length_i + 32'd7) >> 3);
          crc_d    = 32'hFFFF_FFFF;
          state_d  = StHdr0;
        end
      end
      StHdr0: begin
        link_valid_o = 1'b1;
        link_data_o  = hdr0_q;
        if (link_ready_i) begin
          crc_d   = body_crc;
          state_d = StHdr1;
        end
      end
      StHdr1: begin
        link_valid_o = 1'b1;
        link_data_o  = hdr1_q;
        if (link_ready_i) begin
          crc_d   = body_crc;
          state_d = StHdr2;
        end
      end
      StHdr2: begin
        link_valid_o = 1'b1;
        link_data_o  = {hcrc, length_q};
        if (link_ready_i) begin
          crc_d   = 32'hFFFF_FFFF;  // the payload's CRC from the seed
          state_d = (left_q == '0) ? StTrailer : StBody;
        end
      end
      StBody: begin
        link_valid_o = pl_valid_i;
        link_data_o  = masked;
        pl_ready_o   = link_ready_i;
        if (pl_valid_i && link_ready_i) begin
          crc_d  = body_crc;
          left_d = left_q - (NwW + 1)'(1);
          if (left_q == (NwW + 1)'(1)) state_d = StTrailer;
        end
      end
      StTrailer: begin
        link_valid_o = 1'b1;
        link_data_o  = {32'h0, ~crc_q};
        link_last_o  = 1'b1;
        if (link_ready_i) state_d = StIdle;
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= StIdle;
      hdr0_q   <= '0;
      hdr1_q   <= '0;
      length_q <= '0;
      crc_q    <= '1;
      left_q   <= '0;
    end else begin
      state_q  <= state_d;
      hdr0_q   <= hdr0_d;
      hdr1_q   <= hdr1_d;
      length_q <= length_d;
      crc_q    <= crc_d;
      left_q   <= left_d;
    end
  end

  // ---- assertions --------------------------------------------------------
  `ASSERT_KNOWN(LinkValidKnown, link_valid_o)
  `ASSERT_KNOWN(CmdReadyKnown, cmd_ready_o)
  // A command never asks for more than the limit.
  `ASSERT(CmdLengthInRange, !(cmd_valid_i && cmd_ready_o) || cmd_length_i <= MaxLength)
  // A word offered on the link stays until taken.
  `ASSERT_NEXT(LinkHeld, link_valid_o && !link_ready_i,
               link_valid_o && link_data_o == $past(link_data_o))
  // The payload source keeps a word offered until it is taken (the link
  // word above depends on it).
  `ASSERT_NEXT(PlHeld, pl_valid_i && !pl_ready_o && state_q == StBody,
               pl_valid_i && pl_data_i == $past(pl_data_i))
  // Payload is only taken while a packet's body is being sent.
  `ASSERT(PlOnlyInBody, !pl_ready_o || state_q == StBody)
  `COVER(SentEmptyPacket, state_q == StHdr2 && left_q == '0 && link_ready_i)
endmodule
