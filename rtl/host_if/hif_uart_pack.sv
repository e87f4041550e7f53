// Received bytes into the 64-bit link words the framing takes (byte 0 of a
// word in bits [7:0], docs/protocol.md section 2). A serial line can lose or
// invent a byte (a start bit wiped out or made up by noise), which would
// shift every later word; flush_i (an idle gap or a break on the line)
// therefore drops a word begun but not finished, counted in slip_cnt_o, so
// that the next packet after a pause starts on a word boundary again. The
// line cannot be stopped, so a finished word that finds the output still
// occupied is dropped whole (keeping the alignment) and counted in
// overrun_cnt_o; the protocol's request and stream credits keep that from
// happening (docs/boards.md).
`include "prim_assert.svh"

module hif_uart_pack #(
  parameter int unsigned CntW = 16  // counter width (saturating)
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            byte_valid_i,
  input  logic [7:0]      byte_i,
  input  logic            flush_i,     // drop a partial word
  output logic            word_valid_o,
  input  logic            word_ready_i,
  output logic [63:0]     word_o,
  output logic [CntW-1:0] slip_cnt_o,    // partial words dropped by flush_i
  output logic [CntW-1:0] overrun_cnt_o  // whole words dropped, output full
);
  logic [55:0]     asm_q, asm_d;    // bytes 0..6 of the word being filled
  logic [2:0]      idx_q, idx_d;    // bytes in asm_q
  logic [63:0]     out_q, out_d;
  logic            out_valid_q, out_valid_d;
  logic [CntW-1:0] slip_q, slip_d, ovr_q, ovr_d;

  always_comb begin
    asm_d       = asm_q;
    idx_d       = idx_q;
    out_d       = out_q;
    out_valid_d = out_valid_q && !word_ready_i;
    slip_d      = slip_q;
    ovr_d       = ovr_q;
    if (byte_valid_i) begin
      if (idx_q == 3'd7) begin
        idx_d = '0;
        if (out_valid_d) begin
          if (ovr_q != '1) ovr_d = ovr_q + CntW'(1);
        end else begin
          out_d       = {byte_i, asm_q};
          out_valid_d = 1'b1;
        end
      end else begin
        asm_d[8*idx_q +: 8] = byte_i;
        idx_d = idx_q + 3'd1;
      end
    end else if (flush_i && idx_q != '0) begin
      idx_d = '0;
      if (slip_q != '1) slip_d = slip_q + CntW'(1);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      asm_q       <= '0;
      idx_q       <= '0;
      out_q       <= '0;
      out_valid_q <= 1'b0;
      slip_q      <= '0;
      ovr_q       <= '0;
    end else begin
      asm_q       <= asm_d;
      idx_q       <= idx_d;
      out_q       <= out_d;
      out_valid_q <= out_valid_d;
      slip_q      <= slip_d;
      ovr_q       <= ovr_d;
    end
  end

  assign word_valid_o  = out_valid_q;
  assign word_o        = out_q;
  assign slip_cnt_o    = slip_q;
  assign overrun_cnt_o = ovr_q;

  // ---- assertions --------------------------------------------------------
  `ASSERT(NoByteOnFlush, !(byte_valid_i && flush_i))
  `ASSERT_KNOWN(WordValidKnown, word_valid_o)
  `ASSERT_NEXT(WordHeld, word_valid_o && !word_ready_i,
               word_valid_o && $stable(word_o))
  `COVER(SawSlip, flush_i && idx_q != '0)
endmodule
