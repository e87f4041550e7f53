// Synchronous FIFO: the input buffer of one router port and virtual channel.
// Read data is the head entry, valid while !empty_o (first-word fall-through).
// The entries live in a prim_ram_1r1w (asynchronous read: the head is read
// in the cycle it is needed); this module keeps the pointers and the count.
// Flow control is the user's job (credits): a push when full or a pop when
// empty is a design error, caught by the assertions at the end.
`include "prim_assert.svh"

module prim_fifo_sync #(
  parameter int unsigned Width = 32,
  parameter int unsigned Depth = 4,
  // Derived; do not override.
  parameter int unsigned PtrW  = (Depth > 1) ? $clog2(Depth) : 1,
  parameter int unsigned CntW  = $clog2(Depth + 1)
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             push_i,
  input  logic [Width-1:0] wdata_i,
  input  logic             pop_i,
  output logic [Width-1:0] rdata_o,
  output logic             empty_o,
  output logic             full_o,
  output logic [CntW-1:0]  usage_o
);
  localparam logic [PtrW-1:0] LastPtr = PtrW'(Depth - 1);
  localparam logic [CntW-1:0] FullCnt = CntW'(Depth);

  logic [PtrW-1:0]  wptr_q, wptr_d, rptr_q, rptr_d;
  logic [CntW-1:0]  cnt_q, cnt_d;
  logic             do_push, do_pop;

  assign do_push = push_i;
  assign do_pop  = pop_i;

  always_comb begin
    wptr_d = wptr_q;
    rptr_d = rptr_q;
    cnt_d  = cnt_q;
    if (do_push) wptr_d = (wptr_q == LastPtr) ? '0 : wptr_q + 1'b1;
    if (do_pop)  rptr_d = (rptr_q == LastPtr) ? '0 : rptr_q + 1'b1;
    if (do_push && !do_pop) cnt_d = cnt_q + 1'b1;
    if (do_pop && !do_push) cnt_d = cnt_q - 1'b1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wptr_q <= '0;
      rptr_q <= '0;
      cnt_q  <= '0;
    end else begin
      wptr_q <= wptr_d;
      rptr_q <= rptr_d;
      cnt_q  <= cnt_d;
    end
  end

  // The RAM of the entries, written at the tail, read at the head. Its
  // ports are connected through these nets only (the proof's assumption
  // about the RAM, below, is stated on them). Storage has no reset: an
  // entry is only read after it was written.
  logic             ram_we;
  logic [PtrW-1:0]  ram_waddr, ram_raddr;

  assign ram_we    = do_push;
  assign ram_waddr = wptr_q;
  assign ram_raddr = rptr_q;

  prim_ram_1r1w #(
    .Width (Width),
    .Depth (Depth)
  ) u_ram (
    .clk_i   (clk_i),
    .we_i    (ram_we),
    .waddr_i (ram_waddr),
    .wdata_i (wdata_i),
    .raddr_i (ram_raddr),
    .rdata_o (rdata_o)
  );

  assign empty_o = (cnt_q == '0);
  assign usage_o = cnt_q;
  assign full_o  = (cnt_q == FullCnt);

  // Assertions
  `ASSERT(FifoNoPushWhenFull, !(push_i && full_o))
  `ASSERT(FifoNoPopWhenEmpty, !(pop_i && empty_o))
  `ASSERT(FifoUsageInRange, cnt_q <= FullCnt)
  `ASSERT(FifoPtrsInRange, 32'(rptr_q) < Depth && 32'(wptr_q) < Depth)
  // Pointer bookkeeping: the write pointer leads the read pointer by the
  // usage count (modulo Depth). Makes the control provable by induction.
  logic [31:0] ptr_sum;
  assign ptr_sum = 32'(rptr_q) + 32'(cnt_q);
  `ASSERT(FifoPtrsConsistent,
          ((ptr_sum >= Depth) ? ptr_sum - Depth : ptr_sum) == 32'(wptr_q))
  `ASSERT_KNOWN(FifoEmptyKnown, empty_o)
  `COVER(FifoFull, full_o)

`ifdef FORMAL
  // Data integrity, for the proofs: pick any slot. f_data_q is the value
  // last pushed into it; f_ram_q the value last written to its address
  // through u_ram's write port. The RAM leaf's own proof (prim_ram_1r1w,
  // RamReadData) shows that a read returns the last value written to the
  // address; that guarantee is assumed here of u_ram (FifoRamRead). While
  // the slot holds an entry, the RAM keeps the value pushed into it
  // (FifoSlotKept: no write overwrites a live entry), and when it is the
  // head, rdata_o shows that value. With FifoPtrsConsistent this makes the
  // FIFO order provable by induction.
  (* anyconst *) logic [PtrW-1:0] f_slot;
  logic [Width-1:0] f_data_q, f_ram_q;
  logic             f_ram_written_q = 1'b0;
  logic [PtrW:0]    f_dist;
  logic             f_live;

  always @(posedge clk_i) begin
    if (do_push && wptr_q == f_slot) f_data_q <= wdata_i;
    if (ram_we && ram_waddr == f_slot) begin
      f_ram_q         <= wdata_i;
      f_ram_written_q <= 1'b1;
    end
  end
  // Position of the slot behind the head, modulo Depth.
  assign f_dist = (f_slot >= rptr_q) ? {1'b0, f_slot} - {1'b0, rptr_q}
                                     : {1'b0, f_slot} + (PtrW+1)'(Depth) - {1'b0, rptr_q};
  assign f_live = (32'(f_dist) < 32'(cnt_q));

  always @(posedge clk_i) begin
    if (rst_ni) begin
      FifoSlotBounded: assume (32'(f_slot) < Depth);
      if (f_ram_written_q && ram_raddr == f_slot) FifoRamRead: assume (rdata_o == f_ram_q);
      if (f_live) FifoSlotKept: assert (f_ram_written_q && f_ram_q == f_data_q);
      if (f_live && rptr_q == f_slot) FifoHeadData: assert (rdata_o == f_data_q);
    end
  end
`endif
endmodule
