// Dataflow interface of a PE: the register window reached by the custom-0
// instructions (df.rd / df.wr), vector operation codes and the layout of a
// vector-operation word. Mirrored by firmware/runtime/wse_df.h; documented
// in docs/pe-programming.md.
package wse_df_pkg;
  localparam logic [6:0] OpcCustom0 = 7'b0001011;
  localparam logic [2:0] F3Read  = 3'd1;  // df.rd rd, imm(rs1)   (I-type)
  localparam logic [2:0] F3Write = 3'd2;  // df.wr rs2, imm(rs1)  (S-type)

  // Register window (word numbers; address = rs1 + imm).
  localparam logic [11:0] RegRecv     = 12'h000;  // +c  rd: pop color c (blocks)  wr: send data on c
  localparam logic [11:0] RegQstat    = 12'h020;  // +c  rd: {head ctrl[31], count}  wr: send control on c
  localparam logic [11:0] RegBind     = 12'h040;  // +c  {en[31], task[5:0]}
  localparam logic [11:0] RegNext     = 12'h060;  // rd: next ready task; wr: activate task
  localparam logic [11:0] RegBlock    = 12'h061;  // rd: blocked[31:0];  wr: block task
  localparam logic [11:0] RegUnblock  = 12'h062;  // rd: blocked[63:32]; wr: unblock task
  localparam logic [11:0] RegActive   = 12'h063;  // rd: active[31:0];   wr: deactivate task
  localparam logic [11:0] RegActiveH  = 12'h064;  // rd: active[63:32]
  localparam logic [11:0] RegVop      = 12'h070;  // wr: issue (blocks while the queue is full); rd: status
  localparam logic [11:0] RegVscalar  = 12'h071;  // scalar for the next issued operation
  localparam logic [11:0] RegVflags   = 12'h072;  // rd: sticky flags (NV..NX [4:0], sparse [8]); wr: clear
  localparam logic [11:0] RegVwait    = 12'h073;  // rd: blocks until the engine is idle, returns flags
  localparam logic [11:0] RegVdone    = 12'h074;  // rd: operations completed (32-bit counter)
  localparam logic [11:0] RegMov      = 12'h075;  // wr: issue a move (blocks while its queue is full); rd: status
  localparam logic [11:0] RegMdone    = 12'h076;  // rd: moves completed (32-bit counter); wr: clear the error bit
  localparam logic [11:0] RegMwait    = 12'h077;  // rd: blocks until the move channel is idle, returns MDONE
  localparam logic [11:0] RegDsd      = 12'h080;  // +8*d+f: descriptor d field f

  // Descriptor fields.
  localparam int unsigned DsdBase = 0;  // byte address in DMEM, or color
  localparam int unsigned DsdLen0 = 1;
  localparam int unsigned DsdSt0  = 2;  // words, signed
  localparam int unsigned DsdLen1 = 3;
  localparam int unsigned DsdSt1  = 4;  // words, signed
  localparam int unsigned DsdType = 5;  // 0 memory, 1 fabric
  localparam int unsigned DsdAdv  = 6;  // words added to base at each issue, signed
  localparam int unsigned NumDsd  = 8;

  // Vector operations.
  localparam logic [3:0] VFmov  = 4'd0;  // dst = a
  localparam logic [3:0] VFadd  = 4'd1;  // dst = a + B
  localparam logic [3:0] VFmul  = 4'd2;  // dst = a * B
  localparam logic [3:0] VFmac  = 4'd3;  // dst = dst + a * B  (fused)
  localparam logic [3:0] VFmax  = 4'd4;  // dst = max(a, B)
  localparam logic [3:0] VRelu  = 4'd5;  // dst = max(a, +0)
  localparam logic [3:0] VSpmac = 4'd6;  // a sparse share on b: FMULS, then FMACS per value
  localparam logic [3:0] VSpidx = 4'd7;  // an index-only share on b: into the gather table
  // Gather table (SPIDX) entries, and the operation word's gather flag.
  localparam int unsigned GatherMax = 1024;
  localparam int unsigned VopGather = 25;

  // B operand source.
  localparam logic [1:0] BVec     = 2'd0;  // element of descriptor b
  localparam logic [1:0] BScalar  = 2'd1;  // Vscalar, for the whole operation
  localparam logic [1:0] BPerPass = 2'd2;  // one element of b per pass (row)
  // FMACS only: dst = b + a * Vscalar, the addend an element of b (so dst
  // is not read and may be the fabric); other operations take Vscalar as B
  // and do not use b, as with BScalar.
  localparam logic [1:0] BAddend  = 2'd3;
  // SPMACS's bmode: 0 the chain starts with the first product, SpAcc every
  // value is fmadd'ed into dst (an empty share leaves it).
  localparam logic [1:0] SpAcc    = 2'd1;

  // Operation word: [3:0] op, [6:4] dst, [9:7] a, [12:10] b, [14:13] bmode,
  // [15] activate a task on completion, [21:16] that task, [24:22] rm,
  // [25] gather (a through the gather table).
  localparam int unsigned NumTasks = 64;
endpackage
