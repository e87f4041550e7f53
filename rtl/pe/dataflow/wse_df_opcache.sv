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
// Two lookups a cycle, the a items of the engine's current and next element;
// where two entries hold one word the later one answers (they hold the same
// value: both were filled from DMEM or updated by the same writes).
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
  logic [1:0]         fill_q;
  logic [2*AW-1:0]    fill_addr_q;
  logic               ext_we_q;

  always_comb begin
    for (int k = 0; k < 2; k++) begin
      hit_o[k]  = 1'b0;
      data_o[k*32 +: 32] = '0;
      for (int j = 0; j < Entries; j++) begin
        if (v_q[j] && addr_q[j] == addr_i[k*AW +: AW]) begin
          hit_o[k]  = 1'b1;
          data_o[k*32 +: 32] = data_q[j];
        end
      end
    end
  end

  // Next state. A fill lands at ptr_q (port 0) and the entry after it
  // (port 1 when port 0 filled too); a move's write in the fill's cycle
  // makes the fill stale, so it is not taken.
  always_comb begin
    logic [PW-1:0] at;
    at    = ptr_q;
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
        for (int k = 0; k < 2; k++) begin
          if (fill_q[k] && !(mov_wr_i && mov_wr_addr_i == fill_addr_q[k*AW +: AW])) begin
            v_d[at]    = 1'b1;
            addr_d[at] = fill_addr_q[k*AW +: AW];
            data_d[at] = fill_data_i[k*32 +: 32];
          end
          if (fill_q[k]) at = at + 1'b1;
        end
        ptr_d = at;
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
      fill_q      <= fill_i;
      fill_addr_q <= fill_addr_i;
      ext_we_q    <= ext_we_i;
      for (int j = 0; j < Entries; j++) begin
        addr_q[j] <= addr_d[j];
        data_q[j] <= data_d[j];
      end
    end
  end
endmodule
