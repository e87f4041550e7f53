// Distributed-RAM leaf with several read ports: one write port, written at
// the clock edge, and NumRd asynchronous read ports, each returning the word
// at its own address in the same cycle. A LUT RAM has one read port, so each
// read port has its own copy of the contents, all written together: ECP5
// maps every copy to TRELLIS_DPR16X4 (16 x 4 each). Reading the address being
// written returns the old contents. No reset: contents are undefined until
// written. prim_ram_1r1w is the one-read-port form.
module prim_ram_nr1w #(
  parameter int unsigned Width = 32,
  parameter int unsigned Depth = 16,
  parameter int unsigned NumRd = 2,
  // Derived; do not override.
  parameter int unsigned AddrW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic                   clk_i,
  input  logic                   we_i,
  input  logic [AddrW-1:0]       waddr_i,
  input  logic [Width-1:0]       wdata_i,
  input  logic [NumRd*AddrW-1:0] raddr_i,  // port r at [r*AddrW +: AddrW]
  output logic [NumRd*Width-1:0] rdata_o   // port r at [r*Width +: Width]
);
  for (genvar r = 0; r < NumRd; r++) begin : g_copy
    logic [Width-1:0] mem_q [Depth];

    always_ff @(posedge clk_i) begin
      if (we_i) mem_q[waddr_i] <= wdata_i;
    end

    assign rdata_o[r*Width +: Width] = mem_q[raddr_i[r*AddrW +: AddrW]];
  end
endmodule
