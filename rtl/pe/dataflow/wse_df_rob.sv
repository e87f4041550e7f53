// Completion queue of the vector engine (wse_df_vec): an entry per element
// from the cycle it leaves G until its result has left, so that results
// retire in element order (DMEM write or RAMP send) whatever waits at the
// write port or for a credit. An entry is allocated when G ends an element,
// filled when the FPU's result comes (two cycles later, the FPU's results
// in the same order), and popped at the head. A result that comes for the
// head is offered at once, without being stored first.
//
// The engine's reads must not pass a pending write: pend_o answers for
// each of G's eight item addresses whether an entry will write it.
`include "prim_assert.svh"

module wse_df_rob #(
  parameter int unsigned AW    = 13,
  parameter int unsigned Depth = 6,
  localparam int unsigned RW = $clog2(Depth)
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  // allocation, for the element G ends
  input  logic            alloc_i,
  input  logic            alloc_fab_i,   // a RAMP send (addr is the color)
  input  logic            alloc_nop_i,   // writes nothing
  input  logic [AW-1:0]   alloc_addr_i,
  input  logic            alloc_last_i,  // the operation's last element
  input  logic            alloc_ten_i,   // ... which activates a task
  input  logic [5:0]      alloc_tid_i,
  // the FPU's results, in allocation order
  input  logic            fill_i,
  input  logic [31:0]     fill_data_i,
  // the head
  output logic            head_ready_o,  // its result is in, or comes now
  output logic [31:0]     head_data_o,
  output logic            head_fab_o,
  output logic            head_nop_o,
  output logic [AW-1:0]   head_addr_o,
  output logic            head_last_o,
  output logic            head_ten_o,
  output logic [5:0]      head_tid_o,
  input  logic            pop_i,
  // pending writes: item i's address at [i*AW +: AW]
  input  logic [8*AW-1:0] pend_addr_i,
  output logic [7:0]      pend_o,
  output logic [RW:0]     cnt_o
);
  logic [AW-1:0]    addr_q [Depth];
  logic [AW-1:0]    addr_d [Depth];
  logic [31:0]      data_q [Depth];
  logic [31:0]      data_d [Depth];
  logic [5:0]       tid_q [Depth];
  logic [5:0]       tid_d [Depth];
  logic [Depth-1:0] v_q, full_q, fab_q, last_q, ten_q, nop_q;
  logic [Depth-1:0] v_d, full_d, fab_d, last_d, ten_d, nop_d;
  logic [RW-1:0]    alloc_q, fill_q, head_q;
  logic [RW-1:0]    alloc_d, fill_d, head_d;
  logic [RW:0]      cnt_q, cnt_d;

  function automatic logic [RW-1:0] inc(input logic [RW-1:0] v);
    inc = (32'(v) == Depth - 1) ? '0 : v + 1'b1;
  endfunction

  always_comb begin
    for (int i = 0; i < 8; i++) begin
      pend_o[i] = 1'b0;
      for (int e = 0; e < Depth; e++)
        if (v_q[e] && !fab_q[e] && addr_q[e] == pend_addr_i[i*AW +: AW]) pend_o[i] = 1'b1;
    end
  end

  assign head_ready_o = v_q[head_q] && (full_q[head_q] || (fill_i && fill_q == head_q));
  assign head_data_o  = full_q[head_q] ? data_q[head_q] : fill_data_i;
  assign head_fab_o   = fab_q[head_q];
  assign head_nop_o   = nop_q[head_q];
  assign head_addr_o  = addr_q[head_q];
  assign head_last_o  = last_q[head_q];
  assign head_ten_o   = ten_q[head_q];
  assign head_tid_o   = tid_q[head_q];
  assign cnt_o        = cnt_q;

  always_comb begin
    v_d     = v_q;
    full_d  = full_q;
    fab_d   = fab_q;
    last_d  = last_q;
    ten_d   = ten_q;
    nop_d   = nop_q;
    for (int e = 0; e < Depth; e++) begin
      addr_d[e] = addr_q[e];
      data_d[e] = data_q[e];
      tid_d[e]  = tid_q[e];
    end
    alloc_d = alloc_q;
    fill_d  = fill_q;
    head_d  = head_q;
    if (alloc_i) begin
      v_d[alloc_q]    = 1'b1;
      full_d[alloc_q] = 1'b0;
      fab_d[alloc_q]  = alloc_fab_i;
      nop_d[alloc_q]  = alloc_nop_i;
      addr_d[alloc_q] = alloc_addr_i;
      last_d[alloc_q] = alloc_last_i;
      ten_d[alloc_q]  = alloc_ten_i;
      tid_d[alloc_q]  = alloc_tid_i;
      alloc_d         = inc(alloc_q);
    end
    if (fill_i) begin
      fill_d = inc(fill_q);
      // a result for the head that leaves now is not stored
      if (!(pop_i && fill_q == head_q)) begin
        full_d[fill_q] = 1'b1;
        data_d[fill_q] = fill_data_i;
      end
    end
    if (pop_i) begin
      v_d[head_q]    = 1'b0;
      full_d[head_q] = 1'b0;
      head_d         = inc(head_q);
    end
    cnt_d = cnt_q + (RW+1)'(alloc_i) - (RW+1)'(pop_i);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      v_q     <= '0;
      full_q  <= '0;
      fab_q   <= '0;
      last_q  <= '0;
      ten_q   <= '0;
      nop_q   <= '0;
      for (int e = 0; e < Depth; e++) begin
        addr_q[e] <= '0;
        data_q[e] <= '0;
        tid_q[e]  <= '0;
      end
      alloc_q <= '0;
      fill_q  <= '0;
      head_q  <= '0;
      cnt_q   <= '0;
    end else begin
      v_q     <= v_d;
      full_q  <= full_d;
      fab_q   <= fab_d;
      last_q  <= last_d;
      ten_q   <= ten_d;
      nop_q   <= nop_d;
      for (int e = 0; e < Depth; e++) begin
        addr_q[e] <= addr_d[e];
        data_q[e] <= data_d[e];
        tid_q[e]  <= tid_d[e];
      end
      alloc_q <= alloc_d;
      fill_q  <= fill_d;
      head_q  <= head_d;
      cnt_q   <= cnt_d;
    end
  end

  // the engine allocates only with room, the FPU returns only allocated
  // elements, and only a ready head leaves
  `ASSERT(RobNoOverflow, !(alloc_i && 32'(cnt_q) >= Depth))
  `ASSERT(FillHasEntry, !fill_i || v_q[fill_q])
  `ASSERT(PopOnlyReady, !pop_i || head_ready_o)
endmodule
