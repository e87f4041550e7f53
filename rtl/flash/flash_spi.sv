// SPI shift engine of the flash controller: single-bit SPI in mode 0 (SCK
// idle low; both sides sample on the rising edge and change their output
// after the falling one), one byte out and one byte in per handshake. CS#
// falls with the first byte and stays low between bytes, SCK parked low,
// for as long as the sender wants (a flash does not mind a stopped clock);
// it rises after a byte flagged last, and stays high at least CsHigh + 1
// cycles (CsHigh, then one in SIdle) before the next command, the parts'
// CS# deselect time.
`include "prim_assert.svh"

module flash_spi #(
  parameter int unsigned Div    = flash_pkg::SckDiv,  // clocks per SCK half period, >= 1
  parameter int unsigned CsHigh = flash_pkg::CsHigh   // CS# high >= CsHigh + 1 clocks between commands; >= 1
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  // A byte to send; with last_i, CS# rises after it.
  input  logic       valid_i,
  output logic       ready_o,
  input  logic [7:0] data_i,
  input  logic       last_i,
  // The byte received while the accepted byte went out: one cycle, no
  // back-pressure (it comes 16 x Div cycles after the handshake).
  output logic       rx_valid_o,
  output logic [7:0] rx_data_o,
  // The pins, all registered except MOSI, which comes from a register.
  output logic       sck_o,
  output logic       cs_no,
  output logic       mosi_o,
  input  logic       miso_i
);
  localparam int unsigned CntMax = Div > CsHigh ? Div : CsHigh;
  localparam int unsigned CntW   = $clog2(CntMax + 1);
  localparam logic [CntW-1:0] HalfLoad = CntW'(Div - 1);
  localparam logic [CntW-1:0] GapLoad  = CntW'(CsHigh - 1);

  // SLow/SHigh: SCK low/high for one half period; SEnd: SCK low, CS# still
  // low for a half period after the last falling edge (CS# hold);
  // SGap: CS# high before the next command.
  typedef enum logic [2:0] {SIdle, SLow, SHigh, SHold, SEnd, SGap} state_e;

  state_e          state_q, state_d;
  logic [CntW-1:0] cnt_q, cnt_d;
  logic [2:0]      bit_q, bit_d;
  logic [7:0]      sh_q, sh_d;     // bits to send, MSB on MOSI
  logic [7:0]      rx_q, rx_d;
  logic            rx_valid_q, rx_valid_d;
  logic            last_q, last_d;
  logic            sck_q, sck_d;
  logic            cs_n_q, cs_n_d;
  logic            tick, accept;

  assign tick    = cnt_q == '0;
  assign ready_o = state_q == SIdle || state_q == SHold;
  assign accept  = valid_i && ready_o;

  always_comb begin
    state_d    = state_q;
    cnt_d      = tick ? cnt_q : cnt_q - 1'b1;
    bit_d      = bit_q;
    sh_d       = sh_q;
    rx_d       = rx_q;
    rx_valid_d = 1'b0;
    last_d     = last_q;
    sck_d      = sck_q;
    cs_n_d     = cs_n_q;
    unique case (state_q)
      SIdle, SHold: begin
        if (accept) begin
          // The first bit is on MOSI half a period before the rising edge.
          state_d = SLow;
          cnt_d   = HalfLoad;
          cs_n_d  = 1'b0;
          sh_d    = data_i;
          last_d  = last_i;
          bit_d   = '0;
        end
      end
      SLow: begin
        if (tick) begin
          // MISO changed after the last falling edge, half a period ago.
          state_d = SHigh;
          cnt_d   = HalfLoad;
          sck_d   = 1'b1;
          rx_d    = {rx_q[6:0], miso_i};
        end
      end
      SHigh: begin
        if (tick) begin
          cnt_d = HalfLoad;
          sck_d = 1'b0;
          if (bit_q == 3'd7) begin
            rx_valid_d = 1'b1;
            state_d    = last_q ? SEnd : SHold;
          end else begin
            state_d = SLow;
            bit_d   = bit_q + 3'd1;
            sh_d    = {sh_q[6:0], 1'b0};
          end
        end
      end
      SEnd: begin
        if (tick) begin
          state_d = SGap;
          cnt_d   = GapLoad;
          cs_n_d  = 1'b1;
        end
      end
      SGap: begin
        if (tick) state_d = SIdle;
      end
      default: state_d = SIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= SIdle;
      cnt_q      <= '0;
      bit_q      <= '0;
      sh_q       <= '0;
      rx_q       <= '0;
      rx_valid_q <= 1'b0;
      last_q     <= 1'b0;
      sck_q      <= 1'b0;
      cs_n_q     <= 1'b1;
    end else begin
      state_q    <= state_d;
      cnt_q      <= cnt_d;
      bit_q      <= bit_d;
      sh_q       <= sh_d;
      rx_q       <= rx_d;
      rx_valid_q <= rx_valid_d;
      last_q     <= last_d;
      sck_q      <= sck_d;
      cs_n_q     <= cs_n_d;
    end
  end

  assign sck_o      = sck_q;
  assign cs_no      = cs_n_q;
  assign mosi_o     = sh_q[7];
  assign rx_valid_o = rx_valid_q;
  assign rx_data_o  = rx_q;

  // ---- assertions --------------------------------------------------------
  // Mode 0: SCK is low whenever CS# is high, so CS# never moves with SCK high.
  `ASSERT(SckLowDeselected, !cs_n_q || !sck_q)
  `ASSERT(SckLowWhileWaiting, !(ready_o && sck_q))
  `ASSERT_NEXT(InputHeld, valid_i && !ready_o, valid_i && $stable(data_i) && $stable(last_i))
  `ASSERT(LastEndsCommand, !(rx_valid_o && last_q) || state_q == SEnd || state_q == SGap)
  `ASSERT_KNOWN(SckKnown, sck_o)
  `ASSERT_KNOWN(CsKnown, cs_no)
  `ASSERT_KNOWN(ReadyKnown, ready_o)
  `ASSERT_KNOWN(RxValidKnown, rx_valid_o)
  `COVER(HeldBetweenBytes, state_q == SHold && !valid_i)
endmodule
