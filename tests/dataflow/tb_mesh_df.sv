// Simulation top for multi-tile dataflow programs: the fabric mesh with a
// dataflow PE on every tile's RAMP. The harness (tb_mesh_df.cpp) loads each
// PE through its memory port, writes route tables through the mesh's
// management port and releases the cores. Edge outlets are absorbed.
module tb_mesh_df #(
  parameter int unsigned NumCols = wse_cfg_pkg::NumCols,
  parameter int unsigned NumRows = wse_cfg_pkg::NumRows,
  parameter int unsigned NumVc   = wse_cfg_pkg::NumVc,
  parameter int unsigned VcW     = wse_cfg_pkg::VcW,
  localparam int unsigned T = NumCols * NumRows
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             halt_i,
  // Memory port of tile mem_tile_i
  input  logic [7:0]       mem_tile_i,
  input  logic             mem_req_i,
  input  logic             mem_we_i,
  input  logic [31:0]      mem_addr_i,
  input  logic [31:0]      mem_wdata_i,
  output logic             mem_gnt_o,
  output logic             mem_rvalid_o,
  output logic [31:0]      mem_rdata_o,
  // Management port of the mesh
  input  logic             mgmt_req_valid_i,
  output logic             mgmt_req_ready_o,
  input  logic             mgmt_req_write_i,
  input  logic [7:0]       mgmt_req_x_i,
  input  logic [7:0]       mgmt_req_y_i,
  input  logic [31:0]      mgmt_req_addr_i,
  input  logic [31:0]      mgmt_req_wdata_i,
  output logic             mgmt_rsp_valid_o,
  output logic             mgmt_rsp_err_o,
  // Per tile
  output logic [T-1:0]     halted_o,
  output logic [T-1:0]     exit_valid_o,
  output logic [T*32-1:0]  exit_value_o,
  output logic [T-1:0]     putc_valid_o,
  output logic [T*8-1:0]   putc_char_o
);
  logic [T-1:0]        rin_valid, rout_valid;
  logic [T*38-1:0]     rin_data, rout_data;
  logic [T*NumVc-1:0]  rin_credit;
  logic [T*32-1:0]     rout_credit;
  logic [NumRows-1:0]  wo_valid, eo_valid;
  logic [NumRows*38-1:0] wo_data, eo_data;
  logic [NumRows*NumVc-1:0] wo_cred_q, eo_cred_q;
  logic [T-1:0]        tile_halt, tile_core_rst;
  logic [31:0]         unused_rdata;

  wse_fabric_mesh u_mesh (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .ramp_in_valid_i   (rin_valid),
    .ramp_in_data_i    (rin_data),
    .ramp_in_credit_o  (rin_credit),
    .ramp_out_valid_o  (rout_valid),
    .ramp_out_data_o   (rout_data),
    .ramp_out_credit_i (rout_credit),
    .west_in_valid_i   ('0),
    .west_in_data_i    ('0),
    .west_in_credit_o  (),
    .west_out_valid_o  (wo_valid),
    .west_out_data_o   (wo_data),
    .west_out_credit_i (wo_cred_q),
    .east_in_valid_i   ('0),
    .east_in_data_i    ('0),
    .east_in_credit_o  (),
    .east_out_valid_o  (eo_valid),
    .east_out_data_o   (eo_data),
    .east_out_credit_i (eo_cred_q),
    .mgmt_req_valid_i  (mgmt_req_valid_i),
    .mgmt_req_ready_o  (mgmt_req_ready_o),
    .mgmt_req_write_i  (mgmt_req_write_i),
    .mgmt_req_bcast_i  (1'b0),
    .mgmt_req_x_i      (mgmt_req_x_i),
    .mgmt_req_y_i      (mgmt_req_y_i),
    .mgmt_req_addr_i   (mgmt_req_addr_i),
    .mgmt_req_wdata_i  (mgmt_req_wdata_i),
    .mgmt_rsp_valid_o  (mgmt_rsp_valid_o),
    .mgmt_rsp_rdata_o  (unused_rdata),
    .mgmt_rsp_err_o    (mgmt_rsp_err_o),
    .tile_halt_o       (tile_halt),
    .tile_core_rst_o   (tile_core_rst)
  );

  // Outlets: absorbed, one credit back per wavelet.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wo_cred_q <= '0;
      eo_cred_q <= '0;
    end else begin
      for (int y = 0; y < NumRows; y++) begin
        for (int v = 0; v < NumVc; v++) begin
          wo_cred_q[y*NumVc + v] <= wo_valid[y] &&
            (int'(wse_cfg_pkg::ColorVcMap[int'(wo_data[y*38 + 32 +: 5])*VcW +: VcW]) == v);
          eo_cred_q[y*NumVc + v] <= eo_valid[y] &&
            (int'(wse_cfg_pkg::ColorVcMap[int'(eo_data[y*38 + 32 +: 5])*VcW +: VcW]) == v);
        end
      end
    end
  end

  logic [T-1:0]    gnt, rvalid;
  logic [T*32-1:0] rdata;
  for (genvar t = 0; t < T; t++) begin : gen_pe
    logic unused_err, unused_csr_err, unused_retire, unused_done;
    logic [31:0] unused_csr, unused_code;
    wse_pe u_pe (
      .clk_i            (clk_i),
      .rst_ni           (rst_ni),
      .core_rst_i       (1'b0),
      .x_i              (8'(t % NumCols)),
      .y_i              (8'(t / NumCols)),
      .halt_req_i       (halt_i),
      .halted_o         (halted_o[t]),
      .mem_req_i        (mem_req_i && mem_tile_i == 8'(t)),
      .mem_we_i         (mem_we_i),
      .mem_addr_i       (mem_addr_i),
      .mem_wdata_i      (mem_wdata_i),
      .mem_gnt_o        (gnt[t]),
      .mem_err_o        (unused_err),
      .mem_rvalid_o     (rvalid[t]),
      .mem_rdata_o      (rdata[t*32 +: 32]),
      .csr_req_i        (1'b0),
      .csr_we_i         (1'b0),
      .csr_addr_i       ('0),
      .csr_wdata_i      ('0),
      .csr_rdata_o      (unused_csr),
      .csr_err_o        (unused_csr_err),
      .exit_valid_o     (exit_valid_o[t]),
      .exit_value_o     (exit_value_o[t*32 +: 32]),
      .putc_valid_o     (putc_valid_o[t]),
      .putc_char_o      (putc_char_o[t*8 +: 8]),
      .putc_ready_i     (1'b1),
      .done_o           (unused_done),
      .exit_code_o      (unused_code),
      .retire_o         (unused_retire),
      .fab_in_valid_i   (rout_valid[t]),
      .fab_in_data_i    (rout_data[t*38 +: 38]),
      .fab_in_credit_o  (rout_credit[t*32 +: 32]),
      .fab_out_valid_o  (rin_valid[t]),
      .fab_out_data_o   (rin_data[t*38 +: 38]),
      .fab_out_credit_i (rin_credit[t*NumVc +: NumVc])
    );
  end
  assign mem_gnt_o    = |gnt;
  assign mem_rvalid_o = |rvalid;
  always_comb begin
    mem_rdata_o = '0;
    for (int t = 0; t < T; t++) if (rvalid[t]) mem_rdata_o = rdata[t*32 +: 32];
  end
endmodule
