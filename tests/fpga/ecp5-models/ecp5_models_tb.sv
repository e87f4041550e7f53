// The ECP5 primitive models' check (tests/fpga/ecp5-models/check.sh): the
// RTL of ecp5_models_dut and its synth_ecp5 netlist (renamed
// ecp5_models_dut_gl) on the same inputs; the testbench (tb.cpp) drives
// stim_i and compares rtl_o with gl_o. Testbench only.
module ecp5_models_tb (
  input  logic         clk_i,
  input  logic [255:0] stim_i,
  output logic [220:0] rtl_o,
  output logic [220:0] gl_o
);
  // The inputs, in the order of the ports below.
  logic        a_we, b0_en, b0_we, b1_en, c_we, d_we, d_re;
  logic [3:0]  a_be, c_wdata;
  logic [1:0]  b0_be;
  logic [8:0]  a_waddr, a_raddr, d_wdata;
  logic [35:0] a_wdata;
  logic [9:0]  b0_addr, b1_addr;
  logic [17:0] b0_wdata, m_a, m_b;
  logic [11:0] c_addr;
  logic [10:0] d_waddr, d_raddr;
  logic [31:0] m_c, m_d;
  logic [3:0]  unused;
  assign {unused, a_we, a_be, a_waddr, a_wdata, a_raddr, b0_en, b0_we, b1_en, b0_be, b0_addr, b1_addr,
          b0_wdata, c_we, c_addr, c_wdata, d_we, d_re, d_waddr, d_raddr, d_wdata, m_a, m_b, m_c,
          m_d} = stim_i;

  ecp5_models_dut u_rtl (
    .clk_i, .a_we_i(a_we), .a_be_i(a_be), .a_waddr_i(a_waddr), .a_wdata_i(a_wdata),
    .a_raddr_i(a_raddr), .a_rdata_o(rtl_o[220:185]), .b0_en_i(b0_en), .b0_we_i(b0_we),
    .b1_en_i(b1_en), .b0_be_i(b0_be), .b0_addr_i(b0_addr), .b1_addr_i(b1_addr),
    .b0_wdata_i(b0_wdata), .b0_rdata_o(rtl_o[184:167]), .b1_rdata_o(rtl_o[166:149]),
    .c_we_i(c_we), .c_addr_i(c_addr), .c_wdata_i(c_wdata), .c_rdata_o(rtl_o[148:145]),
    .d_we_i(d_we), .d_re_i(d_re), .d_waddr_i(d_waddr), .d_raddr_i(d_raddr), .d_wdata_i(d_wdata),
    .d_rdata_o(rtl_o[144:136]), .m_a_i(m_a), .m_b_i(m_b), .m_c_i(m_c), .m_d_i(m_d),
    .m_signed_o(rtl_o[135:100]), .m_unsigned_o(rtl_o[99:64]), .m_wide_o(rtl_o[63:0])
  );

  ecp5_models_dut_gl u_gl (
    .clk_i, .a_we_i(a_we), .a_be_i(a_be), .a_waddr_i(a_waddr), .a_wdata_i(a_wdata),
    .a_raddr_i(a_raddr), .a_rdata_o(gl_o[220:185]), .b0_en_i(b0_en), .b0_we_i(b0_we),
    .b1_en_i(b1_en), .b0_be_i(b0_be), .b0_addr_i(b0_addr), .b1_addr_i(b1_addr),
    .b0_wdata_i(b0_wdata), .b0_rdata_o(gl_o[184:167]), .b1_rdata_o(gl_o[166:149]),
    .c_we_i(c_we), .c_addr_i(c_addr), .c_wdata_i(c_wdata), .c_rdata_o(gl_o[148:145]),
    .d_we_i(d_we), .d_re_i(d_re), .d_waddr_i(d_waddr), .d_raddr_i(d_raddr), .d_wdata_i(d_wdata),
    .d_rdata_o(gl_o[144:136]), .m_a_i(m_a), .m_b_i(m_b), .m_c_i(m_c), .m_d_i(m_d),
    .m_signed_o(gl_o[135:100]), .m_unsigned_o(gl_o[99:64]), .m_wide_o(gl_o[63:0])
  );
endmodule
