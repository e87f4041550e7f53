// Device top: the link (64 bits per link cycle, its own clock) and the mesh
// (one clock). Framing and execution run on the link clock, so the host
// interface takes a word per link cycle however fast the link is clocked;
// everything it exchanges with the mesh (edge ports, management port,
// putchar output) crosses to the mesh clock through prim_fifo_async.
// The board's parameters come from wse_cfg_pkg, the DTB served by INFO from
// wse_dtb_pkg (both generated from boards/<b>/<b>.dts).
//
// With PcieEp, the board side of a PCIe endpoint (hif_pcie_ep, docs/pcie.md)
// sits beside the link ports, on the link clock (the hard IP's user clock):
// while pcie_sel_i is 1 (a strap, fixed from reset on) the framing takes
// its words from the host-to-card ring and the transmitter's go to the
// card-to-host ring, and the link ports are idle; while 0, the link ports
// work as without it. Without PcieEp (the default, e.g. the ULX3S, which has
// no PCIe) nothing of it is built: pcie_sel_i and the endpoint's inputs are
// ignored, its outputs 0.
`include "prim_assert.svh"

module wse_top #(
  parameter int unsigned NumCols    = wse_cfg_pkg::NumCols,
  parameter int unsigned NumRows    = wse_cfg_pkg::NumRows,
  parameter int unsigned MaxPayload = 4096,
  parameter bit          PcieEp     = 1'b0,
  parameter int unsigned NumTiles   = NumCols * NumRows
) (
  // Link clock domain.
  input  logic        clk_link_i,
  input  logic        rst_link_ni,
  input  logic        link_in_valid_i,
  output logic        link_in_ready_o,
  input  logic [63:0] link_in_data_i,
  output logic        link_out_valid_o,
  input  logic        link_out_ready_i,
  output logic [63:0] link_out_data_o,
  output logic        link_out_last_o,
  // The SPI NOR flash of the FLASH_* requests (link clock domain).
  output logic        flash_sck_o,
  output logic        flash_cs_no,
  output logic        flash_mosi_o,
  input  logic        flash_miso_i,
  // The PCIe device side (link clock domain; docs/pcie.md, "The bus
  // interface"): BAR 0's register port, the DMA master port, MSI-X.
  input  logic        pcie_sel_i,
  input  logic        pcie_reg_valid_i,
  input  logic        pcie_reg_write_i,
  input  logic [15:0] pcie_reg_addr_i,
  input  logic [31:0] pcie_reg_wdata_i,
  output logic        pcie_reg_rvalid_o,
  output logic [31:0] pcie_reg_rdata_o,
  output logic        pcie_rd_valid_o,
  input  logic        pcie_rd_ready_i,
  output logic [63:0] pcie_rd_addr_o,
  output logic [5:0]  pcie_rd_len_o,
  output logic [3:0]  pcie_rd_tag_o,
  input  logic        pcie_cpl_valid_i,
  input  logic [3:0]  pcie_cpl_tag_i,
  input  logic [63:0] pcie_cpl_data_i,
  input  logic        pcie_cpl_last_i,
  input  logic        pcie_cpl_err_i,
  output logic        pcie_wr_valid_o,
  input  logic        pcie_wr_ready_i,
  output logic [63:0] pcie_wr_addr_o,
  output logic [63:0] pcie_wr_data_o,
  output logic        pcie_msix_valid_o,
  input  logic        pcie_msix_ready_i,
  output logic [1:0]  pcie_msix_vector_o,
  // Mesh clock domain.
  input  logic        clk_i,
  input  logic        rst_ni,
  output logic [NumTiles-1:0] halted_o,
  output logic [NumTiles-1:0] retire_o,
  output logic [NumTiles-1:0] exit_valid_o,  // a tile wrote tohost
  output logic [31:0] con_drops_o,      // console characters dropped (link clock)
  output logic        busy_o  // the host interface has work (mesh clock)
);
  localparam int unsigned NP = 2 * NumRows;
  localparam int unsigned NV = wse_cfg_pkg::NumVc;
  localparam int unsigned WW = wse_pkg::WaveletW;
  // Per edge port: FIFO entries each way, and the executor's credits per VC.
  localparam int unsigned EdgeFifoDepth = 32;
  localparam int unsigned EdgeCredits   = EdgeFifoDepth / NV;
  // Console characters buffered per tile, and each tile's credits for them.
  localparam int unsigned ConDepth      = 32;
  localparam int unsigned TW            = (NumTiles > 1) ? $clog2(NumTiles) : 1;

  logic rst_link_n, rst_n;
  prim_rst_sync u_rst_link (.clk_i(clk_link_i), .rst_ni(rst_link_ni), .rst_no(rst_link_n));
  prim_rst_sync u_rst_mesh (.clk_i(clk_i), .rst_ni(rst_ni), .rst_no(rst_n));

  // ---- link: framing and execution on the link clock ----
  logic        hdr_start, pl_valid, pl_ready, pl_last, evt_valid, evt_ready, resync;
  logic [7:0]  hdr_major, hdr_minor, hdr_opcode, hdr_flags;
  logic [31:0] hdr_tag, hdr_length;
  logic [63:0] pl_data;
  logic [2:0]  evt_code;
  // The framing's words: from and to the link ports, or the PCIe rings.
  logic        rx_valid, rx_ready, tx_link_valid, tx_link_ready, tx_link_last;
  logic [63:0] rx_data, tx_link_data;
  hif_rx_frame #(.MaxPayload(MaxPayload)) u_rx (
    .clk_i(clk_link_i), .rst_ni(rst_link_n),
    .link_valid_i(rx_valid), .link_ready_o(rx_ready), .link_data_i(rx_data),
    .hdr_start_o(hdr_start), .hdr_major_o(hdr_major), .hdr_minor_o(hdr_minor),
    .hdr_opcode_o(hdr_opcode), .hdr_flags_o(hdr_flags), .hdr_tag_o(hdr_tag),
    .hdr_length_o(hdr_length),
    .pl_valid_o(pl_valid), .pl_ready_i(pl_ready), .pl_data_o(pl_data), .pl_last_o(pl_last),
    .evt_valid_o(evt_valid), .evt_ready_i(evt_ready), .evt_code_o(evt_code),
    .resync_o(resync)
  );

  // ---- executor ----
  logic        cmd_valid, cmd_ready, tx_valid, tx_ready;
  logic [7:0]  cmd_opcode, cmd_flags;
  logic [31:0] cmd_tag, cmd_length;
  logic [15:0] cmd_status;
  logic [63:0] tx_data;

  logic        mg_valid, mg_ready, mg_write, mg_bcast, mg_rsp_valid, mg_rsp_err;
  logic [7:0]  mg_x, mg_y;
  logic [31:0] mg_addr, mg_wdata, mg_rsp_rdata;

  // The executor's side of the crossings (link clock) and the mesh's.
  logic [NP-1:0]    x_in_valid, x_out_valid, in_valid, out_valid;
  logic [NP*WW-1:0] x_in_data, x_out_data, in_data, out_data;
  logic [NP*NV-1:0] x_in_credit, x_out_credit, in_credit, out_credit;

  logic        m_valid, m_ready, m_write, m_bcast, m_rsp_valid, m_rsp_err;
  logic [7:0]  m_x, m_y;
  logic [31:0] m_addr, m_wdata, m_rsp_rdata;

  logic [NumTiles-1:0]    putc_valid, x_putc_valid, putc_ready;
  logic                   con_ret_valid, con_ret_ready;
  logic [TW-1:0]          con_ret_tile;
  logic [3:0]             con_ret_n;
  logic [NumTiles*8-1:0]  putc_char, x_putc_char;
  logic [NumTiles*32-1:0] exit_value;
  logic                   exec_busy;

  hif_exec #(
    .NumCols(NumCols), .NumRows(NumRows), .NumVc(NV), .VcW(wse_cfg_pkg::VcW),
    .VcDepth(EdgeCredits), .ColorVcMap(wse_cfg_pkg::ColorVcMap),
    .MaxPayload(MaxPayload), .ConDepth(ConDepth), .DtbBytes(wse_dtb_pkg::DtbBytes),
    .DtbWords(wse_dtb_pkg::DtbWords), .DtbRom(wse_dtb_pkg::DtbRom),
    .BuildId(wse_dtb_pkg::BuildId)
  ) u_exec (
    .clk_i(clk_link_i), .rst_ni(rst_link_n),
    .hdr_start_i(hdr_start), .hdr_major_i(hdr_major), .hdr_minor_i(hdr_minor),
    .hdr_opcode_i(hdr_opcode), .hdr_tag_i(hdr_tag), .hdr_length_i(hdr_length),
    .pl_valid_i(pl_valid), .pl_ready_o(pl_ready), .pl_data_i(pl_data),
    .evt_valid_i(evt_valid), .evt_ready_o(evt_ready), .evt_code_i(evt_code),
    .resync_i(resync),
    .cmd_valid_o(cmd_valid), .cmd_ready_i(cmd_ready), .cmd_opcode_o(cmd_opcode),
    .cmd_flags_o(cmd_flags), .cmd_tag_o(cmd_tag), .cmd_status_o(cmd_status),
    .cmd_length_o(cmd_length),
    .tx_valid_o(tx_valid), .tx_ready_i(tx_ready), .tx_data_o(tx_data),
    .mgmt_req_valid_o(mg_valid), .mgmt_req_ready_i(mg_ready), .mgmt_req_write_o(mg_write),
    .mgmt_req_bcast_o(mg_bcast), .mgmt_req_x_o(mg_x), .mgmt_req_y_o(mg_y),
    .mgmt_req_addr_o(mg_addr), .mgmt_req_wdata_o(mg_wdata),
    .mgmt_rsp_valid_i(mg_rsp_valid), .mgmt_rsp_rdata_i(mg_rsp_rdata), .mgmt_rsp_err_i(mg_rsp_err),
    .in_valid_o(x_in_valid), .in_data_o(x_in_data), .in_credit_i(x_in_credit),
    .out_valid_i(x_out_valid), .out_data_i(x_out_data), .out_credit_o(x_out_credit),
    .putc_valid_i(x_putc_valid), .putc_char_i(x_putc_char),
    .con_drops_o(con_drops_o), .busy_o(exec_busy),
    .con_ret_valid_o(con_ret_valid), .con_ret_ready_i(con_ret_ready),
    .con_ret_tile_o(con_ret_tile), .con_ret_n_o(con_ret_n),
    .flash_sck_o(flash_sck_o), .flash_cs_no(flash_cs_no), .flash_mosi_o(flash_mosi_o),
    .flash_miso_i(flash_miso_i)
  );

  // ---- link clock <-> mesh clock ----
  // Every edge port crosses through its own FIFOs. The executor gets
  // EdgeCredits credits per VC for a port's intake FIFO (its VCs share
  // it), enough to cover the crossing's round trip when both clocks run
  // at the same rate; the event sender sees each outlet as a router that
  // started with as many.
  logic [NP-1:0] in_busy, out_busy;
  for (genvar p = 0; p < NP; p++) begin : g_edge
    hif_edge_in_cdc #(
      .NumVc(NV), .VcW(wse_cfg_pkg::VcW), .ColorVcMap(wse_cfg_pkg::ColorVcMap),
      .VcDepth(wse_cfg_pkg::VcDepth), .Depth(EdgeFifoDepth), .IntakeCredits(EdgeCredits)
    ) u_in (
      .clk_link_i(clk_link_i), .rst_link_ni(rst_link_n),
      .valid_i(x_in_valid[p]), .data_i(x_in_data[p*WW +: WW]),
      .credit_o(x_in_credit[p*NV +: NV]),
      .clk_i(clk_i), .rst_ni(rst_n),
      .valid_o(in_valid[p]), .data_o(in_data[p*WW +: WW]),
      .credit_i(in_credit[p*NV +: NV]), .busy_o(in_busy[p])
    );
    hif_edge_out_cdc #(
      .NumVc(NV), .VcW(wse_cfg_pkg::VcW), .ColorVcMap(wse_cfg_pkg::ColorVcMap),
      .VcDepth(wse_cfg_pkg::VcDepth), .OutCredits(EdgeCredits), .Depth(EdgeFifoDepth)
    ) u_out (
      .clk_i(clk_i), .rst_ni(rst_n),
      .valid_i(out_valid[p]), .data_i(out_data[p*WW +: WW]),
      .credit_o(out_credit[p*NV +: NV]), .busy_o(out_busy[p]),
      .clk_link_i(clk_link_i), .rst_link_ni(rst_link_n),
      .valid_o(x_out_valid[p]), .data_o(x_out_data[p*WW +: WW]),
      .credit_i(x_out_credit[p*NV +: NV])
    );
  end

  logic mgmt_busy;
  hif_mgmt_cdc u_mgmt_cdc (
    .clk_link_i(clk_link_i), .rst_link_ni(rst_link_n),
    .req_valid_i(mg_valid), .req_ready_o(mg_ready), .req_write_i(mg_write),
    .req_bcast_i(mg_bcast), .req_x_i(mg_x), .req_y_i(mg_y),
    .req_addr_i(mg_addr), .req_wdata_i(mg_wdata),
    .rsp_valid_o(mg_rsp_valid), .rsp_rdata_o(mg_rsp_rdata), .rsp_err_o(mg_rsp_err),
    .clk_i(clk_i), .rst_ni(rst_n),
    .req_valid_o(m_valid), .req_ready_i(m_ready), .req_write_o(m_write),
    .req_bcast_o(m_bcast), .req_x_o(m_x), .req_y_o(m_y),
    .req_addr_o(m_addr), .req_wdata_o(m_wdata),
    .rsp_valid_i(m_rsp_valid), .rsp_rdata_i(m_rsp_rdata), .rsp_err_i(m_rsp_err),
    .busy_o(mgmt_busy)
  );

  logic putc_busy;
  hif_putc_cdc #(.NumTiles(NumTiles), .ConDepth(ConDepth), .TW(TW)) u_putc_cdc (
    .clk_i(clk_i), .rst_ni(rst_n),
    .putc_valid_i(putc_valid), .putc_char_i(putc_char), .putc_ready_o(putc_ready),
    .busy_o(putc_busy),
    .clk_link_i(clk_link_i), .rst_link_ni(rst_link_n),
    .putc_valid_o(x_putc_valid), .putc_char_o(x_putc_char),
    .ret_valid_i(con_ret_valid), .ret_ready_o(con_ret_ready),
    .ret_tile_i(con_ret_tile), .ret_n_i(con_ret_n)
  );

  // Busy, on the mesh clock: the executor's (synchronized) or anything
  // still crossing.
  logic exec_busy_m;
  prim_flop_2sync u_sync_busy (
    .clk_i(clk_i), .rst_ni(rst_n), .d_i(exec_busy), .q_o(exec_busy_m)
  );
  assign busy_o = exec_busy_m || (|in_busy) || (|out_busy) || mgmt_busy || putc_busy;

  // ---- link: the transmitter ----
  hif_tx_frame #(.MaxLength(MaxPayload + 64)) u_tx (
    .clk_i(clk_link_i), .rst_ni(rst_link_n),
    .cmd_valid_i(cmd_valid), .cmd_ready_o(cmd_ready), .cmd_opcode_i(cmd_opcode),
    .cmd_flags_i(cmd_flags), .cmd_tag_i(cmd_tag), .cmd_status_i(cmd_status),
    .cmd_length_i(cmd_length),
    .pl_valid_i(tx_valid), .pl_ready_o(tx_ready), .pl_data_i(tx_data),
    .link_valid_o(tx_link_valid), .link_ready_i(tx_link_ready),
    .link_data_o(tx_link_data), .link_last_o(tx_link_last)
  );
  assign link_out_data_o = tx_link_data;
  assign link_out_last_o = tx_link_last;

  // ---- the PCIe device side ----
  if (PcieEp) begin : g_pcie
    logic        h2c_valid, c2h_ready;
    logic        unused_reg_ready;  // always 1 (docs/pcie.md): no ready at the ports
    logic [63:0] h2c_data;
    logic [15:0] rom_addr;
    logic [31:0] rom_rdata;
    hif_pcie_ep #(
      .MeshCols(NumCols), .MeshRows(NumRows), .DtbSize(wse_dtb_pkg::DtbBytes),
      .MaxPayload(MaxPayload)
    ) u_ep (
      .clk_i(clk_link_i), .rst_ni(rst_link_n),
      .reg_valid_i(pcie_reg_valid_i), .reg_ready_o(unused_reg_ready), .reg_write_i(pcie_reg_write_i),
      .reg_addr_i(pcie_reg_addr_i), .reg_wdata_i(pcie_reg_wdata_i),
      .reg_rvalid_o(pcie_reg_rvalid_o), .reg_rdata_o(pcie_reg_rdata_o),
      .rom_addr_o(rom_addr), .rom_rdata_i(rom_rdata),
      .dma_rd_valid_o(pcie_rd_valid_o), .dma_rd_ready_i(pcie_rd_ready_i),
      .dma_rd_addr_o(pcie_rd_addr_o), .dma_rd_len_o(pcie_rd_len_o), .dma_rd_tag_o(pcie_rd_tag_o),
      .dma_cpl_valid_i(pcie_cpl_valid_i), .dma_cpl_tag_i(pcie_cpl_tag_i),
      .dma_cpl_data_i(pcie_cpl_data_i), .dma_cpl_last_i(pcie_cpl_last_i),
      .dma_cpl_err_i(pcie_cpl_err_i),
      .dma_wr_valid_o(pcie_wr_valid_o), .dma_wr_ready_i(pcie_wr_ready_i),
      .dma_wr_addr_o(pcie_wr_addr_o), .dma_wr_data_o(pcie_wr_data_o),
      .msix_valid_o(pcie_msix_valid_o), .msix_ready_i(pcie_msix_ready_i),
      .msix_vector_o(pcie_msix_vector_o),
      .h2c_valid_o(h2c_valid), .h2c_ready_i(rx_ready && pcie_sel_i), .h2c_data_o(h2c_data),
      .c2h_valid_i(tx_link_valid && pcie_sel_i), .c2h_ready_o(c2h_ready),
      .c2h_data_i(tx_link_data), .c2h_last_i(tx_link_last)
    );
    hif_pcie_rom #(
      .DtbWords(wse_dtb_pkg::DtbWords), .DtbRom(wse_dtb_pkg::DtbRom), .Compat(wse_dtb_pkg::Compat)
    ) u_rom (
      .clk_i(clk_link_i), .rst_ni(rst_link_n), .addr_i(rom_addr), .rdata_o(rom_rdata)
    );
    assign rx_valid         = pcie_sel_i ? h2c_valid : link_in_valid_i;
    assign rx_data          = pcie_sel_i ? h2c_data : link_in_data_i;
    assign link_in_ready_o  = rx_ready && !pcie_sel_i;
    assign link_out_valid_o = tx_link_valid && !pcie_sel_i;
    assign tx_link_ready    = pcie_sel_i ? c2h_ready : link_out_ready_i;
  end else begin : g_no_pcie
    assign rx_valid           = link_in_valid_i;
    assign rx_data            = link_in_data_i;
    assign link_in_ready_o    = rx_ready;
    assign link_out_valid_o   = tx_link_valid;
    assign tx_link_ready      = link_out_ready_i;
    assign pcie_reg_rvalid_o  = 1'b0;
    assign pcie_reg_rdata_o   = '0;
    assign pcie_rd_valid_o    = 1'b0;
    assign pcie_rd_addr_o     = '0;
    assign pcie_rd_len_o      = '0;
    assign pcie_rd_tag_o      = '0;
    assign pcie_wr_valid_o    = 1'b0;
    assign pcie_wr_addr_o     = '0;
    assign pcie_wr_data_o     = '0;
    assign pcie_msix_valid_o  = 1'b0;
    assign pcie_msix_vector_o = '0;
    logic unused_pcie;
    assign unused_pcie = ^{pcie_sel_i, pcie_reg_valid_i, pcie_reg_write_i, pcie_reg_addr_i,
                           pcie_reg_wdata_i, pcie_rd_ready_i, pcie_cpl_valid_i, pcie_cpl_tag_i,
                           pcie_cpl_data_i, pcie_cpl_last_i, pcie_cpl_err_i, pcie_wr_ready_i,
                           pcie_msix_ready_i};
  end

  // ---- the mesh ----
  wse_mesh u_mesh (
    .clk_i(clk_i), .rst_ni(rst_n),
    .west_in_valid_i(in_valid[NumRows-1:0]), .west_in_data_i(in_data[NumRows*WW-1:0]),
    .west_in_credit_o(in_credit[NumRows*NV-1:0]),
    .west_out_valid_o(out_valid[NumRows-1:0]), .west_out_data_o(out_data[NumRows*WW-1:0]),
    .west_out_credit_i(out_credit[NumRows*NV-1:0]),
    .east_in_valid_i(in_valid[NP-1:NumRows]), .east_in_data_i(in_data[NP*WW-1:NumRows*WW]),
    .east_in_credit_o(in_credit[NP*NV-1:NumRows*NV]),
    .east_out_valid_o(out_valid[NP-1:NumRows]), .east_out_data_o(out_data[NP*WW-1:NumRows*WW]),
    .east_out_credit_i(out_credit[NP*NV-1:NumRows*NV]),
    .mgmt_req_valid_i(m_valid), .mgmt_req_ready_o(m_ready), .mgmt_req_write_i(m_write),
    .mgmt_req_bcast_i(m_bcast), .mgmt_req_x_i(m_x), .mgmt_req_y_i(m_y),
    .mgmt_req_addr_i(m_addr), .mgmt_req_wdata_i(m_wdata),
    .mgmt_rsp_valid_o(m_rsp_valid), .mgmt_rsp_rdata_o(m_rsp_rdata), .mgmt_rsp_err_o(m_rsp_err),
    .putc_valid_o(putc_valid), .putc_char_o(putc_char), .putc_ready_i(putc_ready),
    .exit_valid_o(exit_valid_o), .exit_value_o(exit_value),
    .halted_o(halted_o), .retire_o(retire_o)
  );

  logic unused_top;
  assign unused_top = ^{hdr_flags, pl_last, exit_value};
endmodule
