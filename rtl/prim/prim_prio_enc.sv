// Priority encoder: the index of the lowest set bit of req_i, and whether
// there is one. Built as a balanced tree (each node keeps the lower half's
// index when that half has a bit set, else the upper half's with its offset),
// so the depth grows with log2(N): a loop that lets each higher bit override
// the result maps to a mux chain N deep, in LUTs and in delay.
module prim_prio_enc #(
  parameter int unsigned N = 8,
  // Derived; do not override.
  parameter int unsigned IdxW = (N > 1) ? $clog2(N) : 1
) (
  input  logic [N-1:0]    req_i,
  output logic            valid_o,
  output logic [IdxW-1:0] idx_o
);
  localparam int unsigned L = IdxW;
  localparam int unsigned P = 1 << L;

  // Node j of level k covers bits [j*2^k, (j+1)*2^k); its index is relative.
  logic [P-1:0]  lv [L+1];
  logic [L-1:0]  li [L+1][P];

  always_comb begin
    for (int j = 0; j < P; j++) begin
      lv[0][j] = (j < N) ? req_i[j] : 1'b0;
      li[0][j] = '0;
    end
    for (int k = 1; k <= L; k++) begin
      for (int j = 0; j < P; j++) begin
        if (j < (P >> k)) begin
          lv[k][j] = lv[k-1][2*j] | lv[k-1][2*j+1];
          li[k][j] = lv[k-1][2*j] ? li[k-1][2*j] : (li[k-1][2*j+1] | L'(1 << (k - 1)));
        end else begin
          lv[k][j] = 1'b0;
          li[k][j] = '0;
        end
      end
    end
  end

  assign valid_o = lv[L][0];
  assign idx_o   = li[L][0];
endmodule
