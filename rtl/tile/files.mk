# rtl/tile: the fabric tile (router and management node) and the whole
# tile (fabric tile and PE).
RTL_TILE_FABRIC_SRCS := rtl/tile/wse_fabric_tile.sv
RTL_TILE_SRCS        := rtl/tile/wse_tile.sv
