// Constants of the SPI NOR flash controller (rtl/flash): the parts'
// command set, the request and status codes of flash_ctrl, and the
// datasheet times its default time-outs come from. docs/flash.md.
package flash_pkg;
  // Requests of flash_ctrl.
  typedef enum logic [1:0] {
    OpRead        = 2'd0,  // len bytes from addr
    OpEraseSector = 2'd1,  // the 4 KiB sector at addr
    OpProgramPage = 2'd2,  // len bytes at addr, within one 256-byte page
    OpReadId      = 2'd3   // JEDEC ID: manufacturer, type, capacity
  } op_e;

  // Outcome of a request. The values are not the link protocol's status
  // codes (docs/protocol.md 4.12): the host executor maps them.
  typedef enum logic [2:0] {
    StOk      = 3'd0,
    StTimeout = 3'd1,  // WIP still set when the time-out ran out
    StFlash   = 3'd2,  // the part did not set WEL after WREN
    StRange   = 3'd3,  // past the end of the flash
    StAlign   = 3'd4   // erase not on a sector, program across a page
  } status_e;

  // SPI NOR commands (single-bit SPI, 3-byte addresses), common to the
  // IS25LP128 and the W25Q128JV. (The 64 KiB block erase, 0xD8, is not
  // used: erase goes sector by sector.)
  localparam logic [7:0] CmdRead  = 8'h03;
  localparam logic [7:0] CmdWren  = 8'h06;
  localparam logic [7:0] CmdRdsr  = 8'h05;
  localparam logic [7:0] CmdPp    = 8'h02;
  localparam logic [7:0] CmdSe    = 8'h20;
  localparam logic [7:0] CmdRdid  = 8'h9F;
  // Status register bits.
  localparam int unsigned SrWip = 0;
  localparam int unsigned SrWel = 1;

  localparam int unsigned SectorBytes = 4096;
  localparam int unsigned PageBytes   = 256;
  localparam int unsigned IdBytes     = 3;
  // 128 Mbit: the largest part 3-byte addresses reach.
  localparam int unsigned FlashBytes  = 32'h0100_0000;

  // Bus timing at the 25 MHz clock: SCK 6.25 MHz (clocks per half
  // period), CS# high 120 ns between commands (CsHigh + 1 clocks; the parts
  // need 50 ns after a write command).
  localparam int unsigned SckDiv = 2;
  localparam int unsigned CsHigh = 2;
  // Request lengths up to 65,536 bytes, the largest FLASH_READ of the
  // link protocol.
  localparam int unsigned LenW = 17;

  // Worst cases of the datasheets (IS25LP128: sector erase 300 ms, page
  // program 0.8 ms; W25Q128JV: 400 ms, 3 ms), and the ULX3S's 25 MHz clock.
  localparam int unsigned ClkMhz          = 25;
  localparam int unsigned SectorEraseMaxUs = 400_000;
  localparam int unsigned PageProgramMaxUs = 3_000;
  localparam int unsigned EraseTimeout     = ClkMhz * SectorEraseMaxUs;  // 10,000,000 cycles
  localparam int unsigned ProgramTimeout   = ClkMhz * PageProgramMaxUs;  // 75,000 cycles
endpackage
