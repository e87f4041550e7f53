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
  always_ff @(posedge clk_i) begin
    if (req_i) begin
      if (we_i) mem[addr_i] <= (mem[addr_i] & ~wmask_i) | (wdata_i & wmask_i);
      else      rdata_o <= mem[addr_i];
    end
  end
endmodule
