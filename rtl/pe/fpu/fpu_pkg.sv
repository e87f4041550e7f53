// FPU definitions shared by the FPU blocks and the core that drives them.
// Operation and rounding-mode codes mirror tests/fpu/fpu_model.h.
package fpu_pkg;
  localparam int unsigned OpW = 5;
  typedef enum logic [OpW-1:0] {
    OpAdd    = 5'd0,  OpSub    = 5'd1,  OpMul    = 5'd2,  OpDiv    = 5'd3,
    OpSqrt   = 5'd4,  OpMadd   = 5'd5,  OpMsub   = 5'd6,  OpNmsub  = 5'd7,
    OpNmadd  = 5'd8,  OpSgnj   = 5'd9,  OpSgnjn  = 5'd10, OpSgnjx  = 5'd11,
    OpMin    = 5'd12, OpMax    = 5'd13, OpEq     = 5'd14, OpLt     = 5'd15,
    OpLe     = 5'd16, OpClass  = 5'd17, OpCvtWS  = 5'd18, OpCvtWuS = 5'd19,
    OpCvtSW  = 5'd20, OpCvtSWu = 5'd21, OpMvXW   = 5'd22, OpMvWX   = 5'd23
  } op_e;

  // RISC-V rm encoding (DYN = 3'b111 is resolved by the core before issue).
  typedef enum logic [2:0] {
    RmRne = 3'd0, RmRtz = 3'd1, RmRdn = 3'd2, RmRup = 3'd3, RmRmm = 3'd4
  } rm_e;

  // fflags bit positions (fcsr[4:0]).
  localparam int unsigned FlagNx = 0;
  localparam int unsigned FlagUf = 1;
  localparam int unsigned FlagOf = 2;
  localparam int unsigned FlagDz = 3;
  localparam int unsigned FlagNv = 4;

  localparam logic [31:0] CanonNan = 32'h7fc0_0000;

  // Signed exponent width inside the datapath: wide enough for product,
  // quotient and alignment exponents of binary32 without wrap-around.
  localparam int unsigned ExpW = 11;

  // Significand handed to the rounder: 24 kept bits, a round bit and one
  // more bit, plus a separate sticky.
  localparam int unsigned RndW = 26;

  // An operation for the PE's FPU from one of its users (wse_pe_fpu: the
  // F extension and the vector engine), and its result.
  typedef struct packed {
    op_e         op;
    logic [2:0]  rm;
    logic [31:0] a;
    logic [31:0] b;
    logic [31:0] c;
  } req_t;
  typedef struct packed {
    logic [31:0] result;
    logic [4:0]  flags;    // NV DZ OF UF NX, to OR into fflags
  } rsp_t;
endpackage
