// The mesh of NumCols x NumRows complete tiles (router, management node and
// processing element each), with intake/outlet streams on the west and east
// edges and the one management port. Tile t = y*NumCols + x; x = column
// from the west edge, y = row from the north edge. The link wiring is that
// of wse_fabric_mesh. Contains the reset synchronizer: rst_ni may be
// asynchronous.
module wse_mesh #(
  parameter int unsigned NumCols        = wse_cfg_pkg::NumCols,
  parameter int unsigned NumRows        = wse_cfg_pkg::NumRows,
  parameter int unsigned NumVc          = wse_cfg_pkg::NumVc,
  parameter int unsigned VcW            = wse_cfg_pkg::VcW,
  parameter int unsigned VcDepth        = wse_cfg_pkg::VcDepth,
  parameter int unsigned RampColorDepth = wse_cfg_pkg::RampColorDepth,
  parameter logic [wse_pkg::NumColors*VcW-1:0] ColorVcMap = wse_cfg_pkg::ColorVcMap,
  parameter int unsigned ImemBytes      = wse_cfg_pkg::ImemBytes,
  parameter int unsigned DmemBytes      = wse_cfg_pkg::DmemBytes,
  parameter int unsigned DmemBanks      = wse_cfg_pkg::DmemBanks,
  // Derived; do not override.
  parameter int unsigned NumTiles       = NumCols * NumRows
) (
  input  logic                                     clk_i,
  input  logic                                     rst_ni,

  // West edge, row y at [y*.. +: ..]: into / out of the W port of tile (0,y).
  input  logic [NumRows-1:0]                       west_in_valid_i,
  input  logic [NumRows*wse_pkg::WaveletW-1:0]     west_in_data_i,
  output logic [NumRows*NumVc-1:0]                 west_in_credit_o,
  output logic [NumRows-1:0]                       west_out_valid_o,
  output logic [NumRows*wse_pkg::WaveletW-1:0]     west_out_data_o,
  input  logic [NumRows*NumVc-1:0]                 west_out_credit_i,

  // East edge, row y: into / out of the E port of tile (NumCols-1,y).
  input  logic [NumRows-1:0]                       east_in_valid_i,
  input  logic [NumRows*wse_pkg::WaveletW-1:0]     east_in_data_i,
  output logic [NumRows*NumVc-1:0]                 east_in_credit_o,
  output logic [NumRows-1:0]                       east_out_valid_o,
  output logic [NumRows*wse_pkg::WaveletW-1:0]     east_out_data_o,
  input  logic [NumRows*NumVc-1:0]                 east_out_credit_i,

  // Management port (docs/management.md).
  input  logic                                     mgmt_req_valid_i,
  output logic                                     mgmt_req_ready_o,
  input  logic                                     mgmt_req_write_i,
  input  logic                                     mgmt_req_bcast_i,
  input  logic [wse_pkg::CoordW-1:0]               mgmt_req_x_i,
  input  logic [wse_pkg::CoordW-1:0]               mgmt_req_y_i,
  input  logic [31:0]                              mgmt_req_addr_i,
  input  logic [31:0]                              mgmt_req_wdata_i,
  output logic                                     mgmt_rsp_valid_o,
  output logic [31:0]                              mgmt_rsp_rdata_o,
  output logic                                     mgmt_rsp_err_o,

  // Console and program end of every tile (simulation visibility).
  output logic [NumTiles-1:0]                      putc_valid_o,
  output logic [NumTiles*8-1:0]                    putc_char_o,
  input  logic [NumTiles-1:0]                      putc_ready_i,  // per tile: a character is taken
  output logic [NumTiles-1:0]                      exit_valid_o,
  output logic [NumTiles*32-1:0]                   exit_value_o,
  output logic [NumTiles-1:0]                      halted_o,
  output logic [NumTiles-1:0]                      retire_o
);
  localparam int unsigned WW  = wse_pkg::WaveletW;
  localparam int unsigned NV  = NumVc;
  localparam int unsigned CL  = wse_pkg::ColorLsb;
  localparam int unsigned CW  = wse_pkg::ColorW;
  localparam int unsigned PW  = wse_mgmt_pkg::PktW;
  localparam int unsigned DN  = wse_pkg::PortNorth;
  localparam int unsigned DE  = wse_pkg::PortEast;
  localparam int unsigned DS  = wse_pkg::PortSouth;
  localparam int unsigned DWs = wse_pkg::PortWest;

  logic rst_n;

  prim_rst_sync u_rst_sync (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .rst_no (rst_n)
  );

  // Link wires of every tile t and direction d, flat (Yosys 0.23 has no
  // multi-dimensional packed arrays): valid [t*4+d], data [(t*4+d)*WW +: WW],
  // credit [(t*4+d)*NV +: NV]. Management chain stage k at [k*PW +: PW].
  logic [NumTiles*4-1:0]      li_valid, lo_valid;
  logic [NumTiles*4*WW-1:0]   li_data, lo_data;
  logic [NumTiles*4*NV-1:0]   li_credit, lo_credit;
  logic [(NumTiles+1)*PW-1:0] chain;
  logic [NumTiles-1:0]               unused_tile;

  for (genvar y = 0; y < NumRows; y++) begin : g_row
    for (genvar x = 0; x < NumCols; x++) begin : g_col
      localparam int unsigned T = y * NumCols + x;
      // Serpentine position in the management chain.
      localparam int unsigned K = y * NumCols + ((y % 2 == 0) ? x : NumCols - 1 - x);

      logic        unused_n, unused_s;

      // North side.
      if (y > 0) begin : g_n
        assign li_valid[(T)*4+DN]  = lo_valid[(T-NumCols)*4+DS];
        assign li_data[((T)*4+DN)*WW +: WW]   = lo_data[((T-NumCols)*4+DS)*WW +: WW];
        assign lo_credit[((T)*4+DN)*NV +: NV] = li_credit[((T-NumCols)*4+DS)*NV +: NV];
        assign unused_n = 1'b0;
      end else begin : g_n_edge
        // Nothing arrives; what is sent off the edge is absorbed at once
        // (credit returned) and shows in CNT_FWD of that port.
        assign li_valid[(T)*4+DN] = 1'b0;
        assign li_data[((T)*4+DN)*WW +: WW]  = '0;
        for (genvar v = 0; v < NV; v++) begin : g_sink
          assign lo_credit[((T)*4+DN)*NV + v] = lo_valid[(T)*4+DN] &&
            (32'(ColorVcMap[32'(lo_data[((T)*4+DN)*WW + CL +: CW])*VcW +: VcW]) == v);
        end
        assign unused_n = ^{li_credit[((T)*4+DN)*NV +: NV], lo_data[((T)*4+DN)*WW +: WW]};
      end
      // South side.
      if (y < NumRows - 1) begin : g_s
        assign li_valid[(T)*4+DS]  = lo_valid[(T+NumCols)*4+DN];
        assign li_data[((T)*4+DS)*WW +: WW]   = lo_data[((T+NumCols)*4+DN)*WW +: WW];
        assign lo_credit[((T)*4+DS)*NV +: NV] = li_credit[((T+NumCols)*4+DN)*NV +: NV];
        assign unused_s = 1'b0;
      end else begin : g_s_edge
        assign li_valid[(T)*4+DS] = 1'b0;
        assign li_data[((T)*4+DS)*WW +: WW]  = '0;
        for (genvar v = 0; v < NV; v++) begin : g_sink
          assign lo_credit[((T)*4+DS)*NV + v] = lo_valid[(T)*4+DS] &&
            (32'(ColorVcMap[32'(lo_data[((T)*4+DS)*WW + CL +: CW])*VcW +: VcW]) == v);
        end
        assign unused_s = ^{li_credit[((T)*4+DS)*NV +: NV], lo_data[((T)*4+DS)*WW +: WW]};
      end
      // West side.
      if (x > 0) begin : g_w
        assign li_valid[(T)*4+DWs]  = lo_valid[(T-1)*4+DE];
        assign li_data[((T)*4+DWs)*WW +: WW]   = lo_data[((T-1)*4+DE)*WW +: WW];
        assign lo_credit[((T)*4+DWs)*NV +: NV] = li_credit[((T-1)*4+DE)*NV +: NV];
      end else begin : g_w_edge
        assign li_valid[(T)*4+DWs]             = west_in_valid_i[y];
        assign li_data[((T)*4+DWs)*WW +: WW]              = west_in_data_i[y*WW +: WW];
        assign west_in_credit_o[y*NV +: NV] = li_credit[((T)*4+DWs)*NV +: NV];
        assign west_out_valid_o[y]          = lo_valid[(T)*4+DWs];
        assign west_out_data_o[y*WW +: WW]  = lo_data[((T)*4+DWs)*WW +: WW];
        assign lo_credit[((T)*4+DWs)*NV +: NV]            = west_out_credit_i[y*NV +: NV];
      end
      // East side.
      if (x < NumCols - 1) begin : g_e
        assign li_valid[(T)*4+DE]  = lo_valid[(T+1)*4+DWs];
        assign li_data[((T)*4+DE)*WW +: WW]   = lo_data[((T+1)*4+DWs)*WW +: WW];
        assign lo_credit[((T)*4+DE)*NV +: NV] = li_credit[((T+1)*4+DWs)*NV +: NV];
      end else begin : g_e_edge
        assign li_valid[(T)*4+DE]              = east_in_valid_i[y];
        assign li_data[((T)*4+DE)*WW +: WW]               = east_in_data_i[y*WW +: WW];
        assign east_in_credit_o[y*NV +: NV] = li_credit[((T)*4+DE)*NV +: NV];
        assign east_out_valid_o[y]          = lo_valid[(T)*4+DE];
        assign east_out_data_o[y*WW +: WW]  = lo_data[((T)*4+DE)*WW +: WW];
        assign lo_credit[((T)*4+DE)*NV +: NV]             = east_out_credit_i[y*NV +: NV];
      end

      wse_tile #(
        .NumVc          (NumVc),
        .VcW            (VcW),
        .VcDepth        (VcDepth),
        .RampColorDepth (RampColorDepth),
        .ColorVcMap     (ColorVcMap),
        .ImemBytes      (ImemBytes),
        .DmemBytes      (DmemBytes),
        .DmemBanks      (DmemBanks)
      ) u_tile (
        .clk_i             (clk_i),
        .rst_ni            (rst_n),
        .x_i               (wse_pkg::CoordW'(x)),
        .y_i               (wse_pkg::CoordW'(y)),
        .link_in_valid_i   (li_valid[T*4 +: 4]),
        .link_in_data_i    (li_data[T*4*WW +: 4*WW]),
        .link_in_credit_o  (li_credit[T*4*NV +: 4*NV]),
        .link_out_valid_o  (lo_valid[T*4 +: 4]),
        .link_out_data_o   (lo_data[T*4*WW +: 4*WW]),
        .link_out_credit_i (lo_credit[T*4*NV +: 4*NV]),
        .mgmt_chain_i      (chain[K*PW +: PW]),
        .mgmt_chain_o      (chain[(K+1)*PW +: PW]),
        .putc_valid_o      (putc_valid_o[T]),
        .putc_char_o       (putc_char_o[T*8 +: 8]),
        .putc_ready_i      (putc_ready_i[T]),
        .exit_valid_o      (exit_valid_o[T]),
        .exit_value_o      (exit_value_o[T*32 +: 32]),
        .halted_o          (halted_o[T]),
        .retire_o          (retire_o[T])
      );
      assign unused_tile[T] = ^{unused_n, unused_s};
    end
  end

  wse_mgmt_port u_mgmt_port (
    .clk_i       (clk_i),
    .rst_ni      (rst_n),
    .req_valid_i (mgmt_req_valid_i),
    .req_ready_o (mgmt_req_ready_o),
    .req_write_i (mgmt_req_write_i),
    .req_bcast_i (mgmt_req_bcast_i),
    .req_x_i     (mgmt_req_x_i),
    .req_y_i     (mgmt_req_y_i),
    .req_addr_i  (mgmt_req_addr_i),
    .req_wdata_i (mgmt_req_wdata_i),
    .rsp_valid_o (mgmt_rsp_valid_o),
    .rsp_rdata_o (mgmt_rsp_rdata_o),
    .rsp_err_o   (mgmt_rsp_err_o),
    .chain_o     (chain[0 +: PW]),
    .chain_i     (chain[NumTiles*PW +: PW])
  );
endmodule
