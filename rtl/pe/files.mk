# rtl/pe: the tile's PE and its RV32IM core (the dataflow unit and the FPU
# are in their own folders).
RTL_PE_PKGS := rtl/pe/wse_pe_pkg.sv
RTL_PE_SRCS := $(addprefix rtl/pe/,wse_pe_alu.sv wse_pe_decoder.sv wse_pe_regfile.sv \
	wse_pe_muldiv.sv wse_pe_csr.sv wse_pe_lsu.sv wse_pe_core.sv \
	wse_pe_imem.sv wse_pe_dmem.sv wse_pe_hostio.sv wse_pe_fpu.sv wse_pe.sv)
