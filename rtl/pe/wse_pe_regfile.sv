// Integer register file of the tile core: 31 flop registers (x0 reads 0),
// two combinational read ports and one write port.
module wse_pe_regfile (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [4:0]  raddr_a_i,
  output logic [31:0] rdata_a_o,
  input  logic [4:0]  raddr_b_i,
  output logic [31:0] rdata_b_o,
  input  logic        we_i,
  input  logic [4:0]  waddr_i,
  input  logic [31:0] wdata_i
);
  logic [31:0] rf_q [32];
  logic [31:0] rf_d [32];

  always_comb begin
    for (int i = 0; i < 32; i++) rf_d[i] = rf_q[i];
    if (we_i && waddr_i != 5'd0) rf_d[waddr_i] = wdata_i;
    rf_d[0] = 32'd0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int i = 0; i < 32; i++) rf_q[i] <= 32'd0;
    end else begin
      for (int i = 0; i < 32; i++) rf_q[i] <= rf_d[i];
    end
  end

  assign rdata_a_o = rf_q[raddr_a_i];
  assign rdata_b_o = rf_q[raddr_b_i];
endmodule
