// Holds an LED on for 2^CntW clocks after each pulse, so that single-cycle
// events (a byte on the line, an error) are visible to the eye: at 25 MHz
// CntW = 21 is 84 ms. A pulse while lit restarts the time.
module wse_led_stretch #(
  parameter int unsigned CntW = 21
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic pulse_i,
  output logic led_o
);
  logic [CntW-1:0] cnt_q, cnt_d;

  assign cnt_d = pulse_i ? '1 : (cnt_q != '0) ? cnt_q - 1'b1 : cnt_q;
  assign led_o = (cnt_q != '0);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) cnt_q <= '0;
    else         cnt_q <= cnt_d;
  end
endmodule
