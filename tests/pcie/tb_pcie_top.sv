// Testbench top of the PCIe device side: hif_pcie_ep with its host-to-card
// words going into the link receiver hif_rx_frame, as in a device, and a
// stall input between them standing for a busy mesh. The host memory, the
// DMA port's latency and back-pressure, the registers' driver and the
// transmitter's words are modelled in C++ (tb_pcie.cpp).
module tb_pcie_top #(
  parameter int unsigned Timeout = 2000
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        reg_valid_i,
  input  logic        reg_write_i,
  input  logic [15:0] reg_addr_i,
  input  logic [31:0] reg_wdata_i,
  output logic        reg_rvalid_o,
  output logic [31:0] reg_rdata_o,
  output logic [15:0] rom_addr_o,
  input  logic [31:0] rom_rdata_i,
  output logic        dma_rd_valid_o,
  input  logic        dma_rd_ready_i,
  output logic [63:0] dma_rd_addr_o,
  output logic [5:0]  dma_rd_len_o,
  output logic [3:0]  dma_rd_tag_o,
  input  logic        dma_cpl_valid_i,
  input  logic [3:0]  dma_cpl_tag_i,
  input  logic [63:0] dma_cpl_data_i,
  input  logic        dma_cpl_last_i,
  input  logic        dma_cpl_err_i,
  output logic        dma_wr_valid_o,
  input  logic        dma_wr_ready_i,
  output logic [63:0] dma_wr_addr_o,
  output logic [63:0] dma_wr_data_o,
  output logic        msix_valid_o,
  input  logic        msix_ready_i,
  output logic [1:0]  msix_vector_o,
  // The mesh side: a stall between the H2C engine and the receiver, the
  // words that pass, and the receiver's outputs.
  input  logic        mesh_stall_i,
  output logic        h2c_take_o,
  output logic [63:0] h2c_data_o,
  output logic        hdr_start_o,
  output logic [31:0] hdr_tag_o,
  output logic [31:0] hdr_length_o,
  output logic        pl_valid_o,
  input  logic        pl_ready_i,
  output logic [63:0] pl_data_o,
  output logic        evt_valid_o,
  input  logic        evt_ready_i,
  output logic [2:0]  evt_code_o,
  output logic        resync_o,
  // The transmitter's words.
  input  logic        c2h_valid_i,
  output logic        c2h_ready_o,
  input  logic [63:0] c2h_data_i,
  input  logic        c2h_last_i
);
  logic h2c_valid, h2c_ready, rx_ready;

  hif_pcie_ep #(
    .MeshCols(4), .MeshRows(4), .DtbSize(1234), .MaxPayload(4096), .Timeout(Timeout)
  ) u_ep (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .reg_valid_i     (reg_valid_i),
    .reg_ready_o     (),
    .reg_write_i     (reg_write_i),
    .reg_addr_i      (reg_addr_i),
    .reg_wdata_i     (reg_wdata_i),
    .reg_rvalid_o    (reg_rvalid_o),
    .reg_rdata_o     (reg_rdata_o),
    .rom_addr_o      (rom_addr_o),
    .rom_rdata_i     (rom_rdata_i),
    .dma_rd_valid_o  (dma_rd_valid_o),
    .dma_rd_ready_i  (dma_rd_ready_i),
    .dma_rd_addr_o   (dma_rd_addr_o),
    .dma_rd_len_o    (dma_rd_len_o),
    .dma_rd_tag_o    (dma_rd_tag_o),
    .dma_cpl_valid_i (dma_cpl_valid_i),
    .dma_cpl_tag_i   (dma_cpl_tag_i),
    .dma_cpl_data_i  (dma_cpl_data_i),
    .dma_cpl_last_i  (dma_cpl_last_i),
    .dma_cpl_err_i   (dma_cpl_err_i),
    .dma_wr_valid_o  (dma_wr_valid_o),
    .dma_wr_ready_i  (dma_wr_ready_i),
    .dma_wr_addr_o   (dma_wr_addr_o),
    .dma_wr_data_o   (dma_wr_data_o),
    .msix_valid_o    (msix_valid_o),
    .msix_ready_i    (msix_ready_i),
    .msix_vector_o   (msix_vector_o),
    .h2c_valid_o     (h2c_valid),
    .h2c_ready_i     (h2c_ready),
    .h2c_data_o      (h2c_data_o),
    .c2h_valid_i     (c2h_valid_i),
    .c2h_ready_o     (c2h_ready_o),
    .c2h_data_i      (c2h_data_i),
    .c2h_last_i      (c2h_last_i)
  );

  assign h2c_ready  = rx_ready && !mesh_stall_i;
  assign h2c_take_o = h2c_valid && h2c_ready;

  hif_rx_frame #(.MaxPayload(4096)) u_rx (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .link_valid_i (h2c_valid && !mesh_stall_i),
    .link_ready_o (rx_ready),
    .link_data_i  (h2c_data_o),
    .hdr_start_o  (hdr_start_o),
    .hdr_major_o  (),
    .hdr_minor_o  (),
    .hdr_opcode_o (),
    .hdr_flags_o  (),
    .hdr_tag_o    (hdr_tag_o),
    .hdr_length_o (hdr_length_o),
    .pl_valid_o   (pl_valid_o),
    .pl_ready_i   (pl_ready_i),
    .pl_data_o    (pl_data_o),
    .pl_last_o    (),
    .evt_valid_o  (evt_valid_o),
    .evt_ready_i  (evt_ready_i),
    .evt_code_o   (evt_code_o),
    .resync_o     (resync_o)
  );
endmodule
