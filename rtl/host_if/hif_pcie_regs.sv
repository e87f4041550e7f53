// BAR 0 of the PCIe device side (docs/pcie.md): identification, the two
// rings' configuration and doorbells, interrupt status and mask, error
// status. Register accesses are 32-bit; a read is answered in the cycle
// after it is taken, the compatible string and the DTB from the board's ROM
// port (asked in the request's cycle, a registered read). A ring starts
// only with an aligned base and a power-of-two size, and takes only tails
// inside it: anything else sets an error bit and is not applied.
`include "prim_assert.svh"

module hif_pcie_regs #(
  parameter int unsigned IdxW       = 16,
  parameter int unsigned MeshCols   = 4,
  parameter int unsigned MeshRows   = 4,
  parameter int unsigned DtbSize    = 0,
  parameter int unsigned MaxPayload = 4096,
  parameter int unsigned MaxLen     = hif_pcie_pkg::PcieDescMaxLen,
  parameter int unsigned RingMax    = hif_pcie_pkg::PcieRingMaxEntries
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // Register port (BAR 0).
  input  logic              reg_valid_i,
  output logic              reg_ready_o,
  input  logic              reg_write_i,
  input  logic [15:0]       reg_addr_i,   // byte offset, 4-byte aligned
  input  logic [31:0]       reg_wdata_i,
  output logic              reg_rvalid_o,
  output logic [31:0]       reg_rdata_o,
  // The board's ROM: compatible string and DTB, by BAR 0 offset.
  output logic [15:0]       rom_addr_o,
  input  logic [31:0]       rom_rdata_i,
  // The rings, H2C at index 0, C2H at 1.
  output logic [1:0]        ring_run_o,
  output logic [127:0]      ring_base_o,
  output logic [2*IdxW-1:0] ring_mask_o,
  output logic [2*IdxW-1:0] ring_tail_o,
  input  logic [2*IdxW-1:0] ring_head_i,
  input  logic [1:0]        ring_busy_i,
  input  logic [1:0]        ring_irq_i,
  input  logic [15:0]       ring_err_i,
  input  logic [1:0]        ring_stop_i,
  // Interrupts (hif_pcie_msix).
  output logic [2:0]        int_status_o,
  output logic [2:0]        int_mask_o
);
  localparam int unsigned RingBlk = hif_pcie_pkg::PcieRegC2h - hif_pcie_pkg::PcieRegH2c;

  logic [63:0]   base_q [2];
  logic [63:0]   base_d [2];
  logic [31:0]   size_q [2];
  logic [31:0]   size_d [2];
  logic [IdxW-1:0] tail_q [2];
  logic [IdxW-1:0] tail_d [2];
  logic [1:0]    run_q, run_d;
  logic [2:0]    ist_q, ist_d, imask_q, imask_d;
  logic [15:0]   err_q, err_d, err_new;
  logic          rvalid_q, rom_sel_q, rom_sel;
  logic [31:0]   rdata_q, rdata_d;
  logic          wr, rd;
  logic [15:0]   addr;

  assign wr   = reg_valid_i && reg_write_i;
  assign rd   = reg_valid_i && !reg_write_i;
  assign addr = {reg_addr_i[15:2], 2'b00};

  // A size the ring can take: a power of two from 1 to RingMax.
  function automatic logic size_ok(logic [31:0] s);
    size_ok = s != '0 && (s & (s - 32'd1)) == '0 && s <= 32'(RingMax);
  endfunction

  always_comb begin
    run_d   = run_q & ~ring_stop_i;
    ist_d   = ist_q;
    imask_d = imask_q;
    err_new = ring_err_i;
    rdata_d = '0;
    for (int unsigned r = 0; r < 2; r++) begin
      base_d[r] = base_q[r];
      size_d[r] = size_q[r];
      tail_d[r] = tail_q[r];
    end
    // Writes.
    if (wr) begin
      for (int unsigned r = 0; r < 2; r++) begin
        if (addr[15:6] == 10'((hif_pcie_pkg::PcieRegH2c + r * RingBlk) >> 6)) begin
          unique case (6'(addr[5:0]))
            // Fixed while the ring runs or finishes its last descriptor.
            6'(hif_pcie_pkg::PcieRingBaseLo): if (!run_q[r] && !ring_busy_i[r]) base_d[r][31:0] = reg_wdata_i;
            6'(hif_pcie_pkg::PcieRingBaseHi): if (!run_q[r] && !ring_busy_i[r]) base_d[r][63:32] = reg_wdata_i;
            6'(hif_pcie_pkg::PcieRingSize):   if (!run_q[r] && !ring_busy_i[r]) size_d[r] = reg_wdata_i;
            6'(hif_pcie_pkg::PcieRingTail): begin
              // A doorbell while stopped is ignored; one outside the ring
              // is refused.
              if (run_q[r]) begin
                if (reg_wdata_i < size_q[r]) tail_d[r] = IdxW'(reg_wdata_i);
                else err_new[8*r +: 8] = err_new[8*r +: 8] | 8'(hif_pcie_pkg::PcieErrTail);
              end
            end
            6'(hif_pcie_pkg::PcieRingCtrl): begin
              if ((reg_wdata_i & 32'(hif_pcie_pkg::PcieCtrlRun)) == '0) begin
                run_d[r] = 1'b0;  // stops after the descriptor in progress
              end else if (!run_q[r] && !ring_busy_i[r]) begin
                if (base_q[r][3:0] != '0) begin
                  err_new[8*r +: 8] = err_new[8*r +: 8] | 8'(hif_pcie_pkg::PcieErrRingAlign);
                end else if (!size_ok(size_q[r])) begin
                  err_new[8*r +: 8] = err_new[8*r +: 8] | 8'(hif_pcie_pkg::PcieErrRingSize);
                end else begin
                  run_d[r]  = 1'b1;
                  tail_d[r] = '0;
                end
              end
            end
            default: ;
          endcase
        end
      end
      unique case (addr)
        16'(hif_pcie_pkg::PcieRegIntStatus): ist_d = ist_q & ~reg_wdata_i[2:0];
        16'(hif_pcie_pkg::PcieRegIntMask):   imask_d = reg_wdata_i[2:0];
        default: ;
      endcase
    end
    err_d = err_q;
    if (wr && addr == 16'(hif_pcie_pkg::PcieRegErrStatus)) err_d = err_q & ~reg_wdata_i[15:0];
    // New events after the clears: an event in the cycle of its clear stays.
    err_d = err_d | err_new;
    ist_d[hif_pcie_pkg::PcieVecH2c] = ist_d[hif_pcie_pkg::PcieVecH2c] | ring_irq_i[0];
    ist_d[hif_pcie_pkg::PcieVecC2h] = ist_d[hif_pcie_pkg::PcieVecC2h] | ring_irq_i[1];
    ist_d[hif_pcie_pkg::PcieVecErr] = ist_d[hif_pcie_pkg::PcieVecErr] | (err_new != '0);
    // Reads.
    unique case (addr)
      16'(hif_pcie_pkg::PcieRegMagic):      rdata_d = hif_pcie_pkg::PcieMagic;
      16'(hif_pcie_pkg::PcieRegMeshCols):   rdata_d = MeshCols;
      16'(hif_pcie_pkg::PcieRegMeshRows):   rdata_d = MeshRows;
      16'(hif_pcie_pkg::PcieRegDtbSize):    rdata_d = DtbSize;
      16'(hif_pcie_pkg::PcieRegMaxPayload): rdata_d = MaxPayload;
      16'(hif_pcie_pkg::PcieRegVersion):    rdata_d = hif_pcie_pkg::PcieVersion;
      16'(hif_pcie_pkg::PcieRegDtbOffset):  rdata_d = hif_pcie_pkg::PcieDtbOffset;
      16'(hif_pcie_pkg::PcieRegDescMax):    rdata_d = MaxLen;
      16'(hif_pcie_pkg::PcieRegRingMax):    rdata_d = RingMax;
      16'(hif_pcie_pkg::PcieRegIntStatus):  rdata_d = {29'h0, ist_q};
      16'(hif_pcie_pkg::PcieRegIntMask):    rdata_d = {29'h0, imask_q};
      16'(hif_pcie_pkg::PcieRegErrStatus):  rdata_d = {16'h0, err_q};
      default: ;
    endcase
    for (int unsigned r = 0; r < 2; r++) begin
      if (addr[15:6] == 10'((hif_pcie_pkg::PcieRegH2c + r * RingBlk) >> 6)) begin
        unique case (6'(addr[5:0]))
          6'(hif_pcie_pkg::PcieRingBaseLo): rdata_d = base_q[r][31:0];
          6'(hif_pcie_pkg::PcieRingBaseHi): rdata_d = base_q[r][63:32];
          6'(hif_pcie_pkg::PcieRingSize):   rdata_d = size_q[r];
          6'(hif_pcie_pkg::PcieRingTail):   rdata_d = 32'(tail_q[r]);
          6'(hif_pcie_pkg::PcieRingHead):   rdata_d = 32'(ring_head_i[IdxW*r +: IdxW]);
          6'(hif_pcie_pkg::PcieRingCtrl):
            rdata_d = (run_q[r] ? 32'(hif_pcie_pkg::PcieCtrlRun) : '0) |
                      (ring_busy_i[r] ? 32'(hif_pcie_pkg::PcieCtrlBusy) : '0);
          default: ;
        endcase
      end
    end
  end

  // The ROM windows: the compatible string and the DTB.
  assign rom_sel = (addr >= 16'(hif_pcie_pkg::PcieRegCompat) &&
                    addr < 16'(hif_pcie_pkg::PcieRegCompat + hif_pcie_pkg::PcieCompatBytes)) ||
                   addr >= 16'(hif_pcie_pkg::PcieDtbOffset);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int unsigned r = 0; r < 2; r++) begin
        base_q[r] <= '0;
        size_q[r] <= '0;
        tail_q[r] <= '0;
      end
      run_q     <= '0;
      ist_q     <= '0;
      imask_q   <= '1;  // every vector masked until the driver is ready
      err_q     <= '0;
      rvalid_q  <= 1'b0;
      rom_sel_q <= 1'b0;
      rdata_q   <= '0;
    end else begin
      for (int unsigned r = 0; r < 2; r++) begin
        base_q[r] <= base_d[r];
        size_q[r] <= size_d[r];
        tail_q[r] <= tail_d[r];
      end
      run_q     <= run_d;
      ist_q     <= ist_d;
      imask_q   <= imask_d;
      err_q     <= err_d;
      rvalid_q  <= rd;
      rom_sel_q <= rom_sel;
      rdata_q   <= rdata_d;
    end
  end

  assign reg_ready_o  = 1'b1;
  assign reg_rvalid_o = rvalid_q;
  assign reg_rdata_o  = rom_sel_q ? rom_rdata_i : rdata_q;
  assign rom_addr_o   = addr;
  assign ring_run_o   = run_q;
  assign ring_base_o  = {base_q[1], base_q[0]};
  assign ring_mask_o  = {IdxW'(size_q[1] - 32'd1), IdxW'(size_q[0] - 32'd1)};
  assign ring_tail_o  = {tail_q[1], tail_q[0]};
  assign int_status_o = ist_q;
  assign int_mask_o   = imask_q;

  // ---- assertions --------------------------------------------------------
  // A running ring always has a base and size the checks let through, so
  // the engines never walk a misaligned or ragged ring.
  for (genvar r = 0; r < 2; r++) begin : g_chk
    // (Verilator 5.006 cannot take an unpacked array inside an assertion.)
    logic cfg_ok, tail_in;
    assign cfg_ok  = size_ok(size_q[r]) && base_q[r][3:0] == '0;
    assign tail_in = 32'(tail_q[r]) < size_q[r];
    `ASSERT(RunSizeOk, !run_q[r] || cfg_ok)
    `ASSERT(RunTailIn, !run_q[r] || tail_in)
  end
  // The port carries 32-bit accesses only (the adapter splits others).
  `ASSERT(AlignedAccess, !reg_valid_i || reg_addr_i[1:0] == '0)
endmodule
