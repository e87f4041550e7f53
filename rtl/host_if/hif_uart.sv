// The UART link PHY: the link protocol's 64-bit link words over a serial
// line (8N1), as the host interface's framing takes and gives them
// (hif_rx_frame's link_* inputs, hif_tx_frame's link_* outputs), so packets
// travel unchanged. Receiver, byte-to-word packer, word-to-byte unpacker
// and transmitter, all in clk_i; only the line and cts_ni are
// asynchronous. docs/boards.md describes the link on the ULX3S.
`include "prim_assert.svh"

module hif_uart #(
  parameter int unsigned DivW  = 16,  // divisor width
  parameter int unsigned FracW = 8,   // fraction bits of the divisor
  parameter int unsigned GapW  = 16,  // idle-gap threshold width
  parameter int unsigned CntW  = 16   // status counter width (saturating)
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic [DivW-1:0] div_i,       // clocks per bit x 2^FracW, >= 4 clocks
  input  logic [GapW-1:0] gap_bits_i,  // idle bit periods that realign words; 0: never
  // The serial line.
  input  logic            uart_rx_i,   // from the far side's TXD
  output logic            uart_tx_o,   // to the far side's RXD
  input  logic            cts_ni,      // low: the far side takes bytes
  // Received link words, to the framing.
  output logic            rx_valid_o,
  input  logic            rx_ready_i,
  output logic [63:0]     rx_data_o,
  // Link words to send, from the framing.
  input  logic            tx_valid_i,
  output logic            tx_ready_o,
  input  logic [63:0]     tx_data_i,
  output logic            tx_busy_o,
  // Status.
  output logic [CntW-1:0] frame_err_cnt_o,  // stop bits found low (breaks included)
  output logic [CntW-1:0] break_cnt_o,      // breaks
  output logic [CntW-1:0] slip_cnt_o,       // partial words dropped at a gap or break
  output logic [CntW-1:0] overrun_cnt_o     // received words dropped, framing not ready
);
  logic       rx_byte_valid, rx_break, rx_gap, unused_frame_err;
  logic [7:0] rx_byte;
  logic       tx_byte_valid, tx_byte_ready;
  logic [7:0] tx_byte;

  hif_uart_rx #(
    .DivW (DivW),
    .FracW(FracW),
    .GapW (GapW),
    .CntW (CntW)
  ) u_rx (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .div_i          (div_i),
    .gap_bits_i     (gap_bits_i),
    .rx_i           (uart_rx_i),
    .valid_o        (rx_byte_valid),
    .data_o         (rx_byte),
    .frame_err_o    (unused_frame_err),
    .break_o        (rx_break),
    .gap_o          (rx_gap),
    .frame_err_cnt_o(frame_err_cnt_o),
    .break_cnt_o    (break_cnt_o)
  );

  hif_uart_pack #(
    .CntW(CntW)
  ) u_pack (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .byte_valid_i (rx_byte_valid),
    .byte_i       (rx_byte),
    .flush_i      (rx_gap || rx_break),
    .word_valid_o (rx_valid_o),
    .word_ready_i (rx_ready_i),
    .word_o       (rx_data_o),
    .slip_cnt_o   (slip_cnt_o),
    .overrun_cnt_o(overrun_cnt_o)
  );

  hif_uart_unpack u_unpack (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .word_valid_i(tx_valid_i),
    .word_ready_o(tx_ready_o),
    .word_i      (tx_data_i),
    .byte_valid_o(tx_byte_valid),
    .byte_ready_i(tx_byte_ready),
    .byte_o      (tx_byte)
  );

  hif_uart_tx #(
    .DivW (DivW),
    .FracW(FracW)
  ) u_tx (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .div_i  (div_i),
    .cts_ni (cts_ni),
    .valid_i(tx_byte_valid),
    .ready_o(tx_byte_ready),
    .data_i (tx_byte),
    .tx_o   (uart_tx_o),
    .busy_o (tx_busy_o)
  );

  // ---- assertions --------------------------------------------------------
  `ASSERT_KNOWN(RxValidKnown, rx_valid_o)
  `ASSERT_KNOWN(TxReadyKnown, tx_ready_o)
  `ASSERT_KNOWN(LineKnown, uart_tx_o)
endmodule
