// Formal harness of prim_ram_1r1w: every input free; the RAM's own
// assertions (a written address keeps its last value, a read returns it)
// are the properties.
module ram_fv #(
  parameter int unsigned Depth = 4,
  // Derived; do not override.
  parameter int unsigned AddrW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input logic             clk_i,
  input logic             we_i,
  input logic [AddrW-1:0] waddr_i,
  input logic [7:0]       wdata_i,
  input logic [AddrW-1:0] raddr_i
);
  logic [7:0] rdata;

  prim_ram_1r1w #(
    .Width (8),
    .Depth (Depth)
  ) u_dut (
    .clk_i   (clk_i),
    .we_i    (we_i),
    .waddr_i (waddr_i),
    .wdata_i (wdata_i),
    .raddr_i (raddr_i),
    .rdata_o (rdata)
  );

  // Addresses in range (a FIFO's pointers are; FifoPtrsInRange).
  always @(*) begin
    assume (32'(waddr_i) < Depth);
    assume (32'(raddr_i) < Depth);
  end
endmodule
