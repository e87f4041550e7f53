// The ULX3S (LFE5U-85F) board top: the device (wse_top) between the
// board's pins. Port names are the LPF's (ulx3s-85f.lpf), so they follow
// the board, not the _i/_o rule. Every parameter comes from wse_cfg_pkg,
// generated from ulx3s-85f.dts (docs/boards.md).
//
//   clk_25mhz  the oscillator: the link clock (UART, framing, executor)
//              and the PLL's input; the PLL makes the mesh clock
//   btn_reset  FIRE1, high while pressed: resets both clock domains; the
//              mesh also stays in reset until the PLL has locked
//   ftdi_*     the FT231X: the link protocol as 64-bit words over a UART
//              (hif_uart); nRTS gates the transmitter
//   flash_*    the configuration flash (SPI NOR): the device's flash
//              requests (hif_flash); its SCK is the CCLK pin, through
//              USRMCLK (wse_ecp5_cfg_sck); WP# and HOLD# held high
//   led        0 heartbeat of the mesh clock, 1 bytes arriving, 2 bytes
//              leaving, 3 a line error since reset (framing, word slip,
//              overrun), 4 PLL locked, 5 the host interface busy,
//              6 every tile halted, 7 console output dropped since reset
module ulx3s_top (
  input  logic       clk_25mhz,
  input  logic       btn_reset,
  input  logic       ftdi_txd,
  output logic       ftdi_rxd,
  input  logic       ftdi_nrts,
  output logic       flash_csn,
  output logic       flash_mosi,
  input  logic       flash_miso,
  output logic       flash_wpn,
  output logic       flash_holdn,
  output logic [7:0] led
);
  localparam int unsigned NumTiles = wse_cfg_pkg::NumCols * wse_cfg_pkg::NumRows;

  logic clk_link, clk_mesh, pll_locked, rst_link_n, rst_mesh_n;
  assign clk_link = clk_25mhz;

  wse_ecp5_pll #(
    .ClkiDiv (wse_cfg_pkg::PllClkiDiv),
    .ClkfbDiv(wse_cfg_pkg::PllClkfbDiv),
    .ClkopDiv(wse_cfg_pkg::PllClkopDiv)
  ) u_pll (
    .clk_i   (clk_25mhz),
    .clk_o   (clk_mesh),
    .locked_o(pll_locked)
  );

  // Asynchronous assertion here; wse_top synchronizes the release to each
  // clock (prim_rst_sync). The LEDs' logic takes the same synchronized
  // release.
  assign rst_link_n = !btn_reset;
  assign rst_mesh_n = !btn_reset && pll_locked;
  logic rst_link_sync_n, rst_mesh_sync_n;
  prim_rst_sync u_rst_link (.clk_i(clk_link), .rst_ni(rst_link_n), .rst_no(rst_link_sync_n));
  prim_rst_sync u_rst_mesh (.clk_i(clk_mesh), .rst_ni(rst_mesh_n), .rst_no(rst_mesh_sync_n));

  // ---- the link PHY ----
  logic        rx_valid, rx_ready, tx_valid, tx_ready, unused_tx_last, unused_tx_busy;
  logic [63:0] rx_data, tx_data;
  logic [15:0] frame_err_cnt, break_cnt, slip_cnt, overrun_cnt;

  hif_uart u_uart (
    .clk_i          (clk_link),
    .rst_ni         (rst_link_sync_n),
    .div_i          (16'(wse_cfg_pkg::LinkUartDiv)),
    .gap_bits_i     (16'(wse_cfg_pkg::LinkUartGapBits)),
    .uart_rx_i      (ftdi_txd),
    .uart_tx_o      (ftdi_rxd),
    .cts_ni         (ftdi_nrts),
    .rx_valid_o     (rx_valid),
    .rx_ready_i     (rx_ready),
    .rx_data_o      (rx_data),
    .tx_valid_i     (tx_valid),
    .tx_ready_o     (tx_ready),
    .tx_data_i      (tx_data),
    .tx_busy_o      (unused_tx_busy),
    .frame_err_cnt_o(frame_err_cnt),
    .break_cnt_o    (break_cnt),
    .slip_cnt_o     (slip_cnt),
    .overrun_cnt_o  (overrun_cnt)
  );

  // ---- the device ----
  logic [NumTiles-1:0] halted, unused_retire, unused_exit;
  logic [31:0]         con_drops;
  logic                busy;
  logic                flash_sck;
  // The PCIe device side's outputs, 0 (wse_top is built without it).
  logic                unused_pcie_rvalid, unused_pcie_rd_valid, unused_pcie_wr_valid;
  logic                unused_pcie_msix_valid;
  logic [31:0]         unused_pcie_rdata;
  logic [63:0]         unused_pcie_rd_addr, unused_pcie_wr_addr, unused_pcie_wr_data;
  logic [5:0]          unused_pcie_rd_len;
  logic [3:0]          unused_pcie_rd_tag;
  logic [1:0]          unused_pcie_msix_vector;

  wse_top u_dev (
    .clk_link_i      (clk_link),
    .rst_link_ni     (rst_link_n),
    .link_in_valid_i (rx_valid),
    .link_in_ready_o (rx_ready),
    .link_in_data_i  (rx_data),
    .link_out_valid_o(tx_valid),
    .link_out_ready_i(tx_ready),
    .link_out_data_o (tx_data),
    .link_out_last_o (unused_tx_last),
    .flash_sck_o     (flash_sck),
    .flash_cs_no     (flash_csn),
    .flash_mosi_o    (flash_mosi),
    .flash_miso_i    (flash_miso),
    // no PCIe on this board: wse_top is built without its device side
    .pcie_sel_i        (1'b0),
    .pcie_reg_valid_i  (1'b0),
    .pcie_reg_write_i  (1'b0),
    .pcie_reg_addr_i   ('0),
    .pcie_reg_wdata_i  ('0),
    .pcie_reg_rvalid_o (unused_pcie_rvalid),
    .pcie_reg_rdata_o  (unused_pcie_rdata),
    .pcie_rd_valid_o   (unused_pcie_rd_valid),
    .pcie_rd_ready_i   (1'b0),
    .pcie_rd_addr_o    (unused_pcie_rd_addr),
    .pcie_rd_len_o     (unused_pcie_rd_len),
    .pcie_rd_tag_o     (unused_pcie_rd_tag),
    .pcie_cpl_valid_i  (1'b0),
    .pcie_cpl_tag_i    ('0),
    .pcie_cpl_data_i   ('0),
    .pcie_cpl_last_i   (1'b0),
    .pcie_cpl_err_i    (1'b0),
    .pcie_wr_valid_o   (unused_pcie_wr_valid),
    .pcie_wr_ready_i   (1'b0),
    .pcie_wr_addr_o    (unused_pcie_wr_addr),
    .pcie_wr_data_o    (unused_pcie_wr_data),
    .pcie_msix_valid_o (unused_pcie_msix_valid),
    .pcie_msix_ready_i (1'b0),
    .pcie_msix_vector_o(unused_pcie_msix_vector),
    .clk_i           (clk_mesh),
    .rst_ni          (rst_mesh_n),
    .halted_o        (halted),
    .retire_o        (unused_retire),
    .exit_valid_o    (unused_exit),
    .con_drops_o     (con_drops),
    .busy_o          (busy)
  );

  // ---- the configuration flash ----
  // Single-bit SPI only: write protect and hold stay inactive, so the
  // status register's protection bits alone guard the part.
  wse_ecp5_cfg_sck u_flash_sck (.sck_i(flash_sck));
  assign flash_wpn   = 1'b1;
  assign flash_holdn = 1'b1;

  // ---- LEDs ----
  // The receive line is asynchronous to clk_link: synchronized before it
  // drives the LED's counter. A start bit (line low) is activity.
  logic rx_line;
  prim_flop_2sync #(.Width(1), .ResetValue(1'b1)) u_rx_sync (
    .clk_i (clk_link),
    .rst_ni(rst_link_sync_n),
    .d_i   (ftdi_txd),
    .q_o   (rx_line)
  );

  wse_heartbeat u_beat (
    .clk_i (clk_mesh),
    .rst_ni(rst_mesh_sync_n),
    .led_o (led[0])
  );
  wse_led_stretch u_led_rx (
    .clk_i  (clk_link),
    .rst_ni (rst_link_sync_n),
    .pulse_i(!rx_line),
    .led_o  (led[1])
  );
  wse_led_stretch u_led_tx (
    .clk_i  (clk_link),
    .rst_ni (rst_link_sync_n),
    .pulse_i(!ftdi_rxd),
    .led_o  (led[2])
  );
  // The PHY's counters start at zero at reset and saturate: non-zero is
  // "an error since reset". A break alone (the host's resynchronization)
  // is not an error.
  logic unused_breaks;
  assign unused_breaks = |break_cnt;
  assign led[3] = (frame_err_cnt != '0) || (slip_cnt != '0) || (overrun_cnt != '0);
  assign led[4] = pll_locked;
  assign led[5] = busy;
  assign led[6] = &halted;
  assign led[7] = (con_drops != '0);
endmodule
