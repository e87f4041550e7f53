// Gather table of the vector engine (docs/pe-programming.md, "Sparse
// gathers"): Entries slots of 16 bits in one prim_ram_1p (1024 x 16: one
// DP16KD), written in order by SPIDX's decoder and read in order for a
// gathered operation, and the gather count n.
//
//   write   wr_i appends a slot at the write pointer (full_o when Entries
//           are written); commit_i (SPIDX's end) makes the pointer the
//           count and sets the pointer back to 0 for the next SPIDX.
//   stream  while run_i (the engine's head operation is gathered and n is
//           not 0), the table is read entry by entry, pass by pass (len1_i
//           passes of n), one read a cycle, and each slot becomes a's word
//           address base + slot*s0 + pass*s1 in a Depth-entry FIFO; the
//           engine takes the head (addr0_o) per element and may look ahead
//           at the next one (addr1_o). clr_i (the operation's end) resets
//           the stream for the next operation.
// The write and read ports are one: the engine writes only while an SPIDX
// is its head operation and streams only while a gathered one is.
`include "prim_assert.svh"

module wse_df_gather #(
  parameter int unsigned AW      = 12,
  parameter int unsigned Entries = 1024,
  parameter int unsigned Depth   = 4,
  localparam int unsigned CW = $clog2(Entries + 1),
  localparam int unsigned TW = $clog2(Entries),
  localparam int unsigned FW = $clog2(Depth)
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  // SPIDX
  input  logic          wr_i,
  input  logic [15:0]   wr_slot_i,
  output logic          full_o,
  input  logic          commit_i,
  output logic [CW-1:0] cnt_o,
  // Gathered operation
  input  logic          run_i,
  input  logic [AW-1:0] base_i,
  input  logic [15:0]   s0_i,
  input  logic [15:0]   s1_i,
  input  logic [15:0]   len1_i,
  input  logic          take_i,
  input  logic          clr_i,
  output logic          v0_o,
  output logic          v1_o,
  output logic [AW-1:0] addr0_o,
  output logic [AW-1:0] addr1_o
);
  logic [CW-1:0] wptr_q, wptr_d, cnt_q, cnt_d;
  logic [CW-1:0] pj_q, pj_d;             // next entry to read
  logic [15:0]   pi1_q, pi1_d;           // its pass
  logic [AW-1:0] prow_q, prow_d;         // a's row of that pass
  logic          pst_q, pst_d;           // the stream has started (prow_q valid)
  logic          pdone_q, pdone_d;       // every entry of every pass read
  logic          rdv_q, rdv_d;           // a read's slot arrives this cycle
  logic [AW-1:0] rrow_q, rrow_d;         // ... its row
  logic [AW-1:0] fifo_q [Depth];
  logic [AW-1:0] fifo_d [Depth];
  logic [FW-1:0] fh_q, fh_d, ft_q, ft_d;
  logic [FW:0]   fc_q, fc_d;

  logic          rd, pj_last;
  logic [AW-1:0] row_cur;
  // a slot's bits above the word index do not matter: addresses wrap
  /* verilator lint_off UNUSEDSIGNAL */
  logic [15:0]   slot;
  /* verilator lint_on UNUSEDSIGNAL */

  prim_ram_1p #(
    .Width (16),
    .Depth (Entries)
  ) u_tab (
    .clk_i   (clk_i),
    .req_i   (wr_i || rd),
    .we_i    (wr_i),
    .addr_i  (wr_i ? wptr_q[TW-1:0] : pj_q[TW-1:0]),
    .wdata_i (wr_slot_i),
    .be_i    (2'b11),
    .rdata_o (slot)
  );

  function automatic logic [AW-1:0] sx(input logic [15:0] s);
    sx = AW'({{16{s[15]}}, s});
  endfunction
  function automatic logic [FW-1:0] finc(input logic [FW-1:0] v);
    finc = (32'(v) == Depth - 1) ? '0 : v + 1'b1;
  endfunction

  assign full_o  = (32'(wptr_q) == Entries);
  assign cnt_o   = cnt_q;
  assign row_cur = pst_q ? prow_q : base_i;
  assign pj_last = (pj_q == cnt_q - CW'(1));
  // a read only with room for its address (counting the one arriving)
  assign rd      = run_i && !pdone_q && !clr_i && (32'(fc_q) + 32'(rdv_q) < Depth);

  always_comb begin
    wptr_d  = commit_i ? '0 : wptr_q + CW'(wr_i);
    cnt_d   = commit_i ? wptr_q : cnt_q;
    pj_d    = pj_q;
    pi1_d   = pi1_q;
    prow_d  = prow_q;
    pst_d   = pst_q;
    pdone_d = pdone_q;
    rdv_d   = rd;
    rrow_d  = rd ? row_cur : rrow_q;
    if (rd) begin
      pst_d  = 1'b1;
      prow_d = row_cur;
      pj_d   = pj_q + CW'(1);
      if (pj_last) begin
        pj_d   = '0;
        pi1_d  = pi1_q + 16'd1;
        prow_d = row_cur + sx(s1_i);
        if (pi1_q == len1_i - 16'd1) pdone_d = 1'b1;
      end
    end
    fh_d   = take_i ? finc(fh_q) : fh_q;
    ft_d   = rdv_q ? finc(ft_q) : ft_q;
    fc_d   = fc_q + (FW+1)'(rdv_q) - (FW+1)'(take_i);
    for (int i = 0; i < Depth; i++) begin
      fifo_d[i] = (rdv_q && FW'(i) == ft_q) ? rrow_q + AW'(slot) * sx(s0_i) : fifo_q[i];
    end
    if (clr_i) begin
      pj_d = '0; pi1_d = '0; pst_d = 1'b0; pdone_d = 1'b0; rdv_d = 1'b0;
      fh_d = '0; ft_d = '0; fc_d = '0;
    end
  end

  assign v0_o    = (fc_q != '0);
  assign v1_o    = (32'(fc_q) >= 2);
  assign addr0_o = fifo_q[fh_q];
  assign addr1_o = fifo_q[finc(fh_q)];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wptr_q  <= '0;
      cnt_q   <= '0;
      pj_q    <= '0;
      pi1_q   <= '0;
      prow_q  <= '0;
      pst_q   <= 1'b0;
      pdone_q <= 1'b0;
      rdv_q   <= 1'b0;
      rrow_q  <= '0;
      for (int i = 0; i < Depth; i++) fifo_q[i] <= '0;
      fh_q    <= '0;
      ft_q    <= '0;
      fc_q    <= '0;
    end else begin
      wptr_q  <= wptr_d;
      cnt_q   <= cnt_d;
      pj_q    <= pj_d;
      pi1_q   <= pi1_d;
      prow_q  <= prow_d;
      pst_q   <= pst_d;
      pdone_q <= pdone_d;
      rdv_q   <= rdv_d;
      rrow_q  <= rrow_d;
      for (int i = 0; i < Depth; i++) fifo_q[i] <= fifo_d[i];
      fh_q    <= fh_d;
      ft_q    <= ft_d;
      fc_q    <= fc_d;
    end
  end

  // The one port: the engine never writes while it streams.
  `ASSERT(GaOnePort, !(wr_i && rd))
  // SPIDX stores no slot past the table.
  `ASSERT(GaNoOverflow, !(wr_i && full_o))
  // The engine takes only addresses that are there.
  `ASSERT(GaTakeValid, !take_i || v0_o)
  // An operation ends with every address it streamed taken: none left
  // behind for the next one.
  `ASSERT(GaEndEmpty, !clr_i || (!rdv_q && 32'(fc_q) == 32'(take_i)))
  // A stream starts only with a count (n = 0: no element, no read).
  `ASSERT(GaRunCount, !run_i || cnt_q != '0)
  // The count is never changed while a stream reads the table.
  `ASSERT(GaCountStable, !(commit_i && (run_i || rdv_q)))
  `COVER(GaFull, wr_i && wptr_q == CW'(Entries - 1))
  `COVER(GaFifoFull, 32'(fc_q) == Depth)
endmodule
