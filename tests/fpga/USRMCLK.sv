// Testbench model of the ECP5's USRMCLK for Verilator runs of board tops:
// the user clock of the CCLK pin. The primitive has inputs only (the pin
// is its output, and not a port of the top), so the model keeps the pin's
// level in cclk, which sim/wsemu_board_sim.vlt makes public: the board
// simulator (sim/wsemu_board_sim.cpp) reads it and drives the flash
// model's SCK with it. Not synthesized: Yosys maps the real primitive.
module USRMCLK (
  input logic USRMCLKI,
  input logic USRMCLKTS
);
  // CCLK is tristated while USRMCLKTS is high: the flash then sees SCK low
  // (its pull-down on the board).
  // Read by the board simulator only, through the public flag.
  /* verilator lint_off UNUSEDSIGNAL */
  logic cclk;
  /* verilator lint_on UNUSEDSIGNAL */
  assign cclk = USRMCLKI && !USRMCLKTS;
endmodule
