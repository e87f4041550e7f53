// Integer register file of the tile core: 31 registers (x0 reads 0), two
// combinational read ports and one write port. The words are in a
// prim_ram_1wnr (distributed RAM on ECP5); every register reads 0 from
// reset until it is written, as a file of flip-flops cleared by reset would.
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
  // x0 is never written, so it keeps reading 0.
  logic rf_we;
  assign rf_we = we_i && (waddr_i != 5'd0);

  prim_ram_1wnr #(
    .Width (32),
    .Depth (32),
    .NumRd (2)
  ) u_ram (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (rf_we),
    .waddr_i (waddr_i),
    .wdata_i (wdata_i),
    .raddr_i ({raddr_b_i, raddr_a_i}),
    .rdata_o ({rdata_b_o, rdata_a_o})
  );
endmodule
