// Leading-zero counter: number of zero bits above the most significant one
// (Width when the input is zero). Used to normalize subnormal operands,
// FMA sums and integer sources.
module fpu_lzc #(
  parameter int unsigned Width = 32,
  parameter int unsigned CntW  = $clog2(Width + 1)
) (
  input  logic [Width-1:0] in_i,
  output logic [CntW-1:0]  cnt_o
);
  // Priority scan from the LSB up: the last (highest) one found wins.
  always_comb begin
    cnt_o = CntW'(Width);
    for (int unsigned i = 0; i < Width; i++) begin
      if (in_i[i]) cnt_o = CntW'(Width - 1 - i);
    end
  end
endmodule
