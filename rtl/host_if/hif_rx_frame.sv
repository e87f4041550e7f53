// Link receiver framing: takes 64-bit link words, finds packet headers
// (resynchronizing word by word after a bad one), checks them in the order
// of docs/protocol.md section 3.1, streams the payload words of good
// requests downstream and, for every intact header, ends the frame with
// one verdict event. The payload CRC is only known at the end: downstream
// buffers a request's payload and uses it only on a WSE_EVT_OK verdict.
// The header's CRC goes through the payload's 8-byte CRC update, a word as
// it enters the window: over all 24 bytes, the CRC field included, the
// state from the seed is a constant (hdr_residue) exactly when the field
// holds the CRC of the 20 bytes before it (docs/host-if.md). After a bad
// header the window drops a word and hashes the two it keeps again, two
// cycles per resynchronized word; a 20-byte update of the whole window in
// one cycle was 887 LUT4 on the ECP5 and the link clock's critical path
// (docs/fpga.md). The magic and that state are checked one cycle after the
// window fills, from a register: a cycle per header.
`include "prim_assert.svh"

module hif_rx_frame #(
  parameter int unsigned MaxPayload = 4096  // bytes; the device's max_payload
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Link words, byte 0 of the packet in bits [7:0].
  input  logic        link_valid_i,
  output logic        link_ready_o,
  input  logic [63:0] link_data_i,
  // Header of the current frame, stable from hdr_start_o to its event.
  output logic        hdr_start_o,  // pulse: a request's payload follows
  output logic [7:0]  hdr_major_o,
  output logic [7:0]  hdr_minor_o,
  output logic [7:0]  hdr_opcode_o,
  output logic [7:0]  hdr_flags_o,
  output logic [31:0] hdr_tag_o,
  output logic [31:0] hdr_length_o,
  // Payload words of a request that passed the header checks.
  output logic        pl_valid_o,
  input  logic        pl_ready_i,
  output logic [63:0] pl_data_o,
  output logic        pl_last_o,
  // One verdict per intact header (hif_pkg::Evt*), with the header fields.
  output logic        evt_valid_o,
  input  logic        evt_ready_i,
  output logic [2:0]  evt_code_o,
  // Pulse per link word dropped while looking for a header.
  output logic        resync_o
);
  localparam int unsigned NwW = 14;  // payload words: up to 65536/8

  // Verdicts.
  localparam logic [2:0] EvtOk         = 3'd0;  // request, all checks passed
  localparam logic [2:0] EvtVersion    = 3'd1;
  localparam logic [2:0] EvtLength     = 3'd2;
  localparam logic [2:0] EvtMalformed  = 3'd3;
  localparam logic [2:0] EvtOpcode     = 3'd4;
  localparam logic [2:0] EvtPayloadCrc = 3'd5;
  localparam logic [2:0] EvtDrop       = 3'd6;  // intact, but not a request

  // Frame modes after the header checks.
  typedef enum logic [2:0] {
    ModeRequest,    // payload goes downstream
    ModeNotReq,     // response/event flags: checked, then dropped
    ModeVersion,    // other major: CRC checked, then refused
    ModeMalformed,  // skipped without CRC check
    ModeOpcode      // skipped without CRC check
  } mode_e;

  typedef enum logic [1:0] {StHdr, StBody, StTrailer, StEvent} state_e;

  function automatic logic opcode_known(logic [7:0] op);
    unique case (op)
      8'(hif_pkg::OpInfo), 8'(hif_pkg::OpPing), 8'(hif_pkg::OpReset),
      8'(hif_pkg::OpAbort), 8'(hif_pkg::OpHalt), 8'(hif_pkg::OpRun),
      8'(hif_pkg::OpMemRead), 8'(hif_pkg::OpMemWrite),
      8'(hif_pkg::OpCsrRead), 8'(hif_pkg::OpCsrWrite),
      8'(hif_pkg::OpRouteRead), 8'(hif_pkg::OpRouteWrite),
      8'(hif_pkg::OpRegRead), 8'(hif_pkg::OpRegWrite),
      8'(hif_pkg::OpStreamIn), 8'(hif_pkg::OpStreamCredit),
      8'(hif_pkg::OpStreamOut), 8'(hif_pkg::OpConsole),
      8'(hif_pkg::OpPerfRead),
      8'(hif_pkg::OpFlashRead), 8'(hif_pkg::OpFlashErase),
      8'(hif_pkg::OpFlashProgram), 8'(hif_pkg::OpFlashVerify): opcode_known = 1'b1;
      default: opcode_known = 1'b0;
    endcase
  endfunction

  function automatic logic opcode_event(logic [7:0] op);
    opcode_event = op == 8'(hif_pkg::OpStreamOut) || op == 8'(hif_pkg::OpConsole);
  endfunction

  state_e      state_q, state_d;
  mode_e       mode_q, mode_d;
  logic [191:0] win_q, win_d;  // header window: word k at [64k +: 64], 0 oldest
  logic [1:0]  cnt_q, cnt_d;
  logic [1:0]  hp_q, hp_d;            // window words hashed into crc_q (<= cnt_q)
  logic        chk_q, chk_d;          // hdr_ok_q holds the window's check
  logic        hdr_ok_q, hdr_ok_d;    // magic and header CRC of the window
  logic [31:0] crc_q, crc_d;          // running state (not yet inverted):
                                      // the header's, then the payload's
  logic [NwW:0] left_q, left_d;       // payload words still to come
  logic        pad_bad_q, pad_bad_d;  // non-zero padding seen
  logic [2:0]  evt_q, evt_d;
  logic        shift_after_q, shift_after_d;  // LENGTH: resync after event
  logic [7:0]  major_q, minor_q, opcode_q, flags_q;
  logic [31:0] tag_q, length_q;
  logic        hdr_load;

  // The CRC state, from the seed, after 20 bytes and then their CRC
  // (bytes 20..23). That CRC is the complement of the state after the 20
  // bytes, so XORed into it, it makes the state all ones, and 32 steps of
  // the register from there give the same value for every header: the
  // update of 4 zero bytes from all ones, a constant after elaboration.
  // The 32 steps are invertible, so no other CRC field reaches this value.
  logic [31:0] hdr_residue;
  hif_crc32c #(
    .Bytes(4)
  ) u_residue (
    .crc_i (32'hFFFF_FFFF),
    .data_i(32'h0),
    .crc_o (hdr_residue)
  );

  // ---- header view of the window --------------------------------------
  logic [31:0] h_magic, h_tag, h_length;
  logic [7:0]  h_major, h_minor, h_opcode, h_flags;
  logic [15:0] h_status, h_rsvd;
  logic [31:0] body_crc;
  logic [63:0] crc_word;
  logic        rehash;
  logic        h_req, h_evt, h_resp;
  logic [NwW:0] h_words;

  // Words 0 and 1 and the length of word 2; its CRC field (bits [191:160])
  // is read only through the CRC state.
  logic [63:0] w0, w1;
  logic [31:0] w2_len;
  assign w0     = win_q[0 +: 64];
  assign w1     = win_q[64 +: 64];
  assign w2_len = win_q[128 +: 32];

  always_comb begin
    h_magic  = w0[31:0];
    h_major  = w0[39:32];
    h_minor  = w0[47:40];
    h_opcode = w0[55:48];
    h_flags  = w0[63:56];
    h_tag    = w1[31:0];
    h_status = w1[47:32];
    h_rsvd   = w1[63:48];
    h_length = w2_len;
    h_resp   = h_flags == 8'h01;
    h_evt    = h_flags == 8'h02;
    h_req    = h_flags == 8'h00;
    h_words  = (NwW + 1)'((h_length + 32'd7) >> 3);
    hdr_ok_d = h_magic == hif_pkg::ProtoMagic && crc_q == hdr_residue;
  end

  // A word's CRC update: the arriving link word, or (rehash) a window word
  // not yet hashed after a resynchronization; only w0 and w1 are ever
  // hashed again, since the window then holds two words.
  assign rehash   = state_q == StHdr && hp_q != cnt_q;
  assign crc_word = !rehash ? link_data_i : (hp_q == 2'd0 ? w0 : w1);

  hif_crc32c #(
    .Bytes(8)
  ) u_crc (
    .crc_i (crc_q),
    .data_i(crc_word),
    .crc_o (body_crc)
  );

  // Bytes of payload in the last payload word (1..8).
  logic [3:0] last_bytes;
  assign last_bytes = (length_q[2:0] == 3'd0) ? 4'd8 : {1'b0, length_q[2:0]};

  always_comb begin
    state_d       = state_q;
    mode_d        = mode_q;
    win_d         = win_q;
    cnt_d         = cnt_q;
    hp_d          = hp_q;
    chk_d         = 1'b0;
    crc_d         = crc_q;
    left_d        = left_q;
    pad_bad_d     = pad_bad_q;
    evt_d         = evt_q;
    shift_after_d = shift_after_q;
    hdr_load      = 1'b0;
    link_ready_o  = 1'b0;
    pl_valid_o    = 1'b0;
    pl_last_o     = 1'b0;
    hdr_start_o   = 1'b0;
    evt_valid_o   = 1'b0;
    resync_o      = 1'b0;

    unique case (state_q)
      StHdr: begin
        if (rehash) begin
          crc_d = body_crc;
          hp_d  = hp_q + 2'd1;
        end else if (cnt_q != 2'd3) begin
          link_ready_o = 1'b1;
          if (link_valid_i) begin
            win_d[64*cnt_q +: 64] = link_data_i;
            cnt_d        = cnt_q + 2'd1;
            crc_d        = body_crc;
            hp_d         = hp_q + 2'd1;
          end
        end else if (!chk_q) begin
          // The window is full and unchanged: hdr_ok_q checks it next cycle.
          chk_d = 1'b1;
        end else if (!hdr_ok_q) begin
          // Not a header: drop one word, hash the two left again.
          win_d[127:0] = win_q[191:64];
          cnt_d    = 2'd2;
          hp_d     = 2'd0;
          crc_d    = 32'hFFFF_FFFF;
          resync_o = 1'b1;
        end else begin
          hdr_load  = 1'b1;
          cnt_d     = 2'd0;
          hp_d      = 2'd0;
          crc_d     = 32'hFFFF_FFFF;
          left_d    = h_words;
          pad_bad_d = 1'b0;
          state_d   = h_words == '0 ? StTrailer : StBody;
          if (h_length > MaxPayload) begin
            // The length cannot be trusted to skip the payload: answer,
            // then resynchronize one word on.
            evt_d         = EvtLength;
            left_d        = '0;
            shift_after_d = 1'b1;
            cnt_d         = 2'd3;
            state_d       = StEvent;
          end else if (h_major != 8'(hif_pkg::ProtoMajor)) begin
            mode_d = ModeVersion;
          end else if (!(h_req || h_resp || h_evt) || h_rsvd != '0 ||
                       (!h_resp && h_status != '0) || (h_evt && h_tag != '0)) begin
            mode_d = ModeMalformed;
          end else if (!opcode_known(h_opcode) || (h_evt != opcode_event(h_opcode))) begin
            mode_d = ModeOpcode;
          end else if (!h_req) begin
            mode_d = ModeNotReq;
          end else begin
            mode_d      = ModeRequest;
            hdr_start_o = 1'b1;
          end
        end
      end

      StBody: begin
        // Payload words: downstream takes them for requests only.
        pl_valid_o   = (mode_q == ModeRequest) && link_valid_i;
        pl_last_o    = left_q == (NwW + 1)'(1);
        link_ready_o = (mode_q != ModeRequest) || pl_ready_i;
        if (link_valid_i && link_ready_o) begin
          crc_d  = body_crc;
          left_d = left_q - (NwW + 1)'(1);
          if (left_q == (NwW + 1)'(1)) begin
            for (int unsigned i = 0; i < 8; i++)
              if (i >= last_bytes && link_data_i[8*i +: 8] != 8'h00) pad_bad_d = 1'b1;
            state_d = StTrailer;
          end
        end
      end

      StTrailer: begin
        link_ready_o = 1'b1;
        if (link_valid_i) begin
          state_d = StEvent;
          unique case (mode_q)
            ModeMalformed: evt_d = EvtMalformed;
            ModeOpcode:    evt_d = EvtOpcode;
            default: begin
              if (link_data_i[31:0] != ~crc_q)       evt_d = EvtPayloadCrc;
              else if (mode_q == ModeVersion)        evt_d = EvtVersion;
              else if (link_data_i[63:32] != '0 || pad_bad_q) evt_d = EvtMalformed;
              else if (mode_q == ModeNotReq)         evt_d = EvtDrop;
              else                                   evt_d = EvtOk;
            end
          endcase
        end
      end

      StEvent: begin
        evt_valid_o = 1'b1;
        if (evt_ready_i) begin
          // the next header's CRC from the seed
          state_d = StHdr;
          crc_d   = 32'hFFFF_FFFF;
          hp_d    = 2'd0;
          if (shift_after_q) begin
            shift_after_d = 1'b0;
            win_d[127:0] = win_q[191:64];
            cnt_d    = 2'd2;
            resync_o = 1'b1;
          end
        end
      end

      default: state_d = StHdr;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q       <= StHdr;
      mode_q        <= ModeRequest;
      cnt_q         <= '0;
      hp_q          <= '0;
      chk_q         <= 1'b0;
      crc_q         <= '1;
      left_q        <= '0;
      pad_bad_q     <= 1'b0;
      evt_q         <= EvtOk;
      shift_after_q <= 1'b0;
      major_q       <= '0;
      minor_q       <= '0;
      opcode_q      <= '0;
      flags_q       <= '0;
      tag_q         <= '0;
      length_q      <= '0;
    end else begin
      state_q       <= state_d;
      mode_q        <= mode_d;
      cnt_q         <= cnt_d;
      hp_q          <= hp_d;
      chk_q         <= chk_d;
      crc_q         <= crc_d;
      left_q        <= left_d;
      pad_bad_q     <= pad_bad_d;
      evt_q         <= evt_d;
      shift_after_q <= shift_after_d;
      if (hdr_load) begin
        major_q  <= h_major;
        minor_q  <= h_minor;
        opcode_q <= h_opcode;
        flags_q  <= h_flags;
        tag_q    <= h_tag;
        length_q <= h_length;
      end
    end
  end

  // The window holds data only, and hdr_ok_q is only read while chk_q (reset)
  // says it was taken from the window: neither needs a reset.
  always_ff @(posedge clk_i) begin
    win_q    <= win_d;
    hdr_ok_q <= hdr_ok_d;
  end

  assign pl_data_o    = link_data_i;
  assign evt_code_o   = evt_q;
  assign hdr_major_o  = major_q;
  assign hdr_minor_o  = minor_q;
  assign hdr_opcode_o = opcode_q;
  assign hdr_flags_o  = flags_q;
  assign hdr_tag_o    = tag_q;
  assign hdr_length_o = length_q;

  // ---- assertions --------------------------------------------------------
  `ASSERT_KNOWN(LinkReadyKnown, link_ready_o)
  `ASSERT_KNOWN(EvtValidKnown, evt_valid_o)
  `ASSERT_KNOWN(PlValidKnown, pl_valid_o)
  // Payload words only for requests within the length limit.
  `ASSERT(PlOnlyForRequests, !pl_valid_o || (state_q == StBody && mode_q == ModeRequest))
  `ASSERT(LengthWithinLimit, state_q != StBody || length_q <= MaxPayload)
  // The registered check is only used for a full window it was taken from.
  `ASSERT(CheckedFullWindow, !chk_q || (state_q == StHdr && cnt_q == 2'd3))
  // The CRC state covers a prefix of the window, never more.
  `ASSERT(HashedWithinWindow, state_q != StHdr || hp_q <= cnt_q)
  // Only the two words a resynchronization keeps are hashed again.
  `ASSERT(RehashTwoWords, !rehash || hp_q < 2'd2)
  `ASSERT(WordsLeftInRange, left_q <= (NwW + 1)'((MaxPayload + 7) / 8))
  // An event waits until it is taken.
  `ASSERT_NEXT(EvtHeld, evt_valid_o && !evt_ready_i, evt_valid_o && $stable(evt_code_o))
  `COVER(SawResync, resync_o)
  `COVER(SawOk, evt_valid_o && evt_code_o == EvtOk)
  `COVER(SawPayloadCrc, evt_valid_o && evt_code_o == EvtPayloadCrc)
endmodule
