// Single-port synchronous RAM leaf: one read or write per cycle, read data
// one cycle later, writes byte by byte under a byte enable. Written so that
// FPGA tools infer block RAM; with prim_ram_2p the only place in the design
// where block-RAM arrays live.
module prim_ram_1p #(
  parameter int unsigned Width = 32,  // a multiple of 8
  parameter int unsigned Depth = 1024,
  // Derived; do not override.
  parameter int unsigned AddrW = (Depth > 1) ? $clog2(Depth) : 1,
  parameter int unsigned NumBytes = Width / 8
) (
  input  logic                clk_i,
  input  logic                req_i,
  input  logic                we_i,
  input  logic [AddrW-1:0]    addr_i,
  input  logic [Width-1:0]    wdata_i,
  input  logic [NumBytes-1:0] be_i,  // byte i is wdata_i[8*i +: 8]
  output logic [Width-1:0]    rdata_o
);
  logic [Width-1:0] mem [Depth];

  // No reset: RAM contents are undefined until written, as in silicon.
  // One write per byte, as in prim_ram_2p (which says why).
  always_ff @(posedge clk_i) begin
    for (int i = 0; i < NumBytes; i++) begin
      if (req_i && we_i && be_i[i]) mem[addr_i][8*i +: 8] <= wdata_i[8*i +: 8];
    end
  end

  always_ff @(posedge clk_i) begin
    if (req_i && !we_i) rdata_o <= mem[addr_i];
  end
endmodule
