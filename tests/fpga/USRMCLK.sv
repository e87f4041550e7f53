// Testbench model of the ECP5's USRMCLK for Verilator runs of board tops:
// the user clock of the CCLK pin. The pin is not a port of the top, so the
// board simulator (sim/wsemu_board_sim.cpp) reads USRMCLKI here, made
// public by sim/wsemu_board_sim.vlt, and drives the flash model's SCK
// with it. Not synthesized: Yosys maps the real primitive.
module USRMCLK (
  input  logic USRMCLKI,
  input  logic USRMCLKTS,
  output logic USRMCLKO
);
  // CCLK is tristated while USRMCLKTS is high: the flash then sees SCK low
  // (its pull-down on the board).
  assign USRMCLKO = USRMCLKI && !USRMCLKTS;
endmodule
