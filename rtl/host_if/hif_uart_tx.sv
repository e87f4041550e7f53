// UART transmitter, 8N1, LSB first: bytes onto the link's serial line. The
// bit period is the same fixed-point divisor as the receiver's (clocks per
// bit x 2^FracW); bits last a whole number of clocks, the fraction carried
// from bit to bit, so the average rate is exact. Bytes offered back to back
// leave back to back, the next start bit right after a stop bit. A byte
// starts only while cts_ni is low (the far side may take it); a byte that
// has started always finishes.
`include "prim_assert.svh"

module hif_uart_tx #(
  parameter int unsigned DivW  = 16,
  parameter int unsigned FracW = 8
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic [DivW-1:0] div_i,    // clocks per bit x 2^FracW, >= 4 clocks
  input  logic            cts_ni,   // clear to send, active low, asynchronous
  input  logic            valid_i,
  output logic            ready_o,
  input  logic [7:0]      data_i,
  output logic            tx_o,     // the line, registered
  output logic            busy_o    // a byte is on the line
);
  localparam logic [DivW:0] One = (DivW + 1)'(1) << FracW;

  logic          cts_n;
  logic          busy_q, busy_d;
  logic [8:0]    shift_q, shift_d;  // the bits after the one on the line
  logic          tx_q, tx_d;
  logic [3:0]    bit_q, bit_d;      // bits sent of this frame's ten
  logic [DivW:0] acc_q, acc_d, acc_inc;
  logic          tick, last, load;

  prim_flop_2sync #(
    .Width     (1),
    .ResetValue(1'b1)
  ) u_sync_cts (
    .clk_i (clk_i),
    .rst_ni(rst_ni),
    .d_i   (cts_ni),
    .q_o   (cts_n)
  );

  assign acc_inc = acc_q + One;
  assign tick    = busy_q && acc_inc >= {1'b0, div_i};
  assign last    = tick && bit_q == 4'd9;   // the stop bit ends
  assign ready_o = !cts_n && (!busy_q || last);
  assign load    = valid_i && ready_o;

  always_comb begin
    busy_d  = busy_q;
    shift_d = shift_q;
    tx_d    = tx_q;
    bit_d   = bit_q;
    acc_d   = busy_q ? (tick ? acc_inc - {1'b0, div_i} : acc_inc) : '0;
    if (load) begin
      // Start bit now; data LSB first, then the stop bit.
      busy_d  = 1'b1;
      tx_d    = 1'b0;
      shift_d = {1'b1, data_i};
      bit_d   = '0;
    end else if (last) begin
      busy_d = 1'b0;
      tx_d   = 1'b1;
    end else if (tick) begin
      tx_d    = shift_q[0];
      shift_d = {1'b1, shift_q[8:1]};
      bit_d   = bit_q + 4'd1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q  <= 1'b0;
      shift_q <= '1;
      tx_q    <= 1'b1;
      bit_q   <= '0;
      acc_q   <= '0;
    end else begin
      busy_q  <= busy_d;
      shift_q <= shift_d;
      tx_q    <= tx_d;
      bit_q   <= bit_d;
      acc_q   <= acc_d;
    end
  end

  assign tx_o   = tx_q;
  assign busy_o = busy_q;

  // ---- assertions --------------------------------------------------------
  `ASSERT(DivAtLeastFour, div_i >= DivW'(4 << FracW))
  `ASSERT(AccBelowDivisor, acc_q < {1'b0, div_i})
  `ASSERT(IdleLineHigh, busy_q || tx_q)
  `ASSERT(BitInFrame, bit_q <= 4'd9)
  `ASSERT_KNOWN(ReadyKnown, ready_o)
  `ASSERT_KNOWN(TxKnown, tx_o)
  `COVER(BackToBack, load && busy_q)
endmodule
