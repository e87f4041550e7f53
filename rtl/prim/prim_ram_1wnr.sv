// Register-file leaf: one write port, written at the clock edge, and NumRd
// asynchronous read ports whose data follow their addresses in the same
// cycle. Every entry reads 0 from reset until it is first written, as a
// file of flip-flops cleared by reset would, but the words themselves are
// in distributed RAM: ECP5 maps the array to TRELLIS_DPR16X4, one copy per
// read port (a DPR16X4 has one read port), and only the Depth "written"
// bits are flip-flops. Reading the entry being written returns the old
// contents. Read port r is raddr_i[r*AddrW +: AddrW], rdata_o[r*Width +: Width].
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
  // No reset on the words: a RAM cannot be cleared in one cycle. The
  // written bits stand in for the reset of the contents.
  logic [Width-1:0] mem_q [Depth];
  logic [Depth-1:0] written_q, written_d;

  always_comb begin
    written_d = written_q;
    if (we_i) written_d[waddr_i] = 1'b1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) written_q <= '0;
    else         written_q <= written_d;
  end

  always_ff @(posedge clk_i) begin
    if (we_i) mem_q[waddr_i] <= wdata_i;
  end

  always_comb begin
    for (int unsigned r = 0; r < NumRd; r++) begin
      rdata_o[r*Width +: Width] = written_q[raddr_i[r*AddrW +: AddrW]] ?
                                  mem_q[raddr_i[r*AddrW +: AddrW]] : '0;
    end
  end
endmodule
