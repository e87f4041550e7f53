// Two-port synchronous RAM leaf: one write port and one read port, each
// usable every cycle; read data one cycle later. Reading the address being
// written returns the old contents. Infers FPGA block RAM.
module prim_ram_2p #(
  parameter int unsigned Width = 32,
  parameter int unsigned Depth = 1024,
  parameter int unsigned AddrW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic             clk_i,
  input  logic             we_i,
  input  logic [AddrW-1:0] waddr_i,
  input  logic [Width-1:0] wdata_i,
  input  logic [Width-1:0] wmask_i,
  input  logic             re_i,
  input  logic [AddrW-1:0] raddr_i,
  output logic [Width-1:0] rdata_o
);
  logic [Width-1:0] mem [Depth];

  // Bit-enable write as one write per bit, not a read-modify-write of the
  // word: reading mem here would be an asynchronous read port, which no
  // block RAM has, and synthesis would build the array from flip-flops.
  always_ff @(posedge clk_i) begin
    for (int i = 0; i < Width; i++) begin
      if (we_i && wmask_i[i]) mem[waddr_i][i] <= wdata_i[i];
    end
  end

  always_ff @(posedge clk_i) begin
    if (re_i) rdata_o <= mem[raddr_i];
  end
endmodule
