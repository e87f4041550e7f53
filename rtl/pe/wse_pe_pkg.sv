// Definitions of the tile core (RV32IM, machine mode): memory map, opcodes,
// internal operation codes, CSR numbers and exception causes.
package wse_pe_pkg;
  // ---- Memory map (docs/core.md) ------------------------------------------
  // The same addresses work on qemu-system-riscv32 -M spike, whose RAM
  // starts at 0x8000_0000, so one ELF runs on both.
  localparam logic [31:0] ImemBase    = 32'h8000_0000;
  localparam logic [31:0] DmemBase    = 32'h8010_0000;
  localparam logic [31:0] BootAddr    = ImemBase;
  // Host I/O block at the start of DMEM (plain memory that the tile also
  // watches): 64-bit tohost, 64-bit fromhost, then the putchar word.
  localparam logic [31:0] TohostAddr  = DmemBase + 32'h00;
  localparam logic [31:0] FromhostAddr = DmemBase + 32'h08;
  localparam logic [31:0] PutcharAddr = DmemBase + 32'h10;

  // ---- Base opcodes ---------------------------------------------------------
  localparam logic [6:0] OpLoad    = 7'b0000011;
  localparam logic [6:0] OpLoadFp  = 7'b0000111;
  localparam logic [6:0] OpMiscMem = 7'b0001111;
  localparam logic [6:0] OpCustom0 = 7'b0001011;
  localparam logic [6:0] OpCustom1 = 7'b0101011;
  localparam logic [6:0] OpOpImm   = 7'b0010011;
  localparam logic [6:0] OpAuipc   = 7'b0010111;
  localparam logic [6:0] OpStore   = 7'b0100011;
  localparam logic [6:0] OpStoreFp = 7'b0100111;
  localparam logic [6:0] OpOp      = 7'b0110011;
  localparam logic [6:0] OpLui     = 7'b0110111;
  localparam logic [6:0] OpMadd    = 7'b1000011;
  localparam logic [6:0] OpMsub    = 7'b1000111;
  localparam logic [6:0] OpNmsub   = 7'b1001011;
  localparam logic [6:0] OpNmadd   = 7'b1001111;
  localparam logic [6:0] OpOpFp    = 7'b1010011;
  localparam logic [6:0] OpBranch  = 7'b1100011;
  localparam logic [6:0] OpJalr    = 7'b1100111;
  localparam logic [6:0] OpJal     = 7'b1101111;
  localparam logic [6:0] OpSystem  = 7'b1110011;

  // ---- ALU operations -------------------------------------------------------
  typedef enum logic [3:0] {
    AluAdd, AluSub, AluSll, AluSlt, AluSltu, AluXor, AluSrl, AluSra,
    AluOr, AluAnd, AluPassB
  } alu_op_e;

  // Operand A source
  typedef enum logic [1:0] { OpASrcRs1, OpASrcPc, OpASrcZero } op_a_sel_e;

  // What an instruction does in the execute stage.
  typedef enum logic [3:0] {
    KindAlu, KindBranch, KindJal, KindJalr, KindLoad, KindStore, KindMulDiv,
    KindCsr, KindEcall, KindEbreak, KindMret, KindNop, KindCop
  } kind_e;

  // Register write-back source
  typedef enum logic [2:0] { WbAlu, WbPc4, WbLoad, WbMulDiv, WbCsr, WbCop } wb_sel_e;

  // Load/store size (funct3[1:0])
  localparam logic [1:0] SizeByte = 2'd0;
  localparam logic [1:0] SizeHalf = 2'd1;
  localparam logic [1:0] SizeWord = 2'd2;

  // ---- CSRs -------------------------------------------------------------------
  localparam logic [11:0] CsrFflags    = 12'h001;  // F extension (fcsr fields)
  localparam logic [11:0] CsrFrm       = 12'h002;
  localparam logic [11:0] CsrFcsr      = 12'h003;
  localparam logic [11:0] CsrMstatus   = 12'h300;
  localparam logic [11:0] CsrMisa      = 12'h301;
  localparam logic [11:0] CsrMie       = 12'h304;
  localparam logic [11:0] CsrMtvec     = 12'h305;
  localparam logic [11:0] CsrMstatush  = 12'h310;
  localparam logic [11:0] CsrMcountinhibit = 12'h320;
  localparam logic [11:0] CsrMscratch  = 12'h340;
  localparam logic [11:0] CsrMepc      = 12'h341;
  localparam logic [11:0] CsrMcause    = 12'h342;
  localparam logic [11:0] CsrMtval     = 12'h343;
  localparam logic [11:0] CsrMip       = 12'h344;
  localparam logic [11:0] CsrDpc       = 12'h7b1;  // management only: resume pc
  localparam logic [11:0] CsrMcycle    = 12'hb00;
  localparam logic [11:0] CsrMinstret  = 12'hb02;
  localparam logic [11:0] CsrMcycleh   = 12'hb80;
  localparam logic [11:0] CsrMinstreth = 12'hb82;
  localparam logic [11:0] CsrCycle     = 12'hc00;
  localparam logic [11:0] CsrInstret   = 12'hc02;
  localparam logic [11:0] CsrCycleh    = 12'hc80;
  localparam logic [11:0] CsrInstreth  = 12'hc82;
  localparam logic [11:0] CsrMvendorid = 12'hf11;
  localparam logic [11:0] CsrMarchid   = 12'hf12;
  localparam logic [11:0] CsrMimpid    = 12'hf13;
  localparam logic [11:0] CsrMhartid   = 12'hf14;

  // misa: MXL = 1 (32-bit), extensions F, I and M.
  localparam logic [31:0] MisaValue = 32'h4000_1120;

  // ---- Exception causes (mcause) --------------------------------------------
  localparam logic [4:0] ExcInstrMisaligned = 5'd0;
  localparam logic [4:0] ExcInstrAccess     = 5'd1;
  localparam logic [4:0] ExcIllegal         = 5'd2;
  localparam logic [4:0] ExcBreakpoint      = 5'd3;
  localparam logic [4:0] ExcLoadMisaligned  = 5'd4;
  localparam logic [4:0] ExcLoadAccess      = 5'd5;
  localparam logic [4:0] ExcStoreMisaligned = 5'd6;
  localparam logic [4:0] ExcStoreAccess     = 5'd7;
  localparam logic [4:0] ExcEcallM          = 5'd11;
endpackage
