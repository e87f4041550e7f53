# rtl/pkg: the fixed definitions (mirror of include/wsemu/wse_wire.h). The
# board package wse_cfg_pkg is generated per board: RTL_CFG_PKG.
RTL_PKG_SRCS := rtl/pkg/wse_pkg.sv
