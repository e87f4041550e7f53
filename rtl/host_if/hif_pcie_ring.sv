// One descriptor ring in host memory, the part both DMA directions share:
// fetches the descriptor at the head when the host's tail is ahead, checks
// it (docs/pcie.md: alignment, length, reserved flags), hands its buffer to
// the direction's data mover, writes the completion over the descriptor's
// second half and advances the head. A refused descriptor is completed
// with its error code, nothing moved, and the ring stops; so does one
// whose read or write the bus does not answer within Timeout cycles.
`include "prim_assert.svh"

module hif_pcie_ring #(
  parameter int unsigned      IdxW    = 16,       // ring index bits
  parameter int unsigned      TagW    = 4,
  parameter logic [TagW-3:0]  Id      = '0,       // requester number in the tag
  parameter int unsigned      LenW    = 6,        // read length field, words
  parameter int unsigned      MaxLen  = hif_pcie_pkg::PcieDescMaxLen,
  parameter int unsigned      Timeout = 1 << 20
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  // From the register file.
  input  logic            run_i,     // rising: the head starts at 0
  input  logic [63:0]     base_i,
  input  logic [IdxW-1:0] mask_i,    // entries - 1
  input  logic [IdxW-1:0] tail_i,
  output logic [IdxW-1:0] head_o,
  output logic            busy_o,
  output logic            irq_o,     // pulse: a descriptor completed, interrupt wanted
  output logic [7:0]      err_o,     // pulse: hif_pcie_pkg::PcieErr* bits
  output logic            stop_o,    // pulse: the ring stopped on an error
  // DMA reads (descriptors).
  output logic            rd_valid_o,
  input  logic            rd_ready_i,
  output logic [63:0]     rd_addr_o,
  output logic [LenW-1:0] rd_len_o,
  output logic [TagW-1:0] rd_tag_o,
  input  logic            cpl_valid_i,
  input  logic [TagW-1:0] cpl_tag_i,
  input  logic [63:0]     cpl_data_i,
  input  logic            cpl_err_i,
  // DMA writes (completions).
  output logic            wr_valid_o,
  input  logic            wr_ready_i,
  output logic [63:0]     wr_addr_o,
  output logic [63:0]     wr_data_o,
  // The direction's data mover.
  output logic            xfer_start_o,  // pulse, with the buffer below
  output logic [63:0]     xfer_addr_o,
  output logic [31:0]     xfer_len_o,
  input  logic            xfer_done_i,   // pulse, with the outcome below
  input  logic [31:0]     xfer_bytes_i,
  input  logic            xfer_eop_i,
  input  logic [7:0]      xfer_code_i
);
  typedef enum logic [2:0] {SIdle, SRead, SWord0, SWord1, SCheck, SXfer, SWrite} state_e;

  localparam logic [31:0] FlagsRsvd = ~32'(hif_pcie_pkg::PcieDescFlagsKnown);
  localparam logic [7:0]  CodeOk    = 8'(hif_pcie_pkg::PcieCplOk);

  state_e          state_q, state_d;
  logic [IdxW-1:0] head_q, head_d;
  logic [1:0]      seq_q, seq_d;        // tag of the read in flight
  logic [63:0]     addr_q, addr_d;      // the descriptor's buffer
  logic [31:0]     len_q, len_d, flags_q, flags_d;
  logic [31:0]     bytes_q, bytes_d;    // the completion's fields
  logic [7:0]      code_q, code_d;
  logic            eop_q, eop_d;
  logic [63:0]     slot;                // the head's descriptor in host memory
  logic            cpl_mine, expired;
  logic            run_q, start;

  assign start = run_i && !run_q;  // the register file starts an idle ring only

  assign slot     = base_i + {{(60 - IdxW){1'b0}}, head_q, 4'h0};
  assign cpl_mine = cpl_valid_i && cpl_tag_i == {Id, seq_q};

  hif_pcie_wdog #(.Timeout(Timeout)) u_wdog (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .wait_i    ((state_q == SRead && !rd_ready_i) || state_q == SWord0 || state_q == SWord1 ||
                (state_q == SWrite && !wr_ready_i)),
    .expired_o (expired)
  );

  always_comb begin
    state_d = state_q;
    head_d  = head_q;
    seq_d   = seq_q;
    addr_d  = addr_q;
    len_d   = len_q;
    flags_d = flags_q;
    bytes_d = bytes_q;
    code_d  = code_q;
    eop_d   = eop_q;
    irq_o   = 1'b0;
    err_o   = '0;
    stop_o  = 1'b0;
    xfer_start_o = 1'b0;
    unique case (state_q)
      SIdle: begin
        if (start) head_d = '0;
        else if (run_i && head_q != tail_i) state_d = SRead;
      end
      SRead: begin
        if (rd_ready_i) state_d = SWord0;
      end
      SWord0: begin
        if (cpl_mine) begin
          addr_d  = cpl_data_i;
          state_d = SWord1;
        end
      end
      SWord1: begin
        if (cpl_mine) begin
          len_d   = cpl_data_i[31:0];
          flags_d = cpl_data_i[63:32];
          state_d = SCheck;
        end
      end
      SCheck: begin
        // The first failing check decides the code; nothing is moved.
        bytes_d = '0;
        eop_d   = 1'b0;
        code_d  = CodeOk;
        if (addr_q[2:0] != '0 || len_q[2:0] != '0) begin
          code_d = 8'(hif_pcie_pkg::PcieCplAlign);
          err_o  = 8'(hif_pcie_pkg::PcieErrDescAlign);
        end else if (len_q > 32'(MaxLen)) begin
          code_d = 8'(hif_pcie_pkg::PcieCplLen);
          err_o  = 8'(hif_pcie_pkg::PcieErrDescLen);
        end else if ((flags_q & FlagsRsvd) != '0) begin
          code_d = 8'(hif_pcie_pkg::PcieCplRsvd);
          err_o  = 8'(hif_pcie_pkg::PcieErrDescRsvd);
        end
        if (err_o != '0 || len_q == '0) begin
          state_d = SWrite;  // refused, or nothing to move
        end else begin
          xfer_start_o = 1'b1;
          state_d      = SXfer;
        end
      end
      SXfer: begin
        if (xfer_done_i) begin
          bytes_d = xfer_bytes_i;
          eop_d   = xfer_eop_i;
          code_d  = xfer_code_i;
          state_d = SWrite;
          if (xfer_code_i == 8'(hif_pcie_pkg::PcieCplTimeout)) begin
            err_o = 8'(hif_pcie_pkg::PcieErrTimeout);
          end else if (xfer_code_i != CodeOk) begin
            err_o = 8'(hif_pcie_pkg::PcieErrBus);
          end
        end
      end
      SWrite: begin
        if (wr_ready_i) begin
          head_d  = (head_q + IdxW'(1)) & mask_i;
          state_d = SIdle;
          if (code_q != CodeOk) begin
            irq_o  = 1'b0;
            stop_o = 1'b1;
          end else begin
            irq_o = (flags_q & 32'(hif_pcie_pkg::PcieDescNoIrq)) == '0;
          end
        end
      end
      default: state_d = SIdle;
    endcase
    // A descriptor read answered with an error: completed BUS, ring stops.
    if ((state_q == SWord0 || state_q == SWord1) && cpl_mine && cpl_err_i) begin
      bytes_d = '0;
      eop_d   = 1'b0;
      flags_d = '0;
      code_d  = 8'(hif_pcie_pkg::PcieCplBus);
      err_o   = 8'(hif_pcie_pkg::PcieErrBus);
      state_d = SWrite;
    end
    // A read or write the bus never answered: the ring stops as it is; a
    // late completion of the read no longer carries the tag in flight (the
    // arbiter still offers a request the port has not taken).
    if (expired) begin
      err_o   = 8'(hif_pcie_pkg::PcieErrTimeout);
      stop_o  = 1'b1;
      state_d = SIdle;
    end
    if (expired) seq_d = seq_q + 2'd1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      run_q   <= 1'b0;
      state_q <= SIdle;
      head_q  <= '0;
      seq_q   <= '0;
      addr_q  <= '0;
      len_q   <= '0;
      flags_q <= '0;
      bytes_q <= '0;
      code_q  <= '0;
      eop_q   <= 1'b0;
    end else begin
      run_q   <= run_i;
      state_q <= state_d;
      head_q  <= head_d;
      seq_q   <= seq_d;
      addr_q  <= addr_d;
      len_q   <= len_d;
      flags_q <= flags_d;
      bytes_q <= bytes_d;
      code_q  <= code_d;
      eop_q   <= eop_d;
    end
  end

  assign head_o      = head_q;
  assign busy_o      = state_q != SIdle;
  assign rd_valid_o  = state_q == SRead;
  assign rd_addr_o   = slot;
  assign rd_len_o    = LenW'(2);
  assign rd_tag_o    = {Id, seq_q};
  assign wr_valid_o  = state_q == SWrite;
  assign wr_addr_o   = slot + 64'(hif_pcie_pkg::PcieCplOffLen);
  assign wr_data_o   = {32'(hif_pcie_pkg::PcieCplDone) | (eop_q ? 32'(hif_pcie_pkg::PcieCplEop) : '0) |
                        {24'h0, code_q}, bytes_q};
  assign xfer_addr_o = addr_q;
  assign xfer_len_o  = len_q;

  // ---- assertions --------------------------------------------------------
  // The register file starts only a stopped ring that is not busy.
  `ASSERT(StartIdle, !start || state_q == SIdle)
  // The head only moves within the ring (the register file refuses a tail
  // outside it), so it never passes the mask.
  `ASSERT(HeadInRing, (head_q & ~mask_i) == '0 || !run_i)
  // The mover answers only a transfer it was given.
  `ASSERT(DoneOnlyInXfer, !xfer_done_i || state_q == SXfer)
  // Requests stay offered until the bus takes them.
  `ASSERT_NEXT(RdHeld, rd_valid_o && !rd_ready_i && !expired, rd_valid_o && $stable(rd_addr_o))
  `ASSERT_NEXT(WrHeld, wr_valid_o && !wr_ready_i && !expired,
               wr_valid_o && $stable(wr_addr_o) && $stable(wr_data_o))
  // Nothing is moved for a refused or empty descriptor.
  `ASSERT(NoXferRefused, !xfer_start_o || (err_o == '0 && len_q != '0))
endmodule
