# rtl/flash: the SPI NOR flash controller (the ULX3S's configuration flash):
# the shift engine and the command sequencer. docs/flash.md.
RTL_FLASH_PKGS := rtl/flash/flash_pkg.sv
RTL_FLASH_SRCS := rtl/flash/flash_spi.sv rtl/flash/flash_ctrl.sv
