# rtl/pe/dataflow: the PE's dataflow unit (fabric interface, tasks, vector
# engine with its descriptors, operand cache, completion queue and gather
# table, move channel).
RTL_DF_PKGS := rtl/pe/dataflow/wse_df_pkg.sv
RTL_DF_SRCS := $(addprefix rtl/pe/dataflow/,wse_df_fabric.sv wse_df_gather.sv wse_df_dsd.sv \
	wse_df_opcache.sv wse_df_rob.sv wse_df_vec.sv wse_df_mov.sv wse_df.sv)
