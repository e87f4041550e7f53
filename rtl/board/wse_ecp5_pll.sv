// The mesh clock of an ECP5 board: one EHXPLLL with feedback from CLKOP,
// fout = fin * ClkfbDiv / ClkiDiv, VCO = fout * ClkopDiv. wse-cfggen finds
// the dividers from the board's .dts (/fpga wsemu,mesh-clock-frequency,
// /link clock-frequency) as ecppll would (make test-full-pll checks it) and
// puts them in wse_cfg_pkg, so the .dts stays the one source of the clock. CLKOP_CPHASE = (ClkopDiv - 1) / 2 is the
// zero-phase setting, as Project Trellis's ecppll writes it. In
// simulation a testbench model of EHXPLLL stands in (tests/fpga/EHXPLLL.sv).
module wse_ecp5_pll #(
  parameter int unsigned ClkiDiv  = 1,
  parameter int unsigned ClkfbDiv = 1,
  parameter int unsigned ClkopDiv = 32
) (
  input  logic clk_i,
  output logic clk_o,
  output logic locked_o
);
  logic clkop;
  logic unused_clkos, unused_clkos2, unused_clkos3, unused_intlock, unused_refclk,
        unused_clkintfb;

  // The loop filter's settings (charge pump current, filter resistor, op
  // amp, reference current) that Lattice's tools and prjtrellis's ecppll
  // give this PLL; nextpnr-ecp5 takes them from the cell's attributes.
  (* ICP_CURRENT = "12", LPF_RESISTOR = "8", MFG_ENABLE_FILTEROPAMP = "1",
     MFG_GMCREF_SEL = "2" *)
  EHXPLLL #(
    .CLKI_DIV        (ClkiDiv),
    .CLKFB_DIV       (ClkfbDiv),
    .CLKOP_DIV       (ClkopDiv),
    .CLKOP_CPHASE    ((ClkopDiv - 1) / 2),
    .CLKOP_FPHASE    (0),
    .CLKOP_ENABLE    ("ENABLED"),
    .FEEDBK_PATH     ("CLKOP"),
    .PLLRST_ENA      ("DISABLED"),
    .INTFB_WAKE      ("DISABLED"),
    .STDBY_ENABLE    ("DISABLED"),
    .DPHASE_SOURCE   ("DISABLED"),
    .OUTDIVIDER_MUXA ("DIVA")
  ) u_pll (
    .CLKI         (clk_i),
    .CLKFB        (clkop),
    .PHASESEL1    (1'b0),
    .PHASESEL0    (1'b0),
    .PHASEDIR     (1'b0),
    .PHASESTEP    (1'b0),
    .PHASELOADREG (1'b0),
    .STDBY        (1'b0),
    .PLLWAKESYNC  (1'b0),
    .RST          (1'b0),
    .ENCLKOP      (1'b0),
    .ENCLKOS      (1'b0),
    .ENCLKOS2     (1'b0),
    .ENCLKOS3     (1'b0),
    .CLKOP        (clkop),
    .CLKOS        (unused_clkos),
    .CLKOS2       (unused_clkos2),
    .CLKOS3       (unused_clkos3),
    .LOCK         (locked_o),
    .INTLOCK      (unused_intlock),
    .REFCLK       (unused_refclk),
    .CLKINTFB     (unused_clkintfb)
  );
  assign clk_o = clkop;
endmodule
