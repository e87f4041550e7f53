// Operand cache of the vector engine (wse_df_vec) for its a operand: the
// LEN0-long activations that every pass and every operation of a GEMM read
// again. Without it an FMACS element needs three DMEM reads (a, b, dst) on
// two read ports; with a's words here it issues one element a cycle.
//
// Entries words of DMEM, each a word index and its value, replaced in
// order. The two read ports' a-reads fill it (the read data arrive the cycle
// after the fill is asked, with the address registered here). The engine's
// own writes update a cached word; a move's write drops it (the move channel
// writes words the engine may read later, in its own order); any core or
// management store empties the whole cache, and the fills of the cycle after
// it are not taken (their reads may have been of the old word).
//
// Two lookups a cycle, the a items of the engine's current and next element.
// Two entries can hold one word (a second read of it went out before the
// first fill landed), always with the same value: no write to the word
// comes between the two reads (the engine's reads wait for its pending
// writes, a move's write drops the fill), and the engine's later writes
// update both. A lookup therefore ORs the values of the entries that match
// rather than choosing one (OneValuePerWord checks it).
`include "prim_assert.svh"

module wse_df_opcache #(
  parameter int unsigned AW      = 13,
  parameter int unsigned Entries = 8
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  // lookups
  input  logic [2*AW-1:0]     addr_i,      // lookup k at [k*AW +: AW]
  output logic [1:0]          hit_o,
  output logic [63:0]         data_o,      // lookup k at [k*32 +: 32]
  // fills: an a-read asked on read port k this cycle, its data next cycle
  // (not taken when a move writes the word in either cycle)
  input  logic [1:0]          fill_i,
  input  logic [2*AW-1:0]     fill_addr_i,
  input  logic [63:0]         fill_data_i,
  // the engine's DMEM write (granted)
  input  logic                wr_i,
  input  logic [AW-1:0]       wr_addr_i,
  input  logic [31:0]         wr_data_i,
  // the move channel's DMEM write
  input  logic                mov_wr_i,
  input  logic [AW-1:0]       mov_wr_addr_i,
  // a core or management store to DMEM
  input  logic                ext_we_i
);
  localparam int unsigned PW = $clog2(Entries);

  logic [Entries-1:0] v_q, v_d;
  logic [AW-1:0]      addr_q [Entries];
  logic [AW-1:0]      addr_d [Entries];
  logic [31:0]        data_q [Entries];
  logic [31:0]        data_d [Entries];
  logic [PW-1:0]      ptr_q, ptr_d;
  logic [1:0]         fill_q, fill_d;
  logic [2*AW-1:0]    fill_addr_q;
  logic               ext_we_q;
  logic               same_val;   // for the assertion below

  always_comb begin
    for (int k = 0; k < 2; k++) begin
      hit_o[k]  = 1'b0;
      data_o[k*32 +: 32] = '0;
      for (int j = 0; j < Entries; j++) begin
        if (v_q[j] && addr_q[j] == addr_i[k*AW +: AW]) begin
          hit_o[k]  = 1'b1;
          data_o[k*32 +: 32] = data_o[k*32 +: 32] | data_q[j];
        end
      end
    end
  end

  // Next state. A fill lands at ptr_q (port 0) and the entry after it
  // (port 1 when port 0 filled too), so the two never meet (put0, put1). A
  // move's write of the word, in the read's cycle (fill_d) or in the
  // fill's, makes the fill stale, so it is not taken.
  logic [Entries-1:0] put0, put1;
  always_comb begin
    for (int k = 0; k < 2; k++)
      fill_d[k] = fill_i[k] && !(mov_wr_i && mov_wr_addr_i == fill_addr_i[k*AW +: AW]);
    for (int j = 0; j < Entries; j++) begin
      put0[j] = fill_q[0] && (ptr_q == PW'(j)) &&
                !(mov_wr_i && mov_wr_addr_i == fill_addr_q[0 +: AW]);
      put1[j] = fill_q[1] && ((ptr_q + PW'(fill_q[0])) == PW'(j)) &&
                !(mov_wr_i && mov_wr_addr_i == fill_addr_q[AW +: AW]);
    end
  end

  always_comb begin
    v_d   = v_q;
    ptr_d = ptr_q;
    for (int j = 0; j < Entries; j++) begin
      addr_d[j] = addr_q[j];
      data_d[j] = data_q[j];
    end
    if (ext_we_i) begin
      v_d = '0;
    end else begin
      for (int j = 0; j < Entries; j++) begin
        if (wr_i && v_q[j] && addr_q[j] == wr_addr_i) data_d[j] = wr_data_i;
        if (mov_wr_i && addr_q[j] == mov_wr_addr_i) v_d[j] = 1'b0;
      end
      if (!ext_we_q) begin
        for (int j = 0; j < Entries; j++) begin
          if (put0[j] || put1[j]) begin
            v_d[j]    = 1'b1;
            addr_d[j] = put1[j] ? fill_addr_q[AW +: AW] : fill_addr_q[0 +: AW];
            data_d[j] = put1[j] ? fill_data_i[32 +: 32] : fill_data_i[0 +: 32];
          end
        end
        ptr_d = ptr_q + PW'(fill_q[0]) + PW'(fill_q[1]);
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      v_q         <= '0;
      ptr_q       <= '0;
      fill_q      <= '0;
      fill_addr_q <= '0;
      ext_we_q    <= 1'b0;
      for (int j = 0; j < Entries; j++) begin
        addr_q[j] <= '0;
        data_q[j] <= '0;
      end
    end else begin
      v_q         <= v_d;
      ptr_q       <= ptr_d;
      fill_q      <= fill_d;
      fill_addr_q <= fill_addr_i;
      ext_we_q    <= ext_we_i;
      for (int j = 0; j < Entries; j++) begin
        addr_q[j] <= addr_d[j];
        data_q[j] <= data_d[j];
      end
    end
  end

  always_comb begin
    same_val = 1'b1;
    for (int i = 0; i < Entries; i++)
      for (int j = i + 1; j < Entries; j++)
        if (v_q[i] && v_q[j] && addr_q[i] == addr_q[j] && data_q[i] != data_q[j]) same_val = 1'b0;
  end
  `ASSERT(OneValuePerWord, same_val)
endmodule
