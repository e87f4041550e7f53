// One tile of the mesh: the fabric part (router + management node) and the
// processing element (core, IMEM, banked DMEM). The management node's
// tile-side bus reaches the PE's CSRs (0x0001_0000 + 4*n) and memories (at
// the core's own addresses); halt and core reset come from TILE_CTRL. No PE
// software is involved in any of it. The PE's RAMP port is idle for now.
module wse_tile #(
  parameter int unsigned NumVc          = wse_cfg_pkg::NumVc,
  parameter int unsigned VcW            = wse_cfg_pkg::VcW,
  parameter int unsigned VcDepth        = wse_cfg_pkg::VcDepth,
  parameter int unsigned RampColorDepth = wse_cfg_pkg::RampColorDepth,
  parameter logic [wse_pkg::NumColors*VcW-1:0] ColorVcMap = wse_cfg_pkg::ColorVcMap,
  parameter int unsigned ImemBytes      = wse_cfg_pkg::ImemBytes,
  parameter int unsigned DmemBytes      = wse_cfg_pkg::DmemBytes,
  parameter int unsigned DmemBanks      = wse_cfg_pkg::DmemBanks
) (
  input  logic                               clk_i,
  input  logic                               rst_ni,
  input  logic [wse_pkg::CoordW-1:0]         x_i,
  input  logic [wse_pkg::CoordW-1:0]         y_i,

  // Links to the four neighbours (N, E, S, W), as in wse_fabric_tile.
  input  logic [3:0]                         link_in_valid_i,
  input  logic [4*wse_pkg::WaveletW-1:0]     link_in_data_i,
  output logic [4*NumVc-1:0]                 link_in_credit_o,
  output logic [3:0]                         link_out_valid_o,
  output logic [4*wse_pkg::WaveletW-1:0]     link_out_data_o,
  input  logic [4*NumVc-1:0]                 link_out_credit_i,

  // Management chain
  input  logic [wse_mgmt_pkg::PktW-1:0]      mgmt_chain_i,
  output logic [wse_mgmt_pkg::PktW-1:0]      mgmt_chain_o,

  // Console and end of program (simulation and debug visibility). A store
  // that prints waits while putc_ready_i is low.
  output logic                               putc_valid_o,
  output logic [7:0]                         putc_char_o,
  input  logic                               putc_ready_i,
  output logic                               exit_valid_o,
  output logic [31:0]                        exit_value_o,
  output logic                               halted_o,
  output logic                               retire_o
);
  // ---- Fabric part ----------------------------------------------------------------
  logic        halt, core_rst;
  logic [31:0] tile_status;
  logic        tbus_req, tbus_we, tbus_ack, tbus_err;
  logic [31:0] tbus_addr, tbus_wdata, tbus_rdata;
  logic [NumVc-1:0]              ramp_in_credit;
  logic                          ramp_out_valid;
  logic [wse_pkg::WaveletW-1:0]  ramp_out_data;
  logic                          ramp_in_valid;
  logic [wse_pkg::WaveletW-1:0]  ramp_in_data;
  logic [wse_pkg::NumColors-1:0] ramp_out_credit;

  wse_fabric_tile #(
    .NumVc          (NumVc),
    .VcW            (VcW),
    .VcDepth        (VcDepth),
    .RampColorDepth (RampColorDepth),
    .ColorVcMap     (ColorVcMap)
  ) u_fabric (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .x_i               (x_i),
    .y_i               (y_i),
    .link_in_valid_i   (link_in_valid_i),
    .link_in_data_i    (link_in_data_i),
    .link_in_credit_o  (link_in_credit_o),
    .link_out_valid_o  (link_out_valid_o),
    .link_out_data_o   (link_out_data_o),
    .link_out_credit_i (link_out_credit_i),
    // RAMP: the PE's fabric interface (docs/pe-programming.md).
    .ramp_in_valid_i   (ramp_in_valid),
    .ramp_in_data_i    (ramp_in_data),
    .ramp_in_credit_o  (ramp_in_credit),
    .ramp_out_valid_o  (ramp_out_valid),
    .ramp_out_data_o   (ramp_out_data),
    .ramp_out_credit_i (ramp_out_credit),
    .mgmt_chain_i      (mgmt_chain_i),
    .mgmt_chain_o      (mgmt_chain_o),
    .halt_o            (halt),
    .core_rst_o        (core_rst),
    .tile_status_i     (tile_status),
    .tbus_req_o        (tbus_req),
    .tbus_we_o         (tbus_we),
    .tbus_addr_o       (tbus_addr),
    .tbus_wdata_o      (tbus_wdata),
    .tbus_ack_i        (tbus_ack),
    .tbus_rdata_i      (tbus_rdata),
    .tbus_err_i        (tbus_err)
  );

  // ---- Tile-side bus to the PE ---------------------------------------------------------
  // 0x0001_0000 + 4*n: CSR n (n < 4096), answered at once.
  // ImemBase.. / DmemBase..: memory; a write is answered when granted, a read
  // when its data returns. Anything else: error.
  logic        is_csr, rd_pending_q, rd_pending_d;
  logic        mem_req, mem_gnt, mem_err, mem_rvalid;
  logic [31:0] mem_rdata, csr_rdata;
  logic        csr_err;

  assign is_csr  = (tbus_addr[31:14] == 18'h0_0004);  // 0x0001_0000 .. 0x0001_3FFC
  assign mem_req = tbus_req && !is_csr && !rd_pending_q;

  always_comb begin
    rd_pending_d = rd_pending_q;
    tbus_ack     = 1'b0;
    tbus_err     = 1'b0;
    tbus_rdata   = mem_rdata;
    if (tbus_req && is_csr) begin
      tbus_ack   = 1'b1;
      tbus_err   = csr_err || (tbus_addr[1:0] != 2'b00);
      tbus_rdata = csr_rdata;
    end else if (rd_pending_q) begin
      if (mem_rvalid) begin
        tbus_ack     = 1'b1;
        rd_pending_d = 1'b0;
      end
    end else if (mem_req && mem_gnt) begin
      if (mem_err || tbus_we) begin
        tbus_ack = 1'b1;
        tbus_err = mem_err;
      end else begin
        rd_pending_d = 1'b1;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) rd_pending_q <= 1'b0;
    else         rd_pending_q <= rd_pending_d;
  end

  // ---- Processing element --------------------------------------------------------------
  logic        done;
  logic [31:0] exit_code;

  wse_pe #(
    .ImemBytes (ImemBytes),
    .DmemBytes (DmemBytes),
    .DmemBanks (DmemBanks)
  ) u_pe (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .core_rst_i   (core_rst),
    .x_i          (x_i),
    .y_i          (y_i),
    .halt_req_i   (halt),
    .halted_o     (halted_o),
    .mem_req_i    (mem_req),
    .mem_we_i     (tbus_we),
    .mem_addr_i   ({tbus_addr[31:2], 2'b00}),
    .mem_wdata_i  (tbus_wdata),
    .mem_gnt_o    (mem_gnt),
    .mem_err_o    (mem_err),
    .mem_rvalid_o (mem_rvalid),
    .mem_rdata_o  (mem_rdata),
    .csr_req_i    (tbus_req && is_csr),
    .csr_we_i     (tbus_we),
    .csr_addr_i   (tbus_addr[13:2]),
    .csr_wdata_i  (tbus_wdata),
    .csr_rdata_o  (csr_rdata),
    .csr_err_o    (csr_err),
    .exit_valid_o (exit_valid_o),
    .exit_value_o (exit_value_o),
    .putc_valid_o (putc_valid_o),
    .putc_char_o  (putc_char_o),
    .putc_ready_i (putc_ready_i),
    .done_o       (done),
    .exit_code_o  (exit_code),
    .retire_o     (retire_o),
    .fab_in_valid_i   (ramp_out_valid),
    .fab_in_data_i    (ramp_out_data),
    .fab_in_credit_o  (ramp_out_credit),
    .fab_out_valid_o  (ramp_in_valid),
    .fab_out_data_o   (ramp_in_data),
    .fab_out_credit_i (ramp_in_credit)
  );

  // TILE_STATUS: [0] halted, [1] program ended (tohost), [2] it failed,
  // [31:16] its failure code (low 16 bits).
  assign tile_status = {exit_code[16:1], 13'd0, done && exit_code != 32'd1, done, halted_o};
endmodule
