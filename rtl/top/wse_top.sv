// Device top: the link (64 bits per link cycle, its own clock) and the mesh
// (one clock). Link words cross to the mesh clock through hif_async_fifo in
// both directions; framing, execution and the mesh run on the mesh clock.
// The board's parameters come from wse_cfg_pkg, the DTB served by INFO from
// wse_dtb_pkg (both generated from boards/<b>/<b>.dts).
`include "prim_assert.svh"

module wse_top #(
  parameter int unsigned NumCols    = wse_cfg_pkg::NumCols,
  parameter int unsigned NumRows    = wse_cfg_pkg::NumRows,
  parameter int unsigned MaxPayload = 4096,
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
  // Mesh clock domain.
  input  logic        clk_i,
  input  logic        rst_ni,
  output logic [NumTiles-1:0] halted_o,
  output logic [NumTiles-1:0] retire_o,
  output logic [NumTiles-1:0] exit_valid_o,  // a tile wrote tohost
  output logic [31:0] con_drops_o,
  output logic        busy_o  // the host interface has work (mesh clock)
);
  localparam int unsigned NP = 2 * NumRows;
  localparam int unsigned NV = wse_cfg_pkg::NumVc;
  localparam int unsigned WW = wse_pkg::WaveletW;

  logic rst_link_n, rst_n;
  prim_rst_sync u_rst_link (.clk_i(clk_link_i), .rst_ni(rst_link_ni), .rst_no(rst_link_n));
  prim_rst_sync u_rst_mesh (.clk_i(clk_i), .rst_ni(rst_ni), .rst_no(rst_n));

  // ---- link -> mesh ----
  logic        rxw_valid, rxw_ready;
  logic [63:0] rxw_data;
  logic [4:0]  unused_fill_in_w, unused_fill_in_r;
  hif_async_fifo #(.Width(64), .Depth(16)) u_cdc_in (
    .wclk_i(clk_link_i), .wrst_ni(rst_link_n),
    .wvalid_i(link_in_valid_i), .wready_o(link_in_ready_o), .wdata_i(link_in_data_i),
    .wfill_o(unused_fill_in_w),
    .rclk_i(clk_i), .rrst_ni(rst_n),
    .rvalid_o(rxw_valid), .rready_i(rxw_ready), .rdata_o(rxw_data),
    .rfill_o(unused_fill_in_r)
  );

  logic        hdr_start, pl_valid, pl_ready, pl_last, evt_valid, evt_ready, resync;
  logic [7:0]  hdr_major, hdr_minor, hdr_opcode, hdr_flags;
  logic [31:0] hdr_tag, hdr_length;
  logic [63:0] pl_data;
  logic [2:0]  evt_code;
  hif_rx_frame #(.MaxPayload(MaxPayload)) u_rx (
    .clk_i(clk_i), .rst_ni(rst_n),
    .link_valid_i(rxw_valid), .link_ready_o(rxw_ready), .link_data_i(rxw_data),
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

  logic [NP-1:0]    in_valid, out_valid;
  logic [NP*WW-1:0] in_data, out_data;
  logic [NP*NV-1:0] in_credit, out_credit;

  logic [NumTiles-1:0]    putc_valid;
  logic [NumTiles*8-1:0]  putc_char;
  logic [NumTiles*32-1:0] exit_value;

  hif_exec #(
    .NumCols(NumCols), .NumRows(NumRows), .NumVc(NV), .VcW(wse_cfg_pkg::VcW),
    .VcDepth(wse_cfg_pkg::VcDepth), .ColorVcMap(wse_cfg_pkg::ColorVcMap),
    .MaxPayload(MaxPayload), .DtbBytes(wse_dtb_pkg::DtbBytes),
    .DtbWords(wse_dtb_pkg::DtbWords), .DtbRom(wse_dtb_pkg::DtbRom),
    .BuildId(wse_dtb_pkg::BuildId)
  ) u_exec (
    .clk_i(clk_i), .rst_ni(rst_n),
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
    .in_valid_o(in_valid), .in_data_o(in_data), .in_credit_i(in_credit),
    .out_valid_i(out_valid), .out_data_i(out_data), .out_credit_o(out_credit),
    .putc_valid_i(putc_valid), .putc_char_i(putc_char),
    .con_drops_o(con_drops_o), .busy_o(busy_o)
  );

  // ---- mesh -> link ----
  logic        txw_valid, txw_ready, txw_last;
  logic [63:0] txw_data;
  hif_tx_frame #(.MaxLength(MaxPayload + 64)) u_tx (
    .clk_i(clk_i), .rst_ni(rst_n),
    .cmd_valid_i(cmd_valid), .cmd_ready_o(cmd_ready), .cmd_opcode_i(cmd_opcode),
    .cmd_flags_i(cmd_flags), .cmd_tag_i(cmd_tag), .cmd_status_i(cmd_status),
    .cmd_length_i(cmd_length),
    .pl_valid_i(tx_valid), .pl_ready_o(tx_ready), .pl_data_i(tx_data),
    .link_valid_o(txw_valid), .link_ready_i(txw_ready), .link_data_o(txw_data),
    .link_last_o(txw_last)
  );

  logic [4:0] unused_fill_out_w, unused_fill_out_r;
  hif_async_fifo #(.Width(65), .Depth(16)) u_cdc_out (
    .wclk_i(clk_i), .wrst_ni(rst_n),
    .wvalid_i(txw_valid), .wready_o(txw_ready), .wdata_i({txw_last, txw_data}),
    .wfill_o(unused_fill_out_w),
    .rclk_i(clk_link_i), .rrst_ni(rst_link_n),
    .rvalid_o(link_out_valid_o), .rready_i(link_out_ready_i),
    .rdata_o({link_out_last_o, link_out_data_o}),
    .rfill_o(unused_fill_out_r)
  );

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
    .mgmt_req_valid_i(mg_valid), .mgmt_req_ready_o(mg_ready), .mgmt_req_write_i(mg_write),
    .mgmt_req_bcast_i(mg_bcast), .mgmt_req_x_i(mg_x), .mgmt_req_y_i(mg_y),
    .mgmt_req_addr_i(mg_addr), .mgmt_req_wdata_i(mg_wdata),
    .mgmt_rsp_valid_o(mg_rsp_valid), .mgmt_rsp_rdata_o(mg_rsp_rdata), .mgmt_rsp_err_o(mg_rsp_err),
    .putc_valid_o(putc_valid), .putc_char_o(putc_char),
    .exit_valid_o(exit_valid_o), .exit_value_o(exit_value),
    .halted_o(halted_o), .retire_o(retire_o)
  );

  logic unused_top;
  assign unused_top = ^{hdr_flags, pl_last, exit_value, unused_fill_in_w,
                        unused_fill_in_r, unused_fill_out_w, unused_fill_out_r};
endmodule
