// SPI NOR flash controller: requests (read, sector erase, page program,
// JEDEC ID) turned into the parts' command sequences over flash_spi. Erase
// and program are preceded by WREN and a status read that must show WEL
// (a part that ignored WREN would ignore the command too), and followed by
// status reads until WIP clears, each wait bounded by a time-out in clock
// cycles. Requests outside the flash or not aligned are refused before any
// SPI traffic. One byte is in flight at a time: the next goes out once the
// previous one's answer is back, which keeps the sequencing plain at a cost
// of a few clocks per byte. docs/flash.md.
`include "prim_assert.svh"

module flash_ctrl #(
  parameter int unsigned Div            = flash_pkg::SckDiv,         // clocks per SCK half period
  parameter int unsigned CsHigh         = flash_pkg::CsHigh,         // clocks of CS# high between commands
  parameter int unsigned FlashBytes     = flash_pkg::FlashBytes,     // <= 2^24
  parameter int unsigned LenW           = flash_pkg::LenW,           // request length, bytes
  parameter int unsigned EraseTimeout   = flash_pkg::EraseTimeout,   // cycles
  parameter int unsigned ProgramTimeout = flash_pkg::ProgramTimeout  // cycles
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  // Request: op is a flash_pkg::op_e.
  input  logic            req_valid_i,
  output logic            req_ready_o,
  input  logic [1:0]      req_op_i,
  input  logic [31:0]     req_addr_i,
  input  logic [LenW-1:0] req_len_i,
  // Program data, len bytes per OpProgramPage.
  input  logic            wr_valid_i,
  output logic            wr_ready_o,
  input  logic [7:0]      wr_data_i,
  // Read data: len bytes per OpRead, three per OpReadId.
  output logic            rd_valid_o,
  input  logic            rd_ready_i,
  output logic [7:0]      rd_data_o,
  // One cycle at the end of each request, after its last read byte was
  // taken; status is a flash_pkg::status_e.
  output logic            done_o,
  output logic [2:0]      status_o,
  output logic            busy_o,
  // The flash.
  output logic            sck_o,
  output logic            cs_no,
  output logic            mosi_o,
  input  logic            miso_i
);
  localparam int unsigned TmoMax = EraseTimeout > ProgramTimeout ? EraseTimeout : ProgramTimeout;
  localparam int unsigned TmoW   = $clog2(TmoMax + 1);

  // SWren: WREN; SWelCmd/SWelRd: RDSR, WEL must be set; SCmd: the command
  // byte and the address; SData: read or program bytes; SPollCmd/SPollRd:
  // RDSR until WIP clears.
  typedef enum logic [3:0] {
    SIdle, SWren, SWelCmd, SWelRd, SCmd, SData, SPollCmd, SPollRd, SDone
  } state_e;

  state_e          state_q, state_d;
  logic [1:0]      op_q, op_d;
  logic [23:0]     addr_q, addr_d;
  logic [LenW-1:0] cnt_q, cnt_d;      // data bytes still to go
  logic [1:0]      idx_q, idx_d;      // byte of SCmd: command, address 23:16, 15:8, 7:0
  logic            inflight_q, inflight_d;
  logic [7:0]      rd_q, rd_d;
  logic            rd_valid_q, rd_valid_d;
  logic [2:0]      status_q, status_d;
  logic [TmoW-1:0] tmr_q, tmr_d;

  logic            spi_valid, spi_ready, spi_last, spi_rx_valid;
  logic [7:0]      spi_data, spi_rx_data;
  logic            want;              // this state has a byte to send now
  logic            byte_done;         // the byte in flight came back
  logic            is_read, is_erase, is_prog, is_id;
  logic [32:0]     req_end;
  logic [LenW:0]   page_end;
  logic            range_err, align_err;
  logic            tmo_expired;
  logic [7:0]      cmd, addr_byte;

  assign is_read  = op_q == flash_pkg::OpRead;
  assign is_erase = op_q == flash_pkg::OpEraseSector;
  assign is_prog  = op_q == flash_pkg::OpProgramPage;
  assign is_id    = op_q == flash_pkg::OpReadId;

  // The checks of a new request, on its inputs.
  assign req_end  = {1'b0, req_addr_i} + 33'(req_len_i);
  assign page_end = (LenW + 1)'(req_addr_i[7:0]) + {1'b0, req_len_i};
  always_comb begin
    range_err = 1'b0;
    align_err = 1'b0;
    unique case (req_op_i)
      flash_pkg::OpRead:        range_err = req_end > 33'(FlashBytes);
      flash_pkg::OpEraseSector: begin
        range_err = req_addr_i >= FlashBytes;
        align_err = (req_addr_i & (flash_pkg::SectorBytes - 1)) != '0;
      end
      flash_pkg::OpProgramPage: begin
        range_err = req_end > 33'(FlashBytes);
        align_err = page_end > (LenW + 1)'(flash_pkg::PageBytes);
      end
      default: ;
    endcase
  end

  assign tmo_expired = tmr_q >= (is_erase ? TmoW'(EraseTimeout) : TmoW'(ProgramTimeout));
  assign cmd = is_read  ? flash_pkg::CmdRead :
               is_erase ? flash_pkg::CmdSe   :
               is_prog  ? flash_pkg::CmdPp   : flash_pkg::CmdRdid;
  always_comb begin
    unique case (idx_q)
      2'd1:    addr_byte = addr_q[23:16];
      2'd2:    addr_byte = addr_q[15:8];
      default: addr_byte = addr_q[7:0];
    endcase
  end

  // The byte each state sends.
  always_comb begin
    want     = 1'b0;
    spi_data = 8'h00;
    spi_last = 1'b0;
    unique case (state_q)
      SWren: begin
        want     = 1'b1;
        spi_data = flash_pkg::CmdWren;
        spi_last = 1'b1;
      end
      SWelCmd, SPollCmd: begin
        want     = 1'b1;
        spi_data = flash_pkg::CmdRdsr;
      end
      SWelRd, SPollRd: begin
        want     = 1'b1;
        spi_last = 1'b1;
      end
      SCmd: begin
        want     = 1'b1;
        spi_data = idx_q == 2'd0 ? cmd : addr_byte;
        spi_last = is_erase && idx_q == 2'd3;
      end
      SData: begin
        // A read byte goes out once the last one was taken; a program byte
        // once the writer has it.
        want     = is_prog ? wr_valid_i : !rd_valid_q;
        spi_data = is_prog ? wr_data_i : 8'h00;
        spi_last = cnt_q == LenW'(1);
      end
      default: ;
    endcase
  end

  assign spi_valid  = want && !inflight_q;
  assign byte_done  = inflight_q && spi_rx_valid;
  assign wr_ready_o = state_q == SData && is_prog && !inflight_q && spi_ready;

  always_comb begin
    state_d    = state_q;
    op_d       = op_q;
    addr_d     = addr_q;
    cnt_d      = cnt_q;
    idx_d      = idx_q;
    inflight_d = inflight_q;
    rd_d       = rd_q;
    rd_valid_d = rd_valid_q && !rd_ready_i;
    status_d   = status_q;
    // Counts only while polling; saturates at the time-out.
    tmr_d      = (state_q == SPollCmd || state_q == SPollRd) && !tmo_expired ? tmr_q + 1'b1 : tmr_q;
    if (spi_valid && spi_ready) inflight_d = 1'b1;
    if (byte_done) inflight_d = 1'b0;
    unique case (state_q)
      SIdle: begin
        if (req_valid_i) begin
          op_d     = req_op_i;
          addr_d   = req_addr_i[23:0];
          cnt_d    = req_op_i == flash_pkg::OpReadId ? LenW'(flash_pkg::IdBytes) : req_len_i;
          idx_d    = '0;
          status_d = flash_pkg::StOk;
          if (range_err) begin
            status_d = flash_pkg::StRange;
            state_d  = SDone;
          end else if (align_err) begin
            status_d = flash_pkg::StAlign;
            state_d  = SDone;
          end else if (req_len_i == '0 && (req_op_i == flash_pkg::OpRead ||
                                          req_op_i == flash_pkg::OpProgramPage)) begin
            state_d  = SDone;
          end else if (req_op_i == flash_pkg::OpEraseSector ||
                       req_op_i == flash_pkg::OpProgramPage) begin
            state_d  = SWren;
          end else begin
            state_d  = SCmd;
          end
        end
      end
      SWren:   if (byte_done) state_d = SWelCmd;
      SWelCmd: if (byte_done) state_d = SWelRd;
      SWelRd: begin
        if (byte_done) begin
          if (spi_rx_data[flash_pkg::SrWel]) begin
            state_d = SCmd;
          end else begin
            status_d = flash_pkg::StFlash;
            state_d  = SDone;
          end
        end
      end
      SCmd: begin
        if (byte_done) begin
          idx_d = idx_q + 2'd1;
          if (is_id || (idx_q == 2'd3 && !is_erase)) begin
            state_d = SData;
          end else if (idx_q == 2'd3) begin
            state_d = SPollCmd;
            tmr_d   = '0;
          end
        end
      end
      SData: begin
        if (byte_done) begin
          cnt_d = cnt_q - 1'b1;
          if (!is_prog) begin
            rd_d       = spi_rx_data;
            rd_valid_d = 1'b1;
          end
          if (cnt_q == LenW'(1)) begin
            state_d = is_prog ? SPollCmd : SDone;
            tmr_d   = '0;
          end
        end
      end
      SPollCmd: if (byte_done) state_d = SPollRd;
      SPollRd: begin
        if (byte_done) begin
          if (!spi_rx_data[flash_pkg::SrWip]) begin
            state_d = SDone;
          end else if (tmo_expired) begin
            status_d = flash_pkg::StTimeout;
            state_d  = SDone;
          end else begin
            state_d = SPollCmd;
          end
        end
      end
      // The last read byte is taken before the request ends.
      SDone:   if (!rd_valid_q) state_d = SIdle;
      default: state_d = SIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= SIdle;
      op_q       <= '0;
      addr_q     <= '0;
      cnt_q      <= '0;
      idx_q      <= '0;
      inflight_q <= 1'b0;
      rd_q       <= '0;
      rd_valid_q <= 1'b0;
      status_q   <= '0;
      tmr_q      <= '0;
    end else begin
      state_q    <= state_d;
      op_q       <= op_d;
      addr_q     <= addr_d;
      cnt_q      <= cnt_d;
      idx_q      <= idx_d;
      inflight_q <= inflight_d;
      rd_q       <= rd_d;
      rd_valid_q <= rd_valid_d;
      status_q   <= status_d;
      tmr_q      <= tmr_d;
    end
  end

  flash_spi #(
    .Div   (Div),
    .CsHigh(CsHigh)
  ) u_spi (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .valid_i   (spi_valid),
    .ready_o   (spi_ready),
    .data_i    (spi_data),
    .last_i    (spi_last),
    .rx_valid_o(spi_rx_valid),
    .rx_data_o (spi_rx_data),
    .sck_o     (sck_o),
    .cs_no     (cs_no),
    .mosi_o    (mosi_o),
    .miso_i    (miso_i)
  );

  assign req_ready_o = state_q == SIdle;
  assign rd_valid_o  = rd_valid_q;
  assign rd_data_o   = rd_q;
  assign done_o      = state_q == SDone && !rd_valid_q;
  assign status_o    = status_q;
  assign busy_o      = state_q != SIdle;

  // ---- assertions --------------------------------------------------------
  `ASSERT(AnswerOnlyInFlight, !spi_rx_valid || inflight_q)
  `ASSERT(OneByteInFlight, !(inflight_q && spi_valid))
  `ASSERT_NEXT(ReadHeld, rd_valid_o && !rd_ready_i, rd_valid_o && $stable(rd_data_o))
  `ASSERT(NoReadDataOverrun, !(byte_done && state_q == SData && !is_prog && rd_valid_q && !rd_ready_i))
  `ASSERT_KNOWN(ReqReadyKnown, req_ready_o)
  `ASSERT_KNOWN(DoneKnown, done_o)
  `ASSERT_KNOWN(RdValidKnown, rd_valid_o)
  `ASSERT_KNOWN(WrReadyKnown, wr_ready_o)
  `COVER(TimedOut, done_o && status_o == flash_pkg::StTimeout)
  `COVER(PolledAgain, state_q == SPollRd && byte_done && spi_rx_data[flash_pkg::SrWip])
endmodule
