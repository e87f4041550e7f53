# rtl/host_if: the host interface (link framing, executor, event sender, the
# crossings to the mesh). The generic crossing leaves are in rtl/prim
# (RTL_PRIM_CDC_SRCS); the block RAM of the slots and outlets is listed with
# the event sender, the first block that uses it.
RTL_HIF_PKGS      := rtl/host_if/hif_pkg.sv
# hif_crc32c, the one-cycle CRC of both framing halves and of FLASH_VERIFY
# (hif_flash), is listed with the receiver; whoever builds the transmitter
# or the executor without it takes RTL_HIF_CRC_SRCS too.
RTL_HIF_CRC_SRCS  := rtl/host_if/hif_crc32c.sv
RTL_HIF_RX_SRCS   := $(RTL_HIF_CRC_SRCS) rtl/host_if/hif_rx_frame.sv
RTL_HIF_TX_SRCS   := rtl/host_if/hif_tx_frame.sv
RTL_HIF_EVT_SRCS  := $(RTL_PRIM_SDP_SRCS) rtl/host_if/hif_tx_arb.sv rtl/host_if/hif_evt.sv
# hif_flash runs the flash requests on rtl/flash's controller: whoever
# builds the executor takes RTL_FLASH_PKGS and RTL_FLASH_SRCS too.
RTL_HIF_EXEC_SRCS := rtl/host_if/hif_slot_ram.sv rtl/host_if/hif_req_check.sv rtl/host_if/hif_mgmt_seq.sv \
	rtl/host_if/hif_si_lanes.sv \
	rtl/host_if/hif_flash.sv rtl/host_if/hif_exec.sv
# Link clock <-> mesh clock, one module per kind of traffic; the tops of
# their lint and synthesis.
RTL_HIF_CDC_TOPS  := hif_vc_gate hif_edge_in_cdc hif_edge_out_cdc hif_mgmt_cdc hif_putc_cdc
RTL_HIF_CDC_SRCS  := $(foreach t,$(RTL_HIF_CDC_TOPS),rtl/host_if/$(t).sv)
# The UART link PHY of the boards (bytes on a line <-> the framing's words).
RTL_HIF_UART_TOPS := hif_uart_rx hif_uart_tx hif_uart_pack hif_uart_unpack hif_uart
RTL_HIF_UART_SRCS := $(foreach t,$(RTL_HIF_UART_TOPS),rtl/host_if/$(t).sv)
RTL_HIF_SRCS      := $(RTL_HIF_RX_SRCS) $(RTL_HIF_TX_SRCS) $(RTL_HIF_EVT_SRCS) \
	$(RTL_HIF_EXEC_SRCS) $(RTL_HIF_CDC_SRCS)
# The board side of a PCIe endpoint (docs/pcie.md): BAR 0, the two
# descriptor-ring DMA engines, MSI-X requests; its FIFO is the fabric's
# prim_fifo_sync on prim_ram_1r1w, its arbiters prim_arb_rr.
RTL_HIF_PCIE_PKGS := rtl/host_if/hif_pcie_pkg.sv
RTL_HIF_PCIE_SRCS := rtl/prim/prim_ram_1r1w.sv rtl/prim/prim_fifo_sync.sv rtl/prim/prim_arb_rr.sv \
	rtl/host_if/hif_pcie_wdog.sv rtl/host_if/hif_pcie_arb.sv rtl/host_if/hif_pcie_msix.sv \
	rtl/host_if/hif_pcie_regs.sv rtl/host_if/hif_pcie_ring.sv rtl/host_if/hif_pcie_h2c.sv \
	rtl/host_if/hif_pcie_c2h.sv rtl/host_if/hif_pcie_ep.sv
# The device top's ROM behind the endpoint's ROM port (wse_top with PcieEp).
RTL_HIF_PCIE_ROM_SRCS := rtl/host_if/hif_pcie_rom.sv
