// Management port across the clocks: the executor's requests (link clock)
// reach the mesh's management port (mesh clock), and its one-cycle
// responses come back. The executor has at most one request waiting for
// its response, plus those it has given up on (time-out, at most two), so
// a response queue of four never overflows.
`include "prim_assert.svh"

module hif_mgmt_cdc #(
  localparam int unsigned CW = wse_pkg::CoordW
) (
  // Link clock: the executor.
  input  logic          clk_link_i,
  input  logic          rst_link_ni,
  input  logic          req_valid_i,
  output logic          req_ready_o,
  input  logic          req_write_i,
  input  logic          req_bcast_i,
  input  logic [CW-1:0] req_x_i,
  input  logic [CW-1:0] req_y_i,
  input  logic [31:0]   req_addr_i,
  input  logic [31:0]   req_wdata_i,
  output logic          rsp_valid_o,   // one cycle per response
  output logic [31:0]   rsp_rdata_o,
  output logic          rsp_err_o,
  // Mesh clock: the management port.
  input  logic          clk_i,
  input  logic          rst_ni,
  output logic          req_valid_o,
  input  logic          req_ready_i,
  output logic          req_write_o,
  output logic          req_bcast_o,
  output logic [CW-1:0] req_x_o,
  output logic [CW-1:0] req_y_o,
  output logic [31:0]   req_addr_o,
  output logic [31:0]   req_wdata_o,
  input  logic          rsp_valid_i,
  input  logic [31:0]   rsp_rdata_i,
  input  logic          rsp_err_i,
  output logic          busy_o         // a request or response on its way (mesh clock)
);
  localparam int unsigned ReqW = 2 + 2 * CW + 64;

  logic [2:0] unused_wf_req, unused_rf_req, unused_wf_rsp, unused_rf_rsp;
  logic       rsp_wready;

  prim_fifo_async #(.Width(ReqW), .Depth(4)) u_req (
    .wclk_i(clk_link_i), .wrst_ni(rst_link_ni),
    .wvalid_i(req_valid_i), .wready_o(req_ready_o),
    .wdata_i({req_write_i, req_bcast_i, req_x_i, req_y_i, req_addr_i, req_wdata_i}),
    .wfill_o(unused_wf_req),
    .rclk_i(clk_i), .rrst_ni(rst_ni),
    .rvalid_o(req_valid_o), .rready_i(req_ready_i),
    .rdata_o({req_write_o, req_bcast_o, req_x_o, req_y_o, req_addr_o, req_wdata_o}),
    .rfill_o(unused_rf_req)
  );

  logic rsp_pending;
  prim_fifo_async #(.Width(33), .Depth(4)) u_rsp (
    .wclk_i(clk_i), .wrst_ni(rst_ni),
    .wvalid_i(rsp_valid_i), .wready_o(rsp_wready), .wdata_i({rsp_err_i, rsp_rdata_i}),
    .wfill_o(unused_wf_rsp),
    .rclk_i(clk_link_i), .rrst_ni(rst_link_ni),
    .rvalid_o(rsp_valid_o), .rready_i(1'b1), .rdata_o({rsp_err_o, rsp_rdata_o}),
    .rfill_o(unused_rf_rsp)
  );
  assign rsp_pending = (unused_wf_rsp != '0);
  assign busy_o = req_valid_o || rsp_pending;

  logic unused_mgmt_cdc;
  assign unused_mgmt_cdc = ^{unused_wf_req, unused_rf_req, unused_rf_rsp};

  // The mesh answers only what was asked, and the queue always has room.
  `ASSERT(RspNoOverflow, rsp_valid_i |-> rsp_wready, clk_i, rst_ni)
endmodule
