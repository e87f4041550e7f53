// The eight descriptor registers of the vector engine and the move channel
// (docs/pe-programming.md): for each, BASE (a byte address, or a color),
// LEN0, STRIDE0, LEN1, STRIDE1, TYPE (fabric) and ADV. The core writes and
// reads them through the register window. An operation word names three
// of them (dst, a, b), read here at once, only what the engine keeps of
// them (the shape is dst's; BASE within DMEM); issuing it advances the BASE
// of those it uses by ADV words, each once even where the word names it
// twice.
module wse_df_dsd #(
  parameter int unsigned BW = 15        // BASE bits the engine reads (DMEM bytes)
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  // register window
  input  logic          we_i,
  input  logic [2:0]    idx_i,
  input  logic [2:0]    field_i,
  input  logic [31:0]   wdata_i,
  output logic [31:0]   rdata_o,
  // the operation word's three descriptors (dst, a, b), k at [k*W +: W]
  input  logic [8:0]    rd_idx_i,
  output logic [3*BW-1:0] base_o,
  output logic [15:0]   len0_o,       // dst's
  output logic [15:0]   len1_o,       // dst's
  output logic [47:0]   st0_o,
  output logic [47:0]   st1_o,
  output logic [2:0]    fab_o,
  input  logic [2:0]    adv_i         // advance descriptor k's BASE now
);
  logic [31:0] base_q [8];
  logic [31:0] base_d [8];
  logic [15:0] len0_q [8];
  logic [15:0] len0_d [8];
  logic [15:0] st0_q  [8];
  logic [15:0] st0_d  [8];
  logic [15:0] len1_q [8];
  logic [15:0] len1_d [8];
  logic [15:0] st1_q  [8];
  logic [15:0] st1_d  [8];
  logic [15:0] adv_q  [8];
  logic [15:0] adv_d  [8];
  logic [7:0]  fab_q, fab_d;

  always_comb begin
    unique case (field_i)
      3'd0:    rdata_o = base_q[idx_i];
      3'd1:    rdata_o = {16'd0, len0_q[idx_i]};
      3'd2:    rdata_o = {{16{st0_q[idx_i][15]}}, st0_q[idx_i]};
      3'd3:    rdata_o = {16'd0, len1_q[idx_i]};
      3'd4:    rdata_o = {{16{st1_q[idx_i][15]}}, st1_q[idx_i]};
      3'd5:    rdata_o = {31'd0, fab_q[idx_i]};
      3'd6:    rdata_o = {{16{adv_q[idx_i][15]}}, adv_q[idx_i]};
      default: rdata_o = '0;
    endcase
  end

  always_comb begin
    for (int k = 0; k < 3; k++) begin
      logic [2:0] d;
      d = rd_idx_i[3*k +: 3];
      base_o[BW*k +: BW] = base_q[d][BW-1:0];
      st0_o[16*k +: 16]  = st0_q[d];
      st1_o[16*k +: 16]  = st1_q[d];
      fab_o[k]           = fab_q[d];
    end
  end
  assign len0_o = len0_q[rd_idx_i[2:0]];
  assign len1_o = len1_q[rd_idx_i[2:0]];

  // A write and an issue never come in one cycle (both are core
  // instructions); the advance is applied last all the same.
  always_comb begin
    fab_d = fab_q;
    for (int i = 0; i < 8; i++) begin
      base_d[i] = base_q[i];
      len0_d[i] = len0_q[i];
      st0_d[i]  = st0_q[i];
      len1_d[i] = len1_q[i];
      st1_d[i]  = st1_q[i];
      adv_d[i]  = adv_q[i];
    end
    if (we_i) begin
      unique case (field_i)
        3'd0:    base_d[idx_i] = wdata_i;
        3'd1:    len0_d[idx_i] = wdata_i[15:0];
        3'd2:    st0_d[idx_i]  = wdata_i[15:0];
        3'd3:    len1_d[idx_i] = wdata_i[15:0];
        3'd4:    st1_d[idx_i]  = wdata_i[15:0];
        3'd5:    fab_d[idx_i]  = wdata_i[0];
        3'd6:    adv_d[idx_i]  = wdata_i[15:0];
        default: ;
      endcase
    end
    for (int i = 0; i < 8; i++) begin
      logic adv;
      adv = 1'b0;
      for (int k = 0; k < 3; k++) adv = adv || (adv_i[k] && rd_idx_i[3*k +: 3] == 3'(i));
      if (adv) base_d[i] = base_q[i] + {{14{adv_q[i][15]}}, adv_q[i], 2'b00};
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fab_q <= '0;
      for (int i = 0; i < 8; i++) begin
        base_q[i] <= '0;
        len0_q[i] <= 16'd1;
        st0_q[i]  <= 16'd1;
        len1_q[i] <= 16'd1;
        st1_q[i]  <= '0;
        adv_q[i]  <= '0;
      end
    end else begin
      fab_q <= fab_d;
      for (int i = 0; i < 8; i++) begin
        base_q[i] <= base_d[i];
        len0_q[i] <= len0_d[i];
        st0_q[i]  <= st0_d[i];
        len1_q[i] <= len1_d[i];
        st1_q[i]  <= st1_d[i];
        adv_q[i]  <= adv_d[i];
      end
    end
  end
endmodule
