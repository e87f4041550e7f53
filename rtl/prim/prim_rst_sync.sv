// Reset synchronizer: asserts asynchronously, deasserts on the second clock
// edge after rst_ni rises, so every flop leaves reset in the same cycle.
module prim_rst_sync (
  input  logic clk_i,
  input  logic rst_ni,  // asynchronous, from the board or the testbench
  output logic rst_no   // asynchronous assert, synchronous deassert
);
  logic [1:0] sync_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) sync_q <= 2'b00;
    else         sync_q <= {sync_q[0], 1'b1};
  end

  assign rst_no = sync_q[1];
endmodule
