// Distributed-RAM leaf: one write port, written at the clock edge, and one
// asynchronous read port, whose data follows the read address in the same
// cycle. The storage of small queues whose head is read without a cycle of
// latency (prim_fifo_sync). ECP5 maps it to TRELLIS_DPR16X4 (16 x 4 each);
// iCE40 block RAM has no asynchronous read, so there and in generic
// synthesis it is flip-flops. Reading the address being written returns
// the old contents. prim_ram_2p is the block-RAM form (registered read).
module prim_ram_1r1w #(
  parameter int unsigned Width = 32,
  parameter int unsigned Depth = 16,
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

  always_ff @(posedge clk_i) begin
    if (we_i) mem_q[waddr_i] <= wdata_i;
  end

  assign rdata_o = mem_q[raddr_i];

`ifdef FORMAL
  // For the proofs (tests/fabric-rtl/formal): pick any address; once
  // written, it holds the last value written to it, and a read of it
  // returns that value. prim_fifo_sync's proof builds on RamReadData.
  (* anyconst *) logic [AddrW-1:0] f_addr;
  logic [Width-1:0] f_data_q;
  logic             f_written_q = 1'b0;

  always @(posedge clk_i) begin
    if (we_i && waddr_i == f_addr) begin
      f_data_q    <= wdata_i;
      f_written_q <= 1'b1;
    end
  end

  always @(posedge clk_i) begin
    RamAddrBounded: assume (32'(f_addr) < Depth);
    if (f_written_q) RamKept: assert (mem_q[f_addr] == f_data_q);
    if (f_written_q && raddr_i == f_addr) RamReadData: assert (rdata_o == f_data_q);
  end
`endif
endmodule
