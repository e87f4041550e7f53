// The clock of an ECP5 board's configuration flash. The flash's SCK is the
// FPGA's CCLK pin, which has no user I/O cell: after configuration user
// logic reaches it only through the USRMCLK primitive, which has inputs
// only (USRMCLKI, USRMCLKTS: the CCLK pin is its output, as in Yosys's and
// nextpnr-ecp5's cell library). The flash's other pins (CS#, MOSI, MISO)
// are ordinary I/O in the board's LPF. In simulation a testbench model of
// USRMCLK stands in (tests/fpga/USRMCLK.sv).
module wse_ecp5_cfg_sck (
  input logic sck_i
);
  USRMCLK u_usrmclk (
    .USRMCLKI (sck_i),
    .USRMCLKTS(1'b0)  // CCLK driven (not tristated) from configuration on
  );
endmodule
