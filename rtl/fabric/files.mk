# rtl/fabric: router and management network.
RTL_FABRIC_PKGS := rtl/fabric/wse_mgmt_pkg.sv
RTL_FABRIC_SRCS := rtl/fabric/wse_router.sv rtl/fabric/wse_mgmt_node.sv \
	rtl/fabric/wse_mgmt_port.sv
