// The board side of a PCIe endpoint, without the hard IP (docs/pcie.md):
// BAR 0 registers, a host-to-card descriptor ring whose buffers feed the
// link receiver's words, a card-to-host ring whose buffers take the link
// transmitter's words, and MSI-X vector requests. Towards the hard IP it
// has a register slave port and one DMA master port (reads with tags,
// single-word posted writes); towards the host interface it plays the part
// of a link PHY, as hif_uart does on the ULX3S.
`include "prim_assert.svh"

module hif_pcie_ep #(
  parameter int unsigned MeshCols   = 4,
  parameter int unsigned MeshRows   = 4,
  parameter int unsigned DtbSize    = 0,
  parameter int unsigned MaxPayload = 4096,
  parameter int unsigned MaxLen     = hif_pcie_pkg::PcieDescMaxLen,
  parameter int unsigned RingMax    = hif_pcie_pkg::PcieRingMaxEntries,
  parameter int unsigned Timeout    = 1 << 20,  // cycles a bus wait may take
  parameter int unsigned MaxRead    = 16,       // words per DMA read
  parameter int unsigned H2cDepth   = 32        // words queued for the link
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Register port (BAR 0).
  input  logic        reg_valid_i,
  output logic        reg_ready_o,
  input  logic        reg_write_i,
  input  logic [15:0] reg_addr_i,
  input  logic [31:0] reg_wdata_i,
  output logic        reg_rvalid_o,
  output logic [31:0] reg_rdata_o,
  output logic [15:0] rom_addr_o,
  input  logic [31:0] rom_rdata_i,
  // DMA master port: reads.
  output logic        dma_rd_valid_o,
  input  logic        dma_rd_ready_i,
  output logic [63:0] dma_rd_addr_o,
  output logic [5:0]  dma_rd_len_o,    // words
  output logic [3:0]  dma_rd_tag_o,
  input  logic        dma_cpl_valid_i, // never back-pressured
  input  logic [3:0]  dma_cpl_tag_i,
  input  logic [63:0] dma_cpl_data_i,
  input  logic        dma_cpl_last_i,
  input  logic        dma_cpl_err_i,
  // DMA master port: posted writes, one word each.
  output logic        dma_wr_valid_o,
  input  logic        dma_wr_ready_i,
  output logic [63:0] dma_wr_addr_o,
  output logic [63:0] dma_wr_data_o,
  // MSI-X vector requests.
  output logic        msix_valid_o,
  input  logic        msix_ready_i,
  output logic [1:0]  msix_vector_o,
  // Link words: host-to-card into hif_rx_frame, card-to-host from hif_tx_frame.
  output logic        h2c_valid_o,
  input  logic        h2c_ready_i,
  output logic [63:0] h2c_data_o,
  input  logic        c2h_valid_i,
  output logic        c2h_ready_o,
  input  logic [63:0] c2h_data_i,
  input  logic        c2h_last_i
);
  localparam int unsigned IdxW = 16;
  localparam int unsigned TagW = 4;
  localparam int unsigned LenW = 6;
  localparam int unsigned RdW  = 64 + LenW + TagW;  // address, length, tag
  localparam int unsigned WrW  = 128;                // address, data

  logic [1:0]        run, busy, irq, stop;
  logic [127:0]      base;
  logic [2*IdxW-1:0] mask, tail, head;
  logic [15:0]       err;
  logic [2:0]        int_status, int_mask;

  // Requesters: 0 the H2C ring, 1 the C2H ring, 2 the H2C mover (reads) or
  // the C2H mover (writes).
  logic [2:0]        rd_valid, rd_ready, wr_valid, wr_ready;
  logic [3*RdW-1:0]  rd_req;
  logic [3*WrW-1:0]  wr_req;
  logic [63:0]       rd_addr [3];
  logic [LenW-1:0]   rd_len [3];
  logic [TagW-1:0]   rd_tag [3];
  logic [63:0]       wr_addr [3];
  logic [63:0]       wr_data [3];
  logic [RdW-1:0]    rd_out;
  logic [WrW-1:0]    wr_out;

  // The movers' side of each ring.
  logic [1:0]        xstart, xdone;
  logic [63:0]       xaddr [2];
  logic [31:0]       xlen [2];
  logic [31:0]       xbytes [2];
  logic [7:0]        xcode [2];
  logic              c2h_eop;

  hif_pcie_regs #(
    .IdxW(IdxW), .MeshCols(MeshCols), .MeshRows(MeshRows), .DtbSize(DtbSize),
    .MaxPayload(MaxPayload), .MaxLen(MaxLen), .RingMax(RingMax)
  ) u_regs (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .reg_valid_i  (reg_valid_i),
    .reg_ready_o  (reg_ready_o),
    .reg_write_i  (reg_write_i),
    .reg_addr_i   (reg_addr_i),
    .reg_wdata_i  (reg_wdata_i),
    .reg_rvalid_o (reg_rvalid_o),
    .reg_rdata_o  (reg_rdata_o),
    .rom_addr_o   (rom_addr_o),
    .rom_rdata_i  (rom_rdata_i),
    .ring_run_o   (run),
    .ring_base_o  (base),
    .ring_mask_o  (mask),
    .ring_tail_o  (tail),
    .ring_head_i  (head),
    .ring_busy_i  (busy),
    .ring_irq_i   (irq),
    .ring_err_i   (err),
    .ring_stop_i  (stop),
    .int_status_o (int_status),
    .int_mask_o   (int_mask)
  );

  for (genvar r = 0; r < 2; r++) begin : g_ring
    hif_pcie_ring #(
      .IdxW(IdxW), .TagW(TagW), .Id(2'(r)), .LenW(LenW), .MaxLen(MaxLen), .Timeout(Timeout)
    ) u_ring (
      .clk_i        (clk_i),
      .rst_ni       (rst_ni),
      .run_i        (run[r]),
      .base_i       (base[64*r +: 64]),
      .mask_i       (mask[IdxW*r +: IdxW]),
      .tail_i       (tail[IdxW*r +: IdxW]),
      .head_o       (head[IdxW*r +: IdxW]),
      .busy_o       (busy[r]),
      .irq_o        (irq[r]),
      .err_o        (err[8*r +: 8]),
      .stop_o       (stop[r]),
      .rd_valid_o   (rd_valid[r]),
      .rd_ready_i   (rd_ready[r]),
      .rd_addr_o    (rd_addr[r]),
      .rd_len_o     (rd_len[r]),
      .rd_tag_o     (rd_tag[r]),
      .cpl_valid_i  (dma_cpl_valid_i),
      .cpl_tag_i    (dma_cpl_tag_i),
      .cpl_data_i   (dma_cpl_data_i),
      .cpl_err_i    (dma_cpl_err_i),
      .wr_valid_o   (wr_valid[r]),
      .wr_ready_i   (wr_ready[r]),
      .wr_addr_o    (wr_addr[r]),
      .wr_data_o    (wr_data[r]),
      .xfer_start_o (xstart[r]),
      .xfer_addr_o  (xaddr[r]),
      .xfer_len_o   (xlen[r]),
      .xfer_done_i  (xdone[r]),
      .xfer_bytes_i (xbytes[r]),
      .xfer_eop_i   (r == 1 ? c2h_eop : 1'b0),
      .xfer_code_i  (xcode[r])
    );
  end

  hif_pcie_h2c #(
    .TagW(TagW), .Id(2'd2), .LenW(LenW), .MaxRead(MaxRead), .Depth(H2cDepth), .Timeout(Timeout)
  ) u_h2c (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .xfer_start_i (xstart[0]),
    .xfer_addr_i  (xaddr[0]),
    .xfer_len_i   (xlen[0]),
    .xfer_done_o  (xdone[0]),
    .xfer_bytes_o (xbytes[0]),
    .xfer_code_o  (xcode[0]),
    .rd_valid_o   (rd_valid[2]),
    .rd_ready_i   (rd_ready[2]),
    .rd_addr_o    (rd_addr[2]),
    .rd_len_o     (rd_len[2]),
    .rd_tag_o     (rd_tag[2]),
    .cpl_valid_i  (dma_cpl_valid_i),
    .cpl_tag_i    (dma_cpl_tag_i),
    .cpl_data_i   (dma_cpl_data_i),
    .cpl_last_i   (dma_cpl_last_i),
    .cpl_err_i    (dma_cpl_err_i),
    .link_valid_o (h2c_valid_o),
    .link_ready_i (h2c_ready_i),
    .link_data_o  (h2c_data_o)
  );

  hif_pcie_c2h #(.Timeout(Timeout)) u_c2h (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .xfer_start_i (xstart[1]),
    .stop_i       (!run[1]),
    .xfer_addr_i  (xaddr[1]),
    .xfer_len_i   (xlen[1]),
    .xfer_done_o  (xdone[1]),
    .xfer_bytes_o (xbytes[1]),
    .xfer_eop_o   (c2h_eop),
    .xfer_code_o  (xcode[1]),
    .link_valid_i (c2h_valid_i),
    .link_ready_o (c2h_ready_o),
    .link_data_i  (c2h_data_i),
    .link_last_i  (c2h_last_i),
    .wr_valid_o   (wr_valid[2]),
    .wr_ready_i   (wr_ready[2]),
    .wr_addr_o    (wr_addr[2]),
    .wr_data_o    (wr_data[2])
  );

  // The H2C ring writes completions only; the C2H ring reads descriptors
  // only through its own requester; the C2H mover never reads.
  for (genvar i = 0; i < 3; i++) begin : g_pack
    assign rd_req[RdW*i +: RdW] = {rd_addr[i], rd_len[i], rd_tag[i]};
    assign wr_req[WrW*i +: WrW] = {wr_addr[i], wr_data[i]};
  end

  hif_pcie_arb #(.N(3), .W(RdW)) u_rd_arb (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .valid_i (rd_valid),
    .ready_o (rd_ready),
    .req_i   (rd_req),
    .valid_o (dma_rd_valid_o),
    .ready_i (dma_rd_ready_i),
    .req_o   (rd_out)
  );

  hif_pcie_arb #(.N(3), .W(WrW)) u_wr_arb (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .valid_i (wr_valid),
    .ready_o (wr_ready),
    .req_i   (wr_req),
    .valid_o (dma_wr_valid_o),
    .ready_i (dma_wr_ready_i),
    .req_o   (wr_out)
  );

  assign {dma_rd_addr_o, dma_rd_len_o, dma_rd_tag_o} = rd_out;
  assign {dma_wr_addr_o, dma_wr_data_o}              = wr_out;

  hif_pcie_msix #(.N(3)) u_msix (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .status_i (int_status),
    .mask_i   (int_mask),
    .valid_o  (msix_valid_o),
    .ready_i  (msix_ready_i),
    .vector_o (msix_vector_o)
  );

  // ---- assertions --------------------------------------------------------
  // A completion error ends its read: it is the read's last beat.
  `ASSERT(CplErrIsLast, !(dma_cpl_valid_i && dma_cpl_err_i) || dma_cpl_last_i)
  // Reads are of whole descriptors or chunks, never empty or too long.
  `ASSERT(RdLenRange, !dma_rd_valid_o || (dma_rd_len_o != '0 && 32'(dma_rd_len_o) <= 32'(MaxRead)))
  // Every DMA address is a whole word: descriptors, buffers and rings are
  // checked for alignment before any access.
  `ASSERT(RdAligned, !dma_rd_valid_o || dma_rd_addr_o[2:0] == '0)
  `ASSERT(WrAligned, !dma_wr_valid_o || dma_wr_addr_o[2:0] == '0)
endmodule
