// Host I/O watcher of a tile: observes the core's stores to the host I/O
// block at the start of DMEM (the stores also reach memory as usual).
//  - tohost (64-bit, the riscv-tests / HTIF convention): acted on when the
//    high word is stored, as QEMU does. Device 0 command 0 with an odd
//    value ends the program: 1 = pass, (code << 1) | 1 = failure code.
//    Device 1 command 1 is the HTIF console: the low byte is printed.
//  - putchar word: any store prints its low byte.
// A store that would print waits while the console cannot take a character
// (putc_ready_i low): hold_o keeps it from the DMEM arbiter, so the core
// stalls on it as on any store that is not granted, and no character is
// lost (docs/host-if.md, "Console").
`include "prim_assert.svh"

module wse_pe_hostio (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        req_i,           // a core store is asked for this cycle
  input  logic        store_i,         // a granted core store this cycle
  input  logic [31:0] addr_i,
  input  logic [31:0] wdata_i,
  input  logic        putc_ready_i,    // the console takes a character this cycle
  output logic        hold_o,          // keep the asked store from DMEM
  output logic        exit_valid_o,    // pulse: the program ended
  output logic [31:0] exit_value_o,    // tohost low word (1 = pass)
  output logic        putc_valid_o,    // pulse: a character
  output logic [7:0]  putc_char_o,
  output logic        done_o,          // sticky: the program ended
  output logic [31:0] exit_code_o      // sticky: tohost low word of the end
);
  logic [31:0] lo_q, lo_d;
  logic        done_q, done_d;
  logic [31:0] code_q, code_d;

  logic wr_lo, wr_hi, wr_putc;
  assign wr_lo   = store_i && addr_i == wse_pe_pkg::TohostAddr;
  assign wr_hi   = store_i && addr_i == wse_pe_pkg::TohostAddr + 32'd4;
  assign wr_putc = store_i && addr_i == wse_pe_pkg::PutcharAddr;

  logic [7:0] dev, cmd;
  assign dev = wdata_i[31:24];
  assign cmd = wdata_i[23:16];

  // Would the asked store print? Only the address and data decide, not the
  // grant, so the hold does not depend on the arbiter it feeds.
  logic prints;
  assign prints = req_i && (addr_i == wse_pe_pkg::PutcharAddr ||
                            (addr_i == wse_pe_pkg::TohostAddr + 32'd4 && dev == 8'd1 && cmd == 8'd1));
  assign hold_o = prints && !putc_ready_i;

  always_comb begin
    lo_d         = wr_lo ? wdata_i : lo_q;
    done_d       = done_q;
    code_d       = code_q;
    exit_valid_o = 1'b0;
    exit_value_o = lo_q;
    putc_valid_o = 1'b0;
    putc_char_o  = lo_q[7:0];
    if (wr_hi) begin
      if (dev == 8'd0 && cmd == 8'd0 && lo_q[0]) begin
        exit_valid_o = 1'b1;
        done_d       = 1'b1;
        code_d       = lo_q;
      end else if (dev == 8'd1 && cmd == 8'd1) begin
        putc_valid_o = 1'b1;
      end
    end else if (wr_putc) begin
      putc_valid_o = 1'b1;
      putc_char_o  = wdata_i[7:0];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lo_q   <= 32'd0;
      done_q <= 1'b0;
      code_q <= 32'd0;
    end else begin
      lo_q   <= lo_d;
      done_q <= done_d;
      code_q <= code_d;
    end
  end

  assign done_o      = done_q;
  assign exit_code_o = code_q;

  // A character leaves only when the console can take it.
  `ASSERT(PutcOnlyWhenReady, putc_valid_o |-> putc_ready_i)
endmodule
