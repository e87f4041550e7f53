// Testbench model of the ECP5 PLL (EHXPLLL) for Verilator runs of board
// tops: CLKOP follows CLKI (the mesh clock runs at the link clock's rate in
// simulation; the board's cycle-level behaviour does not depend on the
// ratio, the crossings are tested at coprime clocks in test-host-if) and
// LOCK rises after LockCycles input clocks, so the board top's "mesh held
// in reset until lock" is exercised. Only the ports wse_ecp5_pll uses
// carry meaning. Not synthesized: Yosys maps the real primitive.
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNUSEDPARAM */
module EHXPLLL #(
  parameter int    CLKI_DIV = 1, CLKFB_DIV = 1, CLKOP_DIV = 8, CLKOP_CPHASE = 0,
  parameter int    CLKOP_FPHASE = 0,
  parameter string CLKOP_ENABLE = "ENABLED", FEEDBK_PATH = "CLKOP",
  parameter string PLLRST_ENA = "DISABLED", INTFB_WAKE = "DISABLED",
  parameter string STDBY_ENABLE = "DISABLED", DPHASE_SOURCE = "DISABLED",
  parameter string OUTDIVIDER_MUXA = "DIVA",
  parameter int    LockCycles = 16
) (
  input  logic CLKI, CLKFB,
  input  logic PHASESEL1, PHASESEL0, PHASEDIR, PHASESTEP, PHASELOADREG,
  input  logic STDBY, PLLWAKESYNC,
  input  logic RST, ENCLKOP, ENCLKOS, ENCLKOS2, ENCLKOS3,
  output logic CLKOP, CLKOS, CLKOS2, CLKOS3,
  output logic LOCK, INTLOCK,
  output logic REFCLK, CLKINTFB
);
  logic [7:0] cnt = '0;
  always_ff @(posedge CLKI) if (cnt != 8'(LockCycles)) cnt <= cnt + 1'b1;
  assign CLKOP    = CLKI;
  assign CLKOS    = 1'b0;
  assign CLKOS2   = 1'b0;
  assign CLKOS3   = 1'b0;
  assign LOCK     = (cnt == 8'(LockCycles));
  assign INTLOCK  = LOCK;
  assign REFCLK   = CLKI;
  assign CLKINTFB = 1'b0;
endmodule
/* verilator lint_on UNUSEDPARAM */
/* verilator lint_on UNUSEDSIGNAL */
