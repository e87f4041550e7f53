// Instruction memory of a tile: one prim_ram_1p, shared by the core's fetch
// and the management port (which has priority and is used while the core
// is halted). Read data one cycle after the grant.
module wse_pe_imem #(
  parameter int unsigned ImemBytes = wse_cfg_pkg::ImemBytes,
  localparam int unsigned Depth = ImemBytes / 4,
  localparam int unsigned AW = $clog2(Depth)
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  // Management port (word address within IMEM)
  input  logic          host_req_i,
  input  logic          host_we_i,
  input  logic [AW-1:0] host_addr_i,
  input  logic [3:0]    host_be_i,
  input  logic [31:0]   host_wdata_i,
  output logic          host_gnt_o,
  output logic          host_rvalid_o,
  output logic [31:0]   host_rdata_o,
  // Fetch port
  input  logic          fetch_req_i,
  input  logic [AW-1:0] fetch_addr_i,
  output logic          fetch_gnt_o,
  output logic [31:0]   fetch_rdata_o
);
  logic          ram_req, ram_we;
  logic [AW-1:0] ram_addr;
  logic [31:0]   ram_rdata;
  logic          host_rvalid_q, host_rvalid_d;

  always_comb begin
    host_gnt_o  = host_req_i;
    fetch_gnt_o = fetch_req_i && !host_req_i;
    ram_req     = host_req_i || fetch_req_i;
    ram_we      = host_req_i && host_we_i;
    ram_addr    = host_req_i ? host_addr_i : fetch_addr_i;
    host_rvalid_d = host_req_i && !host_we_i;
  end

  prim_ram_1p #(
    .Width (32),
    .Depth (Depth)
  ) u_ram (
    .clk_i   (clk_i),
    .req_i   (ram_req),
    .we_i    (ram_we),
    .addr_i  (ram_addr),
    .wdata_i (host_wdata_i),
    .be_i    (host_be_i),
    .rdata_o (ram_rdata)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) host_rvalid_q <= 1'b0;
    else         host_rvalid_q <= host_rvalid_d;
  end

  assign host_rvalid_o = host_rvalid_q;
  assign host_rdata_o  = ram_rdata;
  assign fetch_rdata_o = ram_rdata;
endmodule
