# rtl/top: the device top (link, host interface, mesh). Its DTB package,
# wse_dtb_pkg, is generated per board (mk/devserver.mk).
RTL_TOP_SRCS := rtl/top/wse_top.sv
