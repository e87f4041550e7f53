// Yosys's simulation models of the ECP5 cells a synth_ecp5 netlist uses
// (LUT4, PFUMX, L6MUX21, CCU2C, TRELLIS_DPR16X4, TRELLIS_FF, ...), from the
// share directory of the flow's pinned Yosys (on the include path), for
// simulations of the netlist under Verilator. Its cells_sim_ecp5.v is not used: it
// declares DP16KD as a black box, which tests/fpga/DP16KD.sv models.
`include "common_sim.vh"
`include "ccu2c_sim.vh"
