// Register-file leaf: prim_ram_nr1w (one write port, NumRd asynchronous
// read ports, one distributed-RAM copy per read port) with a "written" bit
// per entry, so that every entry reads 0 from reset until it is first
// written, as a file of flip-flops cleared by reset would. Only the Depth
// written bits are flip-flops: a RAM cannot be cleared in one cycle.
// Reading the entry being written returns the old contents. Read port r is
// raddr_i[r*AddrW +: AddrW], rdata_o[r*Width +: Width].
module prim_ram_1wnr #(
  parameter int unsigned Width = 32,
  parameter int unsigned Depth = 32,
  parameter int unsigned NumRd = 2,
  // Derived; do not override.
  parameter int unsigned AddrW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   we_i,
  input  logic [AddrW-1:0]       waddr_i,
  input  logic [Width-1:0]       wdata_i,
  input  logic [NumRd*AddrW-1:0] raddr_i,
  output logic [NumRd*Width-1:0] rdata_o
);
  logic [NumRd*Width-1:0] ram_rdata;
  logic [Depth-1:0]       written_q, written_d;

  prim_ram_nr1w #(
    .Width(Width),
    .Depth(Depth),
    .NumRd(NumRd)
  ) u_ram (
    .clk_i  (clk_i),
    .we_i   (we_i),
    .waddr_i(waddr_i),
    .wdata_i(wdata_i),
    .raddr_i(raddr_i),
    .rdata_o(ram_rdata)
  );

  always_comb begin
    written_d = written_q;
    if (we_i) written_d[waddr_i] = 1'b1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) written_q <= '0;
    else         written_q <= written_d;
  end

  always_comb begin
    for (int unsigned r = 0; r < NumRd; r++) begin
      rdata_o[r*Width +: Width] = written_q[raddr_i[r*AddrW +: AddrW]] ?
                                  ram_rdata[r*Width +: Width] : '0;
    end
  end
endmodule
