# rtl/prim: the leaves every block builds on, and the assertion macros.
RTL_PRIM_INC      := -Irtl/prim
RTL_PRIM_HDRS     := rtl/prim/prim_assert.svh
# Reset synchronizer (one per clock domain at the top of a design).
RTL_PRIM_RST_SRCS := rtl/prim/prim_rst_sync.sv
# The router's queues (the FIFO and the distributed RAM of its entries),
# credit counters and arbiters, with the reset synchronizer of a fabric mesh.
RTL_PRIM_FABRIC_SRCS := $(RTL_PRIM_RST_SRCS) rtl/prim/prim_ram_1r1w.sv \
	rtl/prim/prim_fifo_sync.sv rtl/prim/prim_credit_cnt.sv rtl/prim/prim_arb_rr.sv
# SRAMs with a registered read (block RAM); prim_ram_1r1w above is the
# distributed-RAM leaf.
RTL_PRIM_RAM_SRCS := rtl/prim/prim_ram_1p.sv rtl/prim/prim_ram_2p.sv
# Distributed RAM with several asynchronous read ports: prim_ram_nr1w, no
# reset (the dataflow unit's color queues, the vector engine's operation
# queue: read only where valid), and
# prim_ram_1wnr, the same with entries reading 0 from reset until written
# (the core's x and f registers). Not RAM macros: the generic syntheses
# build them, where RTL_PRIM_RAM_SRCS are black boxes.
RTL_PRIM_LUTRAM_SRCS := rtl/prim/prim_ram_nr1w.sv rtl/prim/prim_ram_1wnr.sv
# Combinational leaves: the tree-shaped priority encoder (the dataflow
# unit's task scheduler).
RTL_PRIM_LOGIC_SRCS := rtl/prim/prim_prio_enc.sv
# Block RAM with whole-word writes and a registered read: the host
# interface's request slots and stream-out buffers.
RTL_PRIM_SDP_SRCS := rtl/prim/prim_ram_sdp.sv
# Clock-domain crossing: two-flop synchronizer, asynchronous FIFO.
RTL_PRIM_CDC_SRCS := rtl/prim/prim_flop_2sync.sv rtl/prim/prim_fifo_async.sv
RTL_PRIM_SRCS     := $(RTL_PRIM_FABRIC_SRCS) $(RTL_PRIM_RAM_SRCS) $(RTL_PRIM_LUTRAM_SRCS) \
	$(RTL_PRIM_LOGIC_SRCS) $(RTL_PRIM_SDP_SRCS) \
	$(RTL_PRIM_CDC_SRCS)
