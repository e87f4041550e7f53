// Management network: layout of the packet that travels the chain of tile
// management nodes (docs/management.md). One packet is in flight at a time.
package wse_mgmt_pkg;
  localparam int unsigned CoordW = 8;   // = wse_pkg::CoordW

  // Bit positions in a chain packet.
  localparam int unsigned PktValid = 0;   // a packet is present
  localparam int unsigned PktRsp   = 1;   // 1: response (data = read data)
  localparam int unsigned PktWrite = 2;
  localparam int unsigned PktBcast = 3;   // every tile performs the write
  localparam int unsigned PktX     = 4;   // [11:4]
  localparam int unsigned PktY     = PktX + CoordW;        // [19:12]
  localparam int unsigned PktAddr  = PktY + CoordW;        // [51:20]
  localparam int unsigned PktData  = PktAddr + 32;         // [83:52]
  localparam int unsigned PktErr   = PktData + 32;         // 84
  localparam int unsigned PktW     = PktErr + 1;           // 85

  // Tile register map (docs/register-map.md): byte addresses.
  localparam logic [31:0] AddrTileId     = 32'h0000_0000;
  localparam logic [31:0] AddrTileCtrl   = 32'h0000_0004;
  localparam logic [31:0] AddrTileStatus = 32'h0000_0008;
  localparam logic [31:0] AddrRouteBase  = 32'h0000_1000;  // + 4*color
  localparam logic [31:0] AddrCntBase    = 32'h0000_2000;  // + 16*port + 0/4/8
  localparam logic [31:0] AddrTileBus    = 32'h0001_0000;  // and above
  localparam logic [15:0] TileIdMagic    = 16'h5753;       // "WS"
  // TILE_CTRL bits.
  localparam logic [31:0] TileCtrlHalt     = 32'h1;  // the core does not fetch
  localparam logic [31:0] TileCtrlCoreRst  = 32'h2;  // the core is held in reset
  localparam logic [31:0] TileCtrlCntClear = 32'h4;  // clear the router counters
endpackage
