// Assertion and cover macros for every wsemu block, in three builds:
//  - simulation (Verilator --assert): concurrent SVA, reported by $error;
//  - formal (yosys read_verilog -formal, FORMAL defined): immediate asserts
//    in a clocked block, with an explicit $past-style register where a
//    property spans two cycles, because Yosys 0.23 rejects concurrent SVA;
//  - synthesis (SYNTHESIS defined): nothing at all.
// Use at the end of a module, after the logic. Names must be unique in the
// module. All properties are disabled while rst_ni is low.
`ifndef PRIM_ASSERT_SVH
`define PRIM_ASSERT_SVH

`ifdef SYNTHESIS
  `define ASSERT(name, prop, clk = clk_i, rst_n = rst_ni)
  `define ASSERT_NEXT(name, pre, post, clk = clk_i, rst_n = rst_ni)
  `define ASSERT_KNOWN(name, sig, clk = clk_i, rst_n = rst_ni)
  `define ASSERT_ONEHOT0(name, sig, clk = clk_i, rst_n = rst_ni)
  `define COVER(name, prop, clk = clk_i, rst_n = rst_ni)
`elsif FORMAL
  // prop holds in every cycle out of reset.
  `define ASSERT(name, prop, clk = clk_i, rst_n = rst_ni) \
    always @(posedge clk) if (rst_n) name: assert (prop);
  // If pre holds in one cycle (out of reset), post holds in the next.
  `define ASSERT_NEXT(name, pre, post, clk = clk_i, rst_n = rst_ni) \
    reg name``_past_q = 1'b0; \
    always @(posedge clk) name``_past_q <= rst_n && (pre); \
    always @(posedge clk) if (rst_n && name``_past_q) name: assert (post);
  `define ASSERT_KNOWN(name, sig, clk = clk_i, rst_n = rst_ni)
  `define ASSERT_ONEHOT0(name, sig, clk = clk_i, rst_n = rst_ni) \
    always @(posedge clk) if (rst_n) name: assert (((sig) & ((sig) - 1'b1)) == '0);
  `define COVER(name, prop, clk = clk_i, rst_n = rst_ni) \
    always @(posedge clk) if (rst_n) name: cover (prop);
`else
  `define ASSERT(name, prop, clk = clk_i, rst_n = rst_ni) \
    name: assert property (@(posedge clk) disable iff (!(rst_n)) (prop)) \
      else $error("assertion %m failed: %s", `"prop`");
  `define ASSERT_NEXT(name, pre, post, clk = clk_i, rst_n = rst_ni) \
    name: assert property (@(posedge clk) disable iff (!(rst_n)) (pre) |=> (post)) \
      else $error("assertion %m failed: %s |=> %s", `"pre`", `"post`");
  `define ASSERT_KNOWN(name, sig, clk = clk_i, rst_n = rst_ni) \
    name: assert property (@(posedge clk) disable iff (!(rst_n)) !$isunknown(sig)) \
      else $error("assertion %m failed: %s is X", `"sig`");
  `define ASSERT_ONEHOT0(name, sig, clk = clk_i, rst_n = rst_ni) \
    name: assert property (@(posedge clk) disable iff (!(rst_n)) $onehot0(sig)) \
      else $error("assertion %m failed: %s not one-hot", `"sig`");
  `define COVER(name, prop, clk = clk_i, rst_n = rst_ni) \
    name: cover property (@(posedge clk) disable iff (!(rst_n)) (prop));
`endif

`endif // PRIM_ASSERT_SVH
