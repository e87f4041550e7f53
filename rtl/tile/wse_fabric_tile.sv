// Fabric part of one tile: the router and the management node. The PE
// attaches to the RAMP ports and to the tile-side bus; coordinates are
// ports so that a mesh is one module definition.
module wse_fabric_tile #(
  parameter int unsigned NumVc          = wse_cfg_pkg::NumVc,
  parameter int unsigned VcW            = wse_cfg_pkg::VcW,
  parameter int unsigned VcDepth        = wse_cfg_pkg::VcDepth,
  parameter int unsigned RampColorDepth = wse_cfg_pkg::RampColorDepth,
  parameter logic [wse_pkg::NumColors*VcW-1:0] ColorVcMap = wse_cfg_pkg::ColorVcMap
) (
  input  logic                               clk_i,
  input  logic                               rst_ni,
  input  logic [wse_pkg::CoordW-1:0]         x_i,
  input  logic [wse_pkg::CoordW-1:0]         y_i,

  input  logic [3:0]                         link_in_valid_i,
  input  logic [4*wse_pkg::WaveletW-1:0]     link_in_data_i,
  output logic [4*NumVc-1:0]                 link_in_credit_o,
  output logic [3:0]                         link_out_valid_o,
  output logic [4*wse_pkg::WaveletW-1:0]     link_out_data_o,
  input  logic [4*NumVc-1:0]                 link_out_credit_i,

  input  logic                               ramp_in_valid_i,
  input  logic [wse_pkg::WaveletW-1:0]       ramp_in_data_i,
  output logic [NumVc-1:0]                   ramp_in_credit_o,
  output logic                               ramp_out_valid_o,
  output logic [wse_pkg::WaveletW-1:0]       ramp_out_data_o,
  input  logic [wse_pkg::NumColors-1:0]      ramp_out_credit_i,

  input  logic [wse_mgmt_pkg::PktW-1:0]      mgmt_chain_i,
  output logic [wse_mgmt_pkg::PktW-1:0]      mgmt_chain_o,

  output logic                               halt_o,
  output logic                               core_rst_o,
  input  logic [31:0]                        tile_status_i,

  output logic                               tbus_req_o,
  output logic                               tbus_we_o,
  output logic [31:0]                        tbus_addr_o,
  output logic [31:0]                        tbus_wdata_o,
  input  logic                               tbus_ack_i,
  input  logic [31:0]                        tbus_rdata_i,
  input  logic                               tbus_err_i
);
  logic                                   route_we, cnt_clear;
  logic [wse_pkg::ColorW-1:0]             route_color;
  logic [9:0]                             route_wdata;
  logic [wse_pkg::NumColors*10-1:0]       route_table;
  logic [wse_pkg::NumPorts*32-1:0]        cnt_fwd, cnt_stall, cnt_drop;

  wse_router #(
    .NumVc          (NumVc),
    .VcW            (VcW),
    .VcDepth        (VcDepth),
    .RampColorDepth (RampColorDepth),
    .ColorVcMap     (ColorVcMap)
  ) u_router (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .link_in_valid_i   (link_in_valid_i),
    .link_in_data_i    (link_in_data_i),
    .link_in_credit_o  (link_in_credit_o),
    .link_out_valid_o  (link_out_valid_o),
    .link_out_data_o   (link_out_data_o),
    .link_out_credit_i (link_out_credit_i),
    .ramp_in_valid_i   (ramp_in_valid_i),
    .ramp_in_data_i    (ramp_in_data_i),
    .ramp_in_credit_o  (ramp_in_credit_o),
    .ramp_out_valid_o  (ramp_out_valid_o),
    .ramp_out_data_o   (ramp_out_data_o),
    .ramp_out_credit_i (ramp_out_credit_i),
    .route_we_i        (route_we),
    .route_color_i     (route_color),
    .route_wdata_i     (route_wdata),
    .route_table_o     (route_table),
    .cnt_clear_i       (cnt_clear),
    .cnt_fwd_o         (cnt_fwd),
    .cnt_stall_o       (cnt_stall),
    .cnt_drop_o        (cnt_drop)
  );

  wse_mgmt_node u_mgmt (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .x_i           (x_i),
    .y_i           (y_i),
    .chain_i       (mgmt_chain_i),
    .chain_o       (mgmt_chain_o),
    .route_we_o    (route_we),
    .route_color_o (route_color),
    .route_wdata_o (route_wdata),
    .route_table_i (route_table),
    .cnt_clear_o   (cnt_clear),
    .cnt_fwd_i     (cnt_fwd),
    .cnt_stall_i   (cnt_stall),
    .cnt_drop_i    (cnt_drop),
    .halt_o        (halt_o),
    .core_rst_o    (core_rst_o),
    .tile_status_i (tile_status_i),
    .tbus_req_o    (tbus_req_o),
    .tbus_we_o     (tbus_we_o),
    .tbus_addr_o   (tbus_addr_o),
    .tbus_wdata_o  (tbus_wdata_o),
    .tbus_ack_i    (tbus_ack_i),
    .tbus_rdata_i  (tbus_rdata_i),
    .tbus_err_i    (tbus_err_i)
  );
endmodule
