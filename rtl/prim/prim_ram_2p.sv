// Two-port synchronous RAM leaf: one write port and one read port, each
// usable every cycle; read data one cycle later; writes byte by byte under a
// byte enable. Reading the address being written returns the old contents.
// Infers FPGA block RAM.
module prim_ram_2p #(
  parameter int unsigned Width = 32,  // a multiple of 8
  parameter int unsigned Depth = 1024,
  // Derived; do not override.
  parameter int unsigned AddrW = (Depth > 1) ? $clog2(Depth) : 1,
  parameter int unsigned NumBytes = Width / 8
) (
  input  logic                clk_i,
  input  logic                we_i,
  input  logic [AddrW-1:0]    waddr_i,
  input  logic [Width-1:0]    wdata_i,
  input  logic [NumBytes-1:0] be_i,  // byte i is wdata_i[8*i +: 8]
  input  logic                re_i,
  input  logic [AddrW-1:0]    raddr_i,
  output logic [Width-1:0]    rdata_o
);
  logic [Width-1:0] mem [Depth];

  // One write per byte, not a read-modify-write of the word: reading mem
  // here would be an asynchronous read port, which no block RAM has, and
  // synthesis would build the array from flip-flops. Per-byte writes map to
  // the byte enables of a DP16KD; per-bit writes would not (it has no bit
  // enables) and would take one block per bit.
  always_ff @(posedge clk_i) begin
    for (int i = 0; i < NumBytes; i++) begin
      if (we_i && be_i[i]) mem[waddr_i][8*i +: 8] <= wdata_i[8*i +: 8];
    end
  end

  always_ff @(posedge clk_i) begin
    if (re_i) rdata_o <= mem[raddr_i];
  end
endmodule
