// The board's ROM behind the PCIe device side's ROM port (docs/pcie.md,
// "Register port"): BAR 0's COMPAT window (the compatible string,
// NUL-padded) and its DTB window, from the constants wse-cfggen generates
// (wse_dtb_pkg). A registered read: data the cycle after the address.
// Addresses outside both windows, or past the DTB's last word, read 0.
module hif_pcie_rom #(
  parameter int unsigned      DtbWords = 1,
  parameter logic [64*DtbWords-1:0] DtbRom = '0,
  parameter logic [511:0]     Compat   = '0
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [15:0] addr_i,
  output logic [31:0] rdata_o
);
  localparam int unsigned CompatAt = hif_pcie_pkg::PcieRegCompat;
  localparam int unsigned CompatEnd = CompatAt + hif_pcie_pkg::PcieCompatBytes;
  localparam int unsigned DtbAt = hif_pcie_pkg::PcieDtbOffset;

  logic [31:0] rdata_d, rdata_q;
  logic [13:0] word;  // 32-bit word in the window

  always_comb begin
    rdata_d = '0;
    word    = '0;
    if (32'(addr_i) >= CompatAt && 32'(addr_i) < CompatEnd) begin
      word    = 14'((32'(addr_i) - CompatAt) >> 2);
      rdata_d = Compat[32*word[3:0] +: 32];
    end else if (32'(addr_i) >= DtbAt) begin
      word = 14'((32'(addr_i) - DtbAt) >> 2);
      if (32'(word) < 2 * DtbWords) rdata_d = DtbRom[32*word +: 32];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) rdata_q <= '0;
    else         rdata_q <= rdata_d;
  end

  assign rdata_o = rdata_q;

  logic unused_addr;
  assign unused_addr = ^addr_i[1:0];  // 32-bit accesses only
endmodule
