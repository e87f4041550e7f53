// 64-bit link words from the framing into bytes for the UART transmitter,
// byte 0 (bits [7:0]) first, as docs/protocol.md section 2 orders a packet.
`include "prim_assert.svh"

module hif_uart_unpack (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        word_valid_i,
  output logic        word_ready_o,
  input  logic [63:0] word_i,
  output logic        byte_valid_o,
  input  logic        byte_ready_i,
  output logic [7:0]  byte_o
);
  logic [63:0] buf_q, buf_d;
  logic [3:0]  left_q, left_d;  // bytes of buf_q still to send

  assign word_ready_o = left_q == '0;
  assign byte_valid_o = left_q != '0;
  assign byte_o       = buf_q[7:0];

  always_comb begin
    buf_d  = buf_q;
    left_d = left_q;
    if (word_valid_i && word_ready_o) begin
      buf_d  = word_i;
      left_d = 4'd8;
    end else if (byte_valid_o && byte_ready_i) begin
      buf_d  = {8'h00, buf_q[63:8]};
      left_d = left_q - 4'd1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      buf_q  <= '0;
      left_q <= '0;
    end else begin
      buf_q  <= buf_d;
      left_q <= left_d;
    end
  end

  // ---- assertions --------------------------------------------------------
  `ASSERT(LeftInRange, left_q <= 4'd8)
  `ASSERT_KNOWN(ByteValidKnown, byte_valid_o)
  `ASSERT_NEXT(ByteHeld, byte_valid_o && !byte_ready_i,
               byte_valid_o && $stable(byte_o))
endmodule
