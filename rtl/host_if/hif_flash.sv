// Host executor's side of the flash requests (docs/protocol.md 4.11,
// docs/host-if.md "Flash"): FLASH_READ, FLASH_ERASE, FLASH_PROGRAM and
// FLASH_VERIFY of the request in the executor's slot, carried out as
// sequences of flash_ctrl's requests. Erase takes 64 KiB sectors, the
// sector of the firmware image's layout (docs/firmware-image.md), each as
// 16 of the part's 4 KiB sector erases. The part's size comes from its JEDEC
// ID (capacity byte), read at the first flash request and kept; a part
// that does not answer a sane ID makes the requests NOT_SUPPORTED. Reads
// the request's payload words from the slot, and writes FLASH_READ's data
// and FLASH_VERIFY's CRC back into it for the response. Every step (one
// request of flash_ctrl, buffer reads included) is bounded by StepTimeout
// clocks.
`include "prim_assert.svh"

module hif_flash #(
  parameter int unsigned MaxPayload     = 4096,  // bytes, a multiple of 8
  // SCK = clk / 2: 12.5 MHz at the ULX3S's 25 MHz, within the parts'
  // 50 MHz of READ (0x03); a byte takes about 19 clocks.
  parameter int unsigned Div            = 1,
  parameter int unsigned CsHigh         = flash_pkg::CsHigh,
  parameter int unsigned EraseTimeout   = flash_pkg::EraseTimeout,
  parameter int unsigned ProgramTimeout = flash_pkg::ProgramTimeout,
  // Clocks one flash_ctrl request may take, its waits for the slot buffer
  // included, before the request is answered TIMEOUT.
  parameter int unsigned StepTimeout    = 2 * flash_pkg::EraseTimeout,
  parameter int unsigned IW             = $clog2(MaxPayload / 8)  // slot word index
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  // A flash request: op_i = opcode - FLASH_READ (0 read, 1 erase, 2
  // program, 3 verify), len_i its payload length; taken when idle.
  input  logic          start_i,
  input  logic [1:0]    op_i,
  input  logic [31:0]   len_i,
  // Its answer: one clock; rsp_len_o payload bytes in the slot.
  output logic          done_o,
  output logic [15:0]   status_o,
  output logic [31:0]   rsp_len_o,
  output logic          busy_o,
  // Slot reads: buf_idx_o held with buf_req_o until buf_rvalid_i.
  output logic          buf_req_o,
  output logic [IW-1:0] buf_idx_o,
  input  logic          buf_rvalid_i,
  input  logic [63:0]   buf_rdata_i,
  // Slot writes: one word per clock of buf_we_o.
  output logic          buf_we_o,
  output logic [IW-1:0] buf_widx_o,
  output logic [63:0]   buf_wdata_o,
  // The flash.
  output logic          sck_o,
  output logic          cs_no,
  output logic          mosi_o,
  input  logic          miso_i
);
  localparam int unsigned LenW  = flash_pkg::LenW;
  localparam int unsigned WdW   = $clog2(StepTimeout + 1);
  localparam int unsigned Chunk = 4096;  // bytes per READ of flash_ctrl
  // Capacity bytes of a usable part: 64 KiB to 16 MiB (3-byte addresses).
  localparam logic [7:0]  CapMin = 8'd16, CapMax = 8'd24;

  localparam logic [1:0] PRead = 2'd0, PErase = 2'd1, PProgram = 2'd2, PVerify = 2'd3;

  typedef enum logic [3:0] {
    SIdle, SHdr, SHdr1, SCheck0, SIdReq, SIdRun, SCheck, SReq, SRun, SFinish
  } state_e;

  state_e        state_q, state_d;
  logic [1:0]    op_q, op_d;
  logic [31:0]   plen_q, plen_d;     // payload bytes of the request
  logic [31:0]   off_q, off_d;       // next flash byte
  logic [31:0]   len_q, len_d;       // bytes still to go
  logic [31:0]   total_q, total_d;   // the request's len
  logic [31:0]   crc_exp_q, crc_exp_d;
  logic          rsvd_q, rsvd_d;     // FLASH_VERIFY's reserved word is not 0
  logic [15:0]   st_q, st_d;
  logic [31:0]   rlen_q, rlen_d;
  logic [4:0]    cap_q, cap_d;       // log2 of the part's bytes
  logic          cap_ok_q, cap_ok_d;
  logic [1:0]    idn_q, idn_d;       // ID bytes received
  logic [7:0]    idcap_q, idcap_d;
  logic [63:0]   asm_q, asm_d;       // read bytes gathered into a word
  logic [IW-1:0] widx_q, widx_d;
  logic [31:0]   j_q, j_d;           // program data byte
  logic          wv_q, wv_d;         // wd_q holds the word of byte j_q
  logic [63:0]   wd_q, wd_d;
  logic [31:0]   crc_q, crc_d;
  logic [WdW-1:0] wd_cnt_q, wd_cnt_d;

  // flash_ctrl.
  logic            c_req_valid, c_req_ready, c_wr_valid, c_wr_ready, c_rd_valid, c_rd_ready;
  logic            c_done, c_busy;
  logic [1:0]      c_req_op;
  logic [31:0]     c_req_addr;
  logic [LenW-1:0] c_req_len;
  logic [7:0]      c_wr_data, c_rd_data;
  logic [2:0]      c_status;

  flash_ctrl #(
    .Div(Div), .CsHigh(CsHigh), .FlashBytes(flash_pkg::FlashBytes), .LenW(LenW),
    .EraseTimeout(EraseTimeout), .ProgramTimeout(ProgramTimeout)
  ) u_ctrl (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .req_valid_i(c_req_valid), .req_ready_o(c_req_ready), .req_op_i(c_req_op),
    .req_addr_i(c_req_addr), .req_len_i(c_req_len),
    .wr_valid_i(c_wr_valid), .wr_ready_o(c_wr_ready), .wr_data_i(c_wr_data),
    .rd_valid_o(c_rd_valid), .rd_ready_i(c_rd_ready), .rd_data_o(c_rd_data),
    .done_o(c_done), .status_o(c_status), .busy_o(c_busy),
    .sck_o(sck_o), .cs_no(cs_no), .mosi_o(mosi_o), .miso_i(miso_i)
  );

  // FLASH_VERIFY's reflected CRC-32C (Castagnoli) of one more byte; the
  // register starts at all ones and is inverted at the end, as
  // wse_crc32c_update does.
  logic [31:0] crc_next;
  hif_crc32c #(
    .Bytes(1)
  ) u_crc (
    .crc_i (crc_q),
    .data_i(c_rd_data),
    .crc_o (crc_next)
  );

  function automatic logic [15:0] map_st(logic [2:0] s);
    unique case (s)
      flash_pkg::StOk:      map_st = 16'(hif_pkg::StOk);
      flash_pkg::StTimeout: map_st = 16'(hif_pkg::StTimeout);
      flash_pkg::StFlash:   map_st = 16'(hif_pkg::StFlash);
      flash_pkg::StRange:   map_st = 16'(hif_pkg::StRange);
      flash_pkg::StAlign:   map_st = 16'(hif_pkg::StAlign);
      default:              map_st = 16'(hif_pkg::StInternal);
    endcase
  endfunction

  // The byte lane of the read byte now arriving: bytes taken so far, mod 8.
  logic [2:0] lane;
  assign lane = total_q[2:0] - len_q[2:0];

  // Bytes of the next flash_ctrl request.
  logic [31:0] page_left, chunk;
  logic [32:0] req_end, flash_end;
  logic        malformed, wd_expired;
  logic [31:0] crc_fin;
  assign page_left  = 32'(flash_pkg::PageBytes) - {24'h0, off_q[7:0]};
  always_comb begin
    unique case (op_q)
      PProgram: chunk = (len_q < page_left) ? len_q : page_left;
      PErase:   chunk = '0;
      default:  chunk = (len_q < Chunk) ? len_q : 32'(Chunk);
    endcase
  end
  assign req_end    = {1'b0, off_q} + {1'b0, len_q};
  assign flash_end  = 33'd1 << cap_q;
  assign wd_expired = wd_cnt_q == WdW'(StepTimeout);
  assign crc_fin    = ~crc_q;
  always_comb begin
    unique case (op_q)
      PProgram: malformed = {1'b0, plen_q} != 33'(hif_pkg::FlashBytes) + {1'b0, total_q};
      PVerify:  malformed = plen_q != 32'(hif_pkg::FlashVerifyBytes) || rsvd_q;
      default:  malformed = plen_q != 32'(hif_pkg::FlashBytes);
    endcase
  end

  always_comb begin
    state_d   = state_q;
    op_d      = op_q;
    plen_d    = plen_q;
    off_d     = off_q;
    len_d     = len_q;
    total_d   = total_q;
    crc_exp_d = crc_exp_q;
    rsvd_d    = rsvd_q;
    st_d      = st_q;
    rlen_d    = rlen_q;
    cap_d     = cap_q;
    cap_ok_d  = cap_ok_q;
    idn_d     = idn_q;
    idcap_d   = idcap_q;
    asm_d     = asm_q;
    widx_d    = widx_q;
    j_d       = j_q;
    wv_d      = wv_q;
    wd_d      = wd_q;
    crc_d     = crc_q;
    wd_cnt_d  = wd_cnt_q;

    done_o      = 1'b0;
    buf_req_o   = 1'b0;
    buf_idx_o   = '0;
    buf_we_o    = 1'b0;
    buf_widx_o  = widx_q;
    buf_wdata_o = asm_q;
    c_req_valid = 1'b0;
    c_req_op    = flash_pkg::OpRead;
    c_req_addr  = off_q;
    c_req_len   = LenW'(chunk);
    c_wr_valid  = 1'b0;
    c_wr_data   = wd_q[8*j_q[2:0] +: 8];
    c_rd_ready  = 1'b0;

    unique case (state_q)
      SIdle: begin
        if (start_i) begin
          op_d    = op_i;
          plen_d  = len_i;
          rsvd_d  = 1'b0;
          st_d    = 16'(hif_pkg::StOk);
          rlen_d  = '0;
          widx_d  = '0;
          asm_d   = '0;
          j_d     = '0;
          wv_d    = 1'b0;
          crc_d   = '1;
          state_d = SHdr;
        end
      end

      // Word 0: offset, len; FLASH_VERIFY's word 1: CRC, reserved.
      SHdr: begin
        buf_req_o = 1'b1;
        buf_idx_o = '0;
        if (buf_rvalid_i) begin
          off_d   = buf_rdata_i[31:0];
          len_d   = buf_rdata_i[63:32];
          total_d = buf_rdata_i[63:32];
          state_d = (op_q == PVerify && plen_q >= 32'(hif_pkg::FlashVerifyBytes)) ? SHdr1 :
                    SCheck0;
        end
      end

      SHdr1: begin
        buf_req_o = 1'b1;
        buf_idx_o = IW'(1);
        if (buf_rvalid_i) begin
          crc_exp_d = buf_rdata_i[31:0];
          rsvd_d    = buf_rdata_i[63:32] != '0;
          state_d   = SCheck0;
        end
      end

      SCheck0: begin
        wd_cnt_d = '0;
        if (malformed) begin
          st_d    = 16'(hif_pkg::StMalformed);
          state_d = SFinish;
        end else begin
          state_d = cap_ok_q ? SCheck : SIdReq;
        end
      end

      // The JEDEC ID: the third byte is the capacity, log2 of the bytes.
      SIdReq: begin
        c_req_valid = 1'b1;
        c_req_op    = flash_pkg::OpReadId;
        wd_cnt_d    = wd_cnt_q + 1'b1;
        if (c_req_ready) begin
          idn_d    = '0;
          wd_cnt_d = '0;
          state_d  = SIdRun;
        end else if (wd_expired) begin
          st_d    = 16'(hif_pkg::StTimeout);
          state_d = SFinish;
        end
      end

      SIdRun: begin
        c_rd_ready = 1'b1;
        wd_cnt_d   = wd_cnt_q + 1'b1;
        if (c_rd_valid) begin
          idn_d = idn_q + 1'b1;
          if (idn_q == 2'd2) idcap_d = c_rd_data;
        end
        if (c_done) begin
          cap_ok_d = c_status == flash_pkg::StOk && idcap_q >= CapMin && idcap_q <= CapMax;
          cap_d    = idcap_q[4:0];
          if (c_status == flash_pkg::StOk && idcap_q >= CapMin && idcap_q <= CapMax) begin
            state_d = SCheck;
          end else begin
            st_d    = 16'(hif_pkg::StNotSupported);
            state_d = SFinish;
          end
        end else if (wd_expired) begin
          st_d    = 16'(hif_pkg::StTimeout);
          state_d = SFinish;
        end
      end

      SCheck: begin
        wd_cnt_d = '0;
        if (req_end > flash_end) begin
          st_d    = 16'(hif_pkg::StRange);
          state_d = SFinish;
        end else if (op_q == PRead && len_q > 32'(MaxPayload)) begin
          st_d    = 16'(hif_pkg::StLength);
          state_d = SFinish;
        end else if (op_q == PErase &&
                     (off_q[15:0] != '0 || len_q[15:0] != '0)) begin
          st_d    = 16'(hif_pkg::StAlign);
          state_d = SFinish;
        end else if (len_q == '0) begin
          state_d = SFinish;
        end else begin
          state_d = SReq;
        end
        if (op_q == PRead && state_d != SFinish) rlen_d = total_q;
        if (op_q == PRead && len_q == '0) rlen_d = '0;
      end

      SReq: begin
        c_req_valid = 1'b1;
        unique case (op_q)
          PErase:   c_req_op = flash_pkg::OpEraseSector;
          PProgram: c_req_op = flash_pkg::OpProgramPage;
          default:  c_req_op = flash_pkg::OpRead;
        endcase
        wd_cnt_d = wd_cnt_q + 1'b1;
        if (c_req_ready) begin
          wd_cnt_d = '0;
          state_d  = SRun;
        end else if (wd_expired) begin
          st_d    = 16'(hif_pkg::StTimeout);
          state_d = SFinish;
        end
      end

      SRun: begin
        wd_cnt_d = wd_cnt_q + 1'b1;
        unique case (op_q)
          PRead: begin
            c_rd_ready = 1'b1;
            if (c_rd_valid) begin
              asm_d[8*lane +: 8] = c_rd_data;
              off_d = off_q + 32'd1;
              len_d = len_q - 32'd1;
              if (lane == 3'd7 || len_q == 32'd1) begin
                buf_we_o    = 1'b1;
                buf_wdata_o = asm_d;
                asm_d       = '0;
                widx_d      = widx_q + 1'b1;
              end
            end
          end
          PVerify: begin
            c_rd_ready = 1'b1;
            if (c_rd_valid) begin
              crc_d = crc_next;
              off_d = off_q + 32'd1;
              len_d = len_q - 32'd1;
            end
          end
          PProgram: begin
            // Payload byte 8 + j is in word 1 + j / 8.
            c_wr_valid = wv_q;
            if (!wv_q && len_q != '0) begin
              buf_req_o = 1'b1;
              buf_idx_o = IW'(32'd1 + (j_q >> 3));
              if (buf_rvalid_i) begin
                wd_d = buf_rdata_i;
                wv_d = 1'b1;
              end
            end
            if (wv_q && c_wr_ready) begin
              j_d   = j_q + 32'd1;
              off_d = off_q + 32'd1;
              len_d = len_q - 32'd1;
              if (j_q[2:0] == 3'd7) wv_d = 1'b0;
            end
          end
          default: ;  // PErase
        endcase
        if (c_done) begin
          wd_cnt_d = '0;
          if (op_q == PErase) begin
            off_d = off_q + 32'(flash_pkg::SectorBytes);
            len_d = len_q - 32'(flash_pkg::SectorBytes);
          end
          if (c_status != flash_pkg::StOk) begin
            st_d    = map_st(c_status);
            rlen_d  = '0;
            state_d = SFinish;
          end else if (len_d == '0) begin
            state_d = SFinish;
          end else begin
            state_d = SReq;
          end
        end else if (wd_expired) begin
          st_d    = 16'(hif_pkg::StTimeout);
          rlen_d  = '0;
          state_d = SFinish;
        end
      end

      // The answer; FLASH_VERIFY's CRC into word 0 of the slot.
      SFinish: begin
        done_o  = 1'b1;
        state_d = SIdle;
        if (op_q == PVerify && st_q == 16'(hif_pkg::StOk)) begin
          buf_we_o    = 1'b1;
          buf_widx_o  = '0;
          buf_wdata_o = {32'h0, crc_fin};
        end
      end

      default: state_d = SIdle;
    endcase
  end

  // A finished FLASH_VERIFY: OK with the CRC, or VERIFY with it.
  logic ver_end;
  assign ver_end   = op_q == PVerify && st_q == 16'(hif_pkg::StOk);
  assign status_o  = (ver_end && crc_fin != crc_exp_q) ? 16'(hif_pkg::StVerify) : st_q;
  assign rsp_len_o = ver_end ? 32'd4 : rlen_q;
  assign busy_o    = state_q != SIdle;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q   <= SIdle;
      op_q      <= '0;
      plen_q    <= '0;
      off_q     <= '0;
      len_q     <= '0;
      total_q   <= '0;
      crc_exp_q <= '0;
      rsvd_q    <= 1'b0;
      st_q      <= '0;
      rlen_q    <= '0;
      cap_q     <= '0;
      cap_ok_q  <= 1'b0;
      idn_q     <= '0;
      idcap_q   <= '0;
      asm_q     <= '0;
      widx_q    <= '0;
      j_q       <= '0;
      wv_q      <= 1'b0;
      wd_q      <= '0;
      crc_q     <= '1;
      wd_cnt_q  <= '0;
    end else begin
      state_q   <= state_d;
      op_q      <= op_d;
      plen_q    <= plen_d;
      off_q     <= off_d;
      len_q     <= len_d;
      total_q   <= total_d;
      crc_exp_q <= crc_exp_d;
      rsvd_q    <= rsvd_d;
      st_q      <= st_d;
      rlen_q    <= rlen_d;
      cap_q     <= cap_d;
      cap_ok_q  <= cap_ok_d;
      idn_q     <= idn_d;
      idcap_q   <= idcap_d;
      asm_q     <= asm_d;
      widx_q    <= widx_d;
      j_q       <= j_d;
      wv_q      <= wv_d;
      wd_q      <= wd_d;
      crc_q     <= crc_d;
      wd_cnt_q  <= wd_cnt_d;
    end
  end

  logic unused_busy;
  assign unused_busy = c_busy ^ (^chunk[31:LenW]);

  `ASSERT(StartOnlyIdle, start_i |-> state_q == SIdle)
  `ASSERT(WatchdogBound, 32'(wd_cnt_q) <= StepTimeout)
  `ASSERT(ReadFitsSlot, buf_we_o |-> 32'(buf_widx_o) < MaxPayload / 8)
  `ASSERT_KNOWN(DoneKnown, done_o)
  `ASSERT_KNOWN(BufReqKnown, buf_req_o)
endmodule
