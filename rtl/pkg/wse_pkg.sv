// Fixed fabric definitions shared by every block. Mirrors the C header
// include/wsemu/wse_wire.h; tests/wire checks that the two agree.
// Board-dependent sizes live in the generated wse_cfg_pkg.
package wse_pkg;
  // Wavelet: [31:0] data, [36:32] color, [37] control.
  localparam int unsigned DataW     = 32;
  localparam int unsigned ColorW    = 5;
  localparam int unsigned WaveletW  = 38;
  localparam int unsigned ColorLsb  = 32;
  localparam int unsigned CtrlBit   = 37;
  localparam int unsigned NumColors = 32;
  localparam int unsigned FirstInfraColor = 24;  // 24..31 reserved

  // Router ports; a route mask bit i refers to port i.
  localparam int unsigned NumPorts  = 5;
  localparam int unsigned PortNorth = 0;
  localparam int unsigned PortEast  = 1;
  localparam int unsigned PortSouth = 2;
  localparam int unsigned PortWest  = 3;
  localparam int unsigned PortRamp  = 4;

  // Tile coordinates: x = column (0 at the west edge), y = row (0 north).
  localparam int unsigned CoordW = 8;
endpackage
