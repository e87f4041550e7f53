// The block under test of the ECP5 primitive models' check
// (tests/fpga/ecp5-models/check.sh): memories and multipliers in the
// shapes Yosys maps onto DP16KD and MULT18X18D, written plainly so that
// the RTL is the reference. The check simulates this RTL and its
// synth_ecp5 netlist (with tests/fpga/DP16KD.sv, MULT18X18D.sv and
// Yosys's cell models) side by side on random stimulus and compares every
// output on every cycle. Testbench only: not part of the product's RTL.
module ecp5_models_dut (
  input  logic        clk_i,
  // A: 512 x 36, one write port with four 9-bit byte enables, one read
  // port (the 36-bit pseudo dual port).
  input  logic        a_we_i,
  input  logic [3:0]  a_be_i,
  input  logic [8:0]  a_waddr_i,
  input  logic [35:0] a_wdata_i,
  input  logic [8:0]  a_raddr_i,
  output logic [35:0] a_rdata_o,
  // B: 1,024 x 18, a port that reads and writes with two 9-bit byte
  // enables, reading the old word while writing (READBEFOREWRITE), and a
  // read port; each with its clock enable.
  input  logic        b0_en_i, b0_we_i, b1_en_i,
  input  logic [1:0]  b0_be_i,
  input  logic [9:0]  b0_addr_i, b1_addr_i,
  input  logic [17:0] b0_wdata_i,
  output logic [17:0] b0_rdata_o, b1_rdata_o,
  // C: 4,096 x 4, one port, the new word read while writing (WRITETHROUGH).
  input  logic        c_we_i,
  input  logic [11:0] c_addr_i,
  input  logic [3:0]  c_wdata_i,
  output logic [3:0]  c_rdata_o,
  // D: 2,048 x 9, one write port and one read port with a clock enable.
  input  logic        d_we_i, d_re_i,
  input  logic [10:0] d_waddr_i, d_raddr_i,
  input  logic [8:0]  d_wdata_i,
  output logic [8:0]  d_rdata_o,
  // Multipliers: signed and unsigned 18 x 18, and 32 x 32 (several blocks).
  input  logic [17:0] m_a_i, m_b_i,
  input  logic [31:0] m_c_i, m_d_i,
  output logic [35:0] m_signed_o, m_unsigned_o,
  output logic [63:0] m_wide_o
);
  (* ram_style = "block" *) logic [35:0] a_mem [512];
  (* ram_style = "block" *) logic [17:0] b_mem [1024];
  (* ram_style = "block" *) logic [3:0]  c_mem [4096];
  (* ram_style = "block" *) logic [8:0]  d_mem [2048];

  // Initial contents, which Yosys gives the block RAMs as INITVAL (the
  // 4-bit memory's stay zero: its layout in a word is not modelled).
  initial begin
    for (int i = 0; i < 512; i++) a_mem[i] = {4{9'(i * 37 + 5)}};
    for (int i = 0; i < 1024; i++) b_mem[i] = {2{9'(i * 11 + 3)}};
    for (int i = 0; i < 4096; i++) c_mem[i] = '0;
    for (int i = 0; i < 2048; i++) d_mem[i] = 9'(i * 5 + 1);
  end

  always_ff @(posedge clk_i) begin
    if (a_we_i) begin
      for (int l = 0; l < 4; l++) if (a_be_i[l]) a_mem[a_waddr_i][l * 9 +: 9] <= a_wdata_i[l * 9 +: 9];
    end
    a_rdata_o <= a_mem[a_raddr_i];
  end

  always_ff @(posedge clk_i) begin
    if (b0_en_i) begin
      if (b0_we_i) begin
        for (int l = 0; l < 2; l++) if (b0_be_i[l]) b_mem[b0_addr_i][l * 9 +: 9] <= b0_wdata_i[l * 9 +: 9];
      end
      b0_rdata_o <= b_mem[b0_addr_i];
    end
  end
  always_ff @(posedge clk_i) begin
    if (b1_en_i) b1_rdata_o <= b_mem[b1_addr_i];
  end

  always_ff @(posedge clk_i) begin
    if (c_we_i) begin
      c_mem[c_addr_i] <= c_wdata_i;
      c_rdata_o <= c_wdata_i;
    end else begin
      c_rdata_o <= c_mem[c_addr_i];
    end
  end

  always_ff @(posedge clk_i) begin
    if (d_we_i) d_mem[d_waddr_i] <= d_wdata_i;
    if (d_re_i) d_rdata_o <= d_mem[d_raddr_i];
  end

  assign m_signed_o   = 36'($signed(m_a_i) * $signed(m_b_i));
  assign m_unsigned_o = 36'(m_a_i) * 36'(m_b_i);
  assign m_wide_o     = 64'(m_c_i) * 64'(m_d_i);
endmodule
