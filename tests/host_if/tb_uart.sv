// tb_uart: the UART link PHY between two clock domains, driven by
// tb_uart.cpp. The host side has a bare transmitter and receiver (its own
// clock, its own divisor); the device side is hif_uart feeding the real
// link receiver framing (hif_rx_frame). The serial lines leave and enter
// through ports so that the C++ side can put noise on them.
module tb_uart (
  input  logic        clk_h_i,
  input  logic        clk_d_i,
  input  logic        rst_ni,
  input  logic [15:0] div_h_i,
  input  logic [15:0] div_d_i,
  input  logic [15:0] gap_bits_i,
  // Host transmitter.
  input  logic        h_valid_i,
  output logic        h_ready_o,
  input  logic [7:0]  h_data_i,
  output logic        h_line_o,
  output logic        h_busy_o,
  // Host receiver.
  input  logic        h_line_i,
  output logic        h_rx_valid_o,
  output logic [7:0]  h_rx_data_o,
  output logic [15:0] h_ferr_cnt_o,
  // Device PHY.
  input  logic        d_line_i,
  output logic        d_line_o,
  input  logic        d_cts_ni,
  input  logic        d_stall_i,     // the framing takes no words
  output logic        d_rx_valid_o,
  output logic        d_rx_ready_o,
  output logic [63:0] d_rx_data_o,
  input  logic        d_tx_valid_i,
  output logic        d_tx_ready_o,
  input  logic [63:0] d_tx_data_i,
  output logic [15:0] d_ferr_cnt_o,
  output logic [15:0] d_break_cnt_o,
  output logic [15:0] d_slip_cnt_o,
  output logic [15:0] d_overrun_cnt_o,
  // The framing after it (downstream always ready).
  output logic        f_hdr_start_o,
  output logic [31:0] f_hdr_tag_o,
  output logic [31:0] f_hdr_length_o,
  output logic        f_pl_valid_o,
  output logic [63:0] f_pl_data_o,
  output logic        f_evt_valid_o,
  output logic [2:0]  f_evt_code_o,
  output logic        f_resync_o
);
  logic       unused_h_gap, unused_h_break, unused_h_ferr, unused_d_busy, unused_f_last;
  logic [7:0] unused_f_major, unused_f_minor, unused_f_opcode, unused_f_flags;
  logic [15:0] unused_h_brk_cnt;
  logic        frame_ready;

  assign d_rx_ready_o = frame_ready && !d_stall_i;

  hif_uart_tx u_h_tx (
    .clk_i  (clk_h_i),
    .rst_ni (rst_ni),
    .div_i  (div_h_i),
    .cts_ni (1'b0),
    .valid_i(h_valid_i),
    .ready_o(h_ready_o),
    .data_i (h_data_i),
    .tx_o   (h_line_o),
    .busy_o (h_busy_o)
  );

  hif_uart_rx u_h_rx (
    .clk_i          (clk_h_i),
    .rst_ni         (rst_ni),
    .div_i          (div_h_i),
    .gap_bits_i     (16'd0),
    .rx_i           (h_line_i),
    .valid_o        (h_rx_valid_o),
    .data_o         (h_rx_data_o),
    .frame_err_o    (unused_h_ferr),
    .break_o        (unused_h_break),
    .gap_o          (unused_h_gap),
    .frame_err_cnt_o(h_ferr_cnt_o),
    .break_cnt_o    (unused_h_brk_cnt)
  );

  hif_uart u_dut (
    .clk_i          (clk_d_i),
    .rst_ni         (rst_ni),
    .div_i          (div_d_i),
    .gap_bits_i     (gap_bits_i),
    .uart_rx_i      (d_line_i),
    .uart_tx_o      (d_line_o),
    .cts_ni         (d_cts_ni),
    .rx_valid_o     (d_rx_valid_o),
    .rx_ready_i     (d_rx_ready_o),
    .rx_data_o      (d_rx_data_o),
    .tx_valid_i     (d_tx_valid_i),
    .tx_ready_o     (d_tx_ready_o),
    .tx_data_i      (d_tx_data_i),
    .tx_busy_o      (unused_d_busy),
    .frame_err_cnt_o(d_ferr_cnt_o),
    .break_cnt_o    (d_break_cnt_o),
    .slip_cnt_o     (d_slip_cnt_o),
    .overrun_cnt_o  (d_overrun_cnt_o)
  );

  hif_rx_frame u_frame (
    .clk_i       (clk_d_i),
    .rst_ni      (rst_ni),
    .link_valid_i(d_rx_valid_o && !d_stall_i),
    .link_ready_o(frame_ready),
    .link_data_i (d_rx_data_o),
    .hdr_start_o (f_hdr_start_o),
    .hdr_major_o (unused_f_major),
    .hdr_minor_o (unused_f_minor),
    .hdr_opcode_o(unused_f_opcode),
    .hdr_flags_o (unused_f_flags),
    .hdr_tag_o   (f_hdr_tag_o),
    .hdr_length_o(f_hdr_length_o),
    .pl_valid_o  (f_pl_valid_o),
    .pl_ready_i  (1'b1),
    .pl_data_o   (f_pl_data_o),
    .pl_last_o   (unused_f_last),
    .evt_valid_o (f_evt_valid_o),
    .evt_ready_i (1'b1),
    .evt_code_o  (f_evt_code_o),
    .resync_o    (f_resync_o)
  );
endmodule
