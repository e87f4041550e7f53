# rtl/board: what an FPGA board's top adds around the device top (wse_top):
# the PLL of its FPGA family, LEDs. The tops themselves are in
# boards/<board>/ beside the board's .dts and pin constraints.
RTL_BOARD_SRCS := rtl/board/wse_heartbeat.sv rtl/board/wse_led_stretch.sv
RTL_BOARD_ECP5_SRCS := rtl/board/wse_ecp5_pll.sv rtl/board/wse_ecp5_cfg_sck.sv
