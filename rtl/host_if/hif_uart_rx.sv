// UART receiver, 8N1, LSB first: the link's serial line into bytes. The bit
// period is a fixed-point divisor (clocks per bit x 2^FracW), so a baud rate
// that does not divide the clock (25 MHz / 3 Mbaud = 8.33) keeps its average
// rate exactly; the receiver restarts its bit timing on every start bit, so
// the error never builds up past one frame. The line passes a two-flop
// synchronizer and a three-sample majority (median) filter, which removes
// one-clock glitches; every bit is taken from the filtered line at its
// middle. A low stop bit is a framing error, counted; the byte is still
// delivered, so the byte count of the stream is kept and the error shows up
// as a bad CRC downstream; the next start bit is then looked for one bit
// period on, where it is if the next byte follows back to back. An all-zero byte with a low stop bit is a break:
// counted, not delivered, and the receiver waits for the line to go high.
// gap_o pulses once the line has been idle for gap_bits_i bit periods.
`include "prim_assert.svh"

module hif_uart_rx #(
  parameter int unsigned DivW  = 16,  // divisor width
  parameter int unsigned FracW = 8,   // fraction bits of the divisor
  parameter int unsigned GapW  = 16,  // idle-gap threshold width (bit periods)
  parameter int unsigned CntW  = 16   // error counter width (saturating)
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic [DivW-1:0] div_i,       // clocks per bit x 2^FracW, >= 4 clocks
  input  logic [GapW-1:0] gap_bits_i,  // idle bit periods that make a gap
  input  logic            rx_i,        // the line, asynchronous to clk_i
  output logic            valid_o,     // pulse: data_o holds a received byte
  output logic [7:0]      data_o,
  output logic            frame_err_o, // pulse: a stop bit was low
  output logic            break_o,     // pulse: a break began
  output logic            gap_o,       // pulse: the line has been idle a gap long
  output logic [CntW-1:0] frame_err_cnt_o,
  output logic [CntW-1:0] break_cnt_o
);
  localparam logic [DivW:0] One = (DivW + 1)'(1) << FracW;

  typedef enum logic [2:0] {StIdle, StStart, StData, StStop, StBreak} state_e;

  // ---- line: synchronizer, then a three-sample majority -------------------
  logic rx_sync, hist1_q, hist2_q, line;

  prim_flop_2sync #(
    .Width     (1),
    .ResetValue(1'b1)
  ) u_sync (
    .clk_i (clk_i),
    .rst_ni(rst_ni),
    .d_i   (rx_i),
    .q_o   (rx_sync)
  );

  assign line = (rx_sync & hist1_q) | (rx_sync & hist2_q) | (hist1_q & hist2_q);

  // ---- bit timing ----------------------------------------------------------
  state_e          state_q, state_d;
  logic [DivW:0]   acc_q, acc_d;      // clocks since the last tick, x 2^FracW
  logic [DivW:0]   acc_inc;
  logic            tick;
  logic [2:0]      bit_q, bit_d;
  logic [7:0]      shift_q, shift_d;
  logic [GapW-1:0] idle_q, idle_d;    // bit periods the line has been idle
  logic [CntW-1:0] ferr_q, ferr_d, brk_q, brk_d;
  logic [DivW:0]   half_start;        // first tick at the middle of the start bit

  assign acc_inc = acc_q + One;
  assign tick    = acc_inc >= {1'b0, div_i};
  // The start is seen up to a clock after the edge, half a clock late on
  // average: the first tick comes half a clock early to centre the samples.
  assign half_start = {1'b0, div_i} - {2'b0, div_i[DivW-1:1]} + (One >> 1);

  always_comb begin
    state_d     = state_q;
    acc_d       = tick ? acc_inc - {1'b0, div_i} : acc_inc;
    bit_d       = bit_q;
    shift_d     = shift_q;
    idle_d      = idle_q;
    ferr_d      = ferr_q;
    brk_d       = brk_q;
    valid_o     = 1'b0;
    frame_err_o = 1'b0;
    break_o     = 1'b0;
    gap_o       = 1'b0;

    unique case (state_q)
      StIdle: begin
        if (!line) begin
          // A start bit, perhaps: confirmed at its middle.
          state_d = StStart;
          acc_d   = half_start;
        end else if (tick && idle_q != gap_bits_i) begin
          idle_d = idle_q + GapW'(1);
          gap_o  = idle_d == gap_bits_i;
        end
      end
      StStart: begin
        if (tick) begin
          // High at its middle: a glitch, not a start bit.
          state_d = line ? StIdle : StData;
          bit_d   = '0;
          idle_d  = '0;
        end
      end
      StData: begin
        if (tick) begin
          shift_d = {line, shift_q[7:1]};
          bit_d   = bit_q + 3'd1;
          if (bit_q == 3'd7) state_d = StStop;
        end
      end
      StStop: begin
        if (tick) begin
          if (line) begin
            valid_o = 1'b1;
            state_d = StIdle;
          end else if (shift_q != '0) begin
            // Framing error: keep the byte. The line is low where the
            // stop bit should be; a start bit right after it is checked
            // at its middle, one tick on (high there: back to idle).
            valid_o     = 1'b1;
            frame_err_o = 1'b1;
            state_d     = StStart;
          end else begin
            frame_err_o = 1'b1;
            break_o     = 1'b1;
            state_d     = StBreak;
          end
          if (!line && ferr_q != '1) ferr_d = ferr_q + CntW'(1);
          if (!line && shift_q == '0 && brk_q != '1) brk_d = brk_q + CntW'(1);
        end
      end
      StBreak: begin
        if (line) state_d = StIdle;
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hist1_q <= 1'b1;
      hist2_q <= 1'b1;
      state_q <= StIdle;
      acc_q   <= '0;
      bit_q   <= '0;
      shift_q <= '0;
      idle_q  <= '0;
      ferr_q  <= '0;
      brk_q   <= '0;
    end else begin
      hist1_q <= rx_sync;
      hist2_q <= hist1_q;
      state_q <= state_d;
      acc_q   <= acc_d;
      bit_q   <= bit_d;
      shift_q <= shift_d;
      idle_q  <= idle_d;
      ferr_q  <= ferr_d;
      brk_q   <= brk_d;
    end
  end

  assign data_o          = shift_q;
  assign frame_err_cnt_o = ferr_q;
  assign break_cnt_o     = brk_q;

  // ---- assertions --------------------------------------------------------
  `ASSERT(DivAtLeastFour, div_i >= DivW'(4 << FracW))
  `ASSERT(AccBelowDivisor, acc_q < {1'b0, div_i})
  `ASSERT_KNOWN(ValidKnown, valid_o)
  `ASSERT(BreakIsFrameErr, !break_o || (frame_err_o && !valid_o))
  `ASSERT(GapOnlyIdle, !gap_o || state_q == StIdle)
  `COVER(SawFrameErr, frame_err_o && valid_o)
  `COVER(SawBreak, break_o)
  `COVER(SawFalseStart, state_q == StStart && tick && line)
endmodule
