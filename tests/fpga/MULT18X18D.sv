// Testbench model of the ECP5 18x18 multiplier (MULT18X18D) for Verilator
// runs of synth_ecp5 netlists (the gate-level board top, mk/bitstream.mk):
// Yosys ships the primitive as a black box only. It models the
// configuration Yosys's multiplier mapping writes: no input, pipeline or
// output register (every REG_*_CLK "NONE"), so P is the product of A and B
// in the same cycle, each operand signed when its SIGNED pin is high;
// SOURCEA/SOURCEB take the operand from the shift input SRIA/SRIB instead.
// Anything else stops the simulation at time 0 with the reason.
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNUSEDPARAM */
module MULT18X18D #(
  parameter string REG_INPUTA_CLK = "NONE", REG_INPUTA_CE = "CE0", REG_INPUTA_RST = "RST0",
  parameter string REG_INPUTB_CLK = "NONE", REG_INPUTB_CE = "CE0", REG_INPUTB_RST = "RST0",
  parameter string REG_INPUTC_CLK = "NONE", REG_INPUTC_CE = "CE0", REG_INPUTC_RST = "RST0",
  parameter string REG_PIPELINE_CLK = "NONE", REG_PIPELINE_CE = "CE0", REG_PIPELINE_RST = "RST0",
  parameter string REG_OUTPUT_CLK = "NONE", REG_OUTPUT_CE = "CE0", REG_OUTPUT_RST = "RST0",
  parameter string CLK0_DIV = "ENABLED", CLK1_DIV = "ENABLED", CLK2_DIV = "ENABLED",
  parameter string CLK3_DIV = "ENABLED", HIGHSPEED_CLK = "NONE", GSR = "ENABLED",
  parameter string CAS_MATCH_REG = "FALSE", SOURCEB_MODE = "B_SHIFT", MULT_BYPASS = "DISABLED",
  parameter string RESETMODE = "SYNC"
) (
  input  logic A17, A16, A15, A14, A13, A12, A11, A10, A9, A8, A7, A6, A5, A4, A3, A2, A1, A0,
  input  logic B17, B16, B15, B14, B13, B12, B11, B10, B9, B8, B7, B6, B5, B4, B3, B2, B1, B0,
  input  logic C17, C16, C15, C14, C13, C12, C11, C10, C9, C8, C7, C6, C5, C4, C3, C2, C1, C0,
  input  logic SRIA17, SRIA16, SRIA15, SRIA14, SRIA13, SRIA12, SRIA11, SRIA10, SRIA9, SRIA8, SRIA7, SRIA6, SRIA5, SRIA4, SRIA3, SRIA2, SRIA1, SRIA0,
  input  logic SRIB17, SRIB16, SRIB15, SRIB14, SRIB13, SRIB12, SRIB11, SRIB10, SRIB9, SRIB8, SRIB7, SRIB6, SRIB5, SRIB4, SRIB3, SRIB2, SRIB1, SRIB0,
  input  logic SIGNEDA, SIGNEDB, SOURCEA, SOURCEB,
  input  logic CLK3, CLK2, CLK1, CLK0, CE3, CE2, CE1, CE0, RST3, RST2, RST1, RST0,
  output logic SROA17, SROA16, SROA15, SROA14, SROA13, SROA12, SROA11, SROA10, SROA9, SROA8, SROA7, SROA6, SROA5, SROA4, SROA3, SROA2, SROA1, SROA0,
  output logic SROB17, SROB16, SROB15, SROB14, SROB13, SROB12, SROB11, SROB10, SROB9, SROB8, SROB7, SROB6, SROB5, SROB4, SROB3, SROB2, SROB1, SROB0,
  output logic ROA17, ROA16, ROA15, ROA14, ROA13, ROA12, ROA11, ROA10, ROA9, ROA8, ROA7, ROA6, ROA5, ROA4, ROA3, ROA2, ROA1, ROA0,
  output logic ROB17, ROB16, ROB15, ROB14, ROB13, ROB12, ROB11, ROB10, ROB9, ROB8, ROB7, ROB6, ROB5, ROB4, ROB3, ROB2, ROB1, ROB0,
  output logic ROC17, ROC16, ROC15, ROC14, ROC13, ROC12, ROC11, ROC10, ROC9, ROC8, ROC7, ROC6, ROC5, ROC4, ROC3, ROC2, ROC1, ROC0,
  output logic P35, P34, P33, P32, P31, P30, P29, P28, P27, P26, P25, P24, P23, P22, P21, P20, P19, P18, P17, P16, P15, P14, P13, P12, P11, P10, P9, P8, P7, P6, P5, P4, P3, P2, P1, P0,
  output logic SIGNEDP
);
  initial begin
    if (REG_INPUTA_CLK != "NONE" || REG_INPUTB_CLK != "NONE" || REG_INPUTC_CLK != "NONE" ||
        REG_PIPELINE_CLK != "NONE" || REG_OUTPUT_CLK != "NONE" || MULT_BYPASS != "DISABLED")
      $fatal(1, "MULT18X18D %m: registers or the bypass are not modelled");
  end

  logic [17:0] a, b, c, sria, srib;
  logic [35:0] p;
  assign a = {A17, A16, A15, A14, A13, A12, A11, A10, A9, A8, A7, A6, A5, A4, A3, A2, A1, A0};
  assign b = {B17, B16, B15, B14, B13, B12, B11, B10, B9, B8, B7, B6, B5, B4, B3, B2, B1, B0};
  assign c = {C17, C16, C15, C14, C13, C12, C11, C10, C9, C8, C7, C6, C5, C4, C3, C2, C1, C0};
  assign sria = {SRIA17, SRIA16, SRIA15, SRIA14, SRIA13, SRIA12, SRIA11, SRIA10, SRIA9, SRIA8, SRIA7,
                 SRIA6, SRIA5, SRIA4, SRIA3, SRIA2, SRIA1, SRIA0};
  assign srib = {SRIB17, SRIB16, SRIB15, SRIB14, SRIB13, SRIB12, SRIB11, SRIB10, SRIB9, SRIB8, SRIB7,
                 SRIB6, SRIB5, SRIB4, SRIB3, SRIB2, SRIB1, SRIB0};

  logic [17:0] opa, opb;
  logic signed [18:0] sa, sb;
  logic signed [37:0] prod;
  assign opa = SOURCEA ? sria : a;
  assign opb = SOURCEB ? srib : b;
  // Each operand one bit wider, sign- or zero-extended by its SIGNED pin.
  assign sa = {SIGNEDA & opa[17], opa};
  assign sb = {SIGNEDB & opb[17], opb};
  assign prod = 38'(sa) * 38'(sb);
  assign p = prod[35:0];

  assign {P35, P34, P33, P32, P31, P30, P29, P28, P27, P26, P25, P24, P23, P22, P21, P20, P19, P18,
          P17, P16, P15, P14, P13, P12, P11, P10, P9, P8, P7, P6, P5, P4, P3, P2, P1, P0} = p;
  assign SIGNEDP = SIGNEDA | SIGNEDB;
  // Without input registers the operand outputs pass the operands through.
  assign {ROA17, ROA16, ROA15, ROA14, ROA13, ROA12, ROA11, ROA10, ROA9, ROA8, ROA7, ROA6, ROA5, ROA4,
          ROA3, ROA2, ROA1, ROA0} = opa;
  assign {ROB17, ROB16, ROB15, ROB14, ROB13, ROB12, ROB11, ROB10, ROB9, ROB8, ROB7, ROB6, ROB5, ROB4,
          ROB3, ROB2, ROB1, ROB0} = opb;
  assign {ROC17, ROC16, ROC15, ROC14, ROC13, ROC12, ROC11, ROC10, ROC9, ROC8, ROC7, ROC6, ROC5, ROC4,
          ROC3, ROC2, ROC1, ROC0} = c;
  assign {SROA17, SROA16, SROA15, SROA14, SROA13, SROA12, SROA11, SROA10, SROA9, SROA8, SROA7, SROA6,
          SROA5, SROA4, SROA3, SROA2, SROA1, SROA0} = opa;
  assign {SROB17, SROB16, SROB15, SROB14, SROB13, SROB12, SROB11, SROB10, SROB9, SROB8, SROB7, SROB6,
          SROB5, SROB4, SROB3, SROB2, SROB1, SROB0} = opb;
endmodule
/* verilator lint_on UNUSEDPARAM */
/* verilator lint_on UNUSEDSIGNAL */
