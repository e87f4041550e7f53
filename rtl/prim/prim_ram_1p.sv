// Single-port synchronous RAM leaf: one read or write per cycle, read data
// one cycle later. Written so that FPGA tools infer block RAM; the only
// place in the design where memory arrays live (with prim_ram_2p).
module prim_ram_1p #(
  parameter int unsigned Width = 32,
  parameter int unsigned Depth = 1024,
  parameter int unsigned AddrW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic             clk_i,
  input  logic             req_i,
  input  logic             we_i,
  input  logic [AddrW-1:0] addr_i,
  input  logic [Width-1:0] wdata_i,
  input  logic [Width-1:0] wmask_i,  // bit-enable for writes
  output logic [Width-1:0] rdata_o
);
  logic [Width-1:0] mem [Depth];

  // No reset: RAM contents are undefined until written, as in silicon.
  // Bit-enable write as one write per bit (see prim_ram_2p: a
  // read-modify-write of the word would keep the array out of block RAM).
  always_ff @(posedge clk_i) begin
    for (int i = 0; i < Width; i++) begin
      if (req_i && we_i && wmask_i[i]) mem[addr_i][i] <= wdata_i[i];
    end
  end

  always_ff @(posedge clk_i) begin
    if (req_i && !we_i) rdata_o <= mem[addr_i];
  end
endmodule
