// A free-running counter whose top bit blinks an LED: it shows that its
// clock runs and that its reset is released (a PLL that has not locked
// holds the mesh in reset, and the LED stays dark). Period 2^CntW clocks:
// CntW = 24 is 1.3 s at 12.5 MHz.
module wse_heartbeat #(
  parameter int unsigned CntW = 24
) (
  input  logic clk_i,
  input  logic rst_ni,
  output logic led_o
);
  logic [CntW-1:0] cnt_q, cnt_d;

  assign cnt_d = cnt_q + 1'b1;
  assign led_o = cnt_q[CntW-1];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) cnt_q <= '0;
    else         cnt_q <= cnt_d;
  end
endmodule
