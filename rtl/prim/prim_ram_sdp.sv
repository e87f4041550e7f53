// Simple dual-port block-RAM leaf: one write port that writes whole words,
// one read port whose data comes a clock after its address (registered
// read). Whole-word writes, not the bit enables of prim_ram_2p, because a
// DP16KD has no bit enables: with them Yosys gives each bit its own block.
// A wider word that needs partial writes is built from several of these,
// one per part. ECP5 maps it to DP16KD, iCE40 to SB_RAM40_4K. Reading the
// address being written returns the old contents (read-first); the read
// port always reads, so a user that needs the data of an address in cycle
// t presents that address in cycle t - 1.
module prim_ram_sdp #(
  parameter int unsigned Width = 32,
  parameter int unsigned Depth = 1024,
  // Derived; do not override.
  parameter int unsigned AddrW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic             clk_i,
  input  logic             we_i,
  input  logic [AddrW-1:0] waddr_i,
  input  logic [Width-1:0] wdata_i,
  input  logic [AddrW-1:0] raddr_i,
  output logic [Width-1:0] rdata_o
);
  // No reset: contents are undefined until written, as in the RAM cells.
  logic [Width-1:0] mem_q [Depth];
  logic [Width-1:0] rdata_q;

  always_ff @(posedge clk_i) begin
    if (we_i) mem_q[waddr_i] <= wdata_i;
  end

  // The block RAM's output register; a reset would keep it out of the RAM.
  always_ff @(posedge clk_i) begin
    rdata_q <= mem_q[raddr_i];
  end

  assign rdata_o = rdata_q;
endmodule
