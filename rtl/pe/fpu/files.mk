# rtl/pe/fpu: the FPU (top fpu) and its coprocessor wrapper for the core.
RTL_FPU_PKGS     := rtl/pe/fpu/fpu_pkg.sv
RTL_FPU_SRCS     := $(addprefix rtl/pe/fpu/,fpu_lzc.sv fpu_unpack.sv fpu_round.sv \
	fpu_fma_pre.sv fpu_fma_add.sv fpu_divsqrt.sv fpu_f2i.sv fpu_i2f.sv \
	fpu_misc.sv fpu.sv)
RTL_FPU_COP_SRCS := rtl/pe/fpu/fpu_cop.sv
