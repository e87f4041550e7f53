// Mesh-edge port of the management network: takes one request at a time
// (valid/ready), sends it down the chain of tile nodes and returns the
// response that comes out of the chain's end. See docs/management.md.
`include "prim_assert.svh"

module wse_mgmt_port (
  input  logic                          clk_i,
  input  logic                          rst_ni,

  input  logic                          req_valid_i,
  output logic                          req_ready_o,
  input  logic                          req_write_i,
  input  logic                          req_bcast_i,
  input  logic [wse_pkg::CoordW-1:0]    req_x_i,
  input  logic [wse_pkg::CoordW-1:0]    req_y_i,
  input  logic [31:0]                   req_addr_i,
  input  logic [31:0]                   req_wdata_i,
  output logic                          rsp_valid_o,
  output logic [31:0]                   rsp_rdata_o,
  output logic                          rsp_err_o,

  output logic [wse_mgmt_pkg::PktW-1:0] chain_o,   // to the first node
  input  logic [wse_mgmt_pkg::PktW-1:0] chain_i    // from the last node
);
  localparam int unsigned PktW = wse_mgmt_pkg::PktW;
  localparam int unsigned CW   = wse_pkg::CoordW;

  logic            busy_q, busy_d;
  logic [PktW-1:0] out_q, out_d;
  logic            rsp_valid_q, rsp_valid_d, rsp_err_q, rsp_err_d;
  logic [31:0]     rsp_rdata_q, rsp_rdata_d;
  logic            accept, back_valid, back_rsp, back_bcast, back_err;

  assign accept     = req_valid_i && !busy_q;
  assign back_valid = chain_i[wse_mgmt_pkg::PktValid];
  assign back_rsp   = chain_i[wse_mgmt_pkg::PktRsp];
  assign back_bcast = chain_i[wse_mgmt_pkg::PktBcast];
  assign back_err   = chain_i[wse_mgmt_pkg::PktErr];

  always_comb begin
    busy_d      = busy_q;
    out_d       = '0;
    rsp_valid_d = 1'b0;
    rsp_rdata_d = rsp_rdata_q;
    rsp_err_d   = rsp_err_q;
    if (accept) begin
      busy_d = 1'b1;
      out_d[wse_mgmt_pkg::PktValid]      = 1'b1;
      out_d[wse_mgmt_pkg::PktWrite]      = req_write_i;
      out_d[wse_mgmt_pkg::PktBcast]      = req_bcast_i;
      out_d[wse_mgmt_pkg::PktX +: CW]    = req_x_i;
      out_d[wse_mgmt_pkg::PktY +: CW]    = req_y_i;
      out_d[wse_mgmt_pkg::PktAddr +: 32] = req_addr_i;
      out_d[wse_mgmt_pkg::PktData +: 32] = req_wdata_i;
    end
    if (back_valid) begin
      busy_d      = 1'b0;
      rsp_valid_d = 1'b1;
      // A unicast request that comes back unanswered found no such tile.
      rsp_rdata_d = back_rsp ? chain_i[wse_mgmt_pkg::PktData +: 32] : '0;
      rsp_err_d   = back_rsp ? back_err : (back_bcast ? back_err : 1'b1);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q      <= 1'b0;
      out_q       <= '0;
      rsp_valid_q <= 1'b0;
      rsp_rdata_q <= '0;
      rsp_err_q   <= 1'b0;
    end else begin
      busy_q      <= busy_d;
      out_q       <= out_d;
      rsp_valid_q <= rsp_valid_d;
      rsp_rdata_q <= rsp_rdata_d;
      rsp_err_q   <= rsp_err_d;
    end
  end

  assign req_ready_o = !busy_q;
  assign chain_o     = out_q;
  assign rsp_valid_o = rsp_valid_q;
  assign rsp_rdata_o = rsp_rdata_q;
  assign rsp_err_o   = rsp_err_q;

  // Assertions
  // Valid/ready: a request not yet accepted stays, unchanged.
  `ASSERT_NEXT(MgmtReqStable, req_valid_i && !req_ready_o,
               req_valid_i && $stable({req_write_i, req_bcast_i, req_x_i,
                                       req_y_i, req_addr_i, req_wdata_i}))
  `ASSERT(MgmtNoStrayPacket, !(back_valid && !busy_q))
  `ASSERT_KNOWN(MgmtRspValidKnown, rsp_valid_o)
  `ASSERT_KNOWN(MgmtReqValidKnown, req_valid_i)
endmodule
