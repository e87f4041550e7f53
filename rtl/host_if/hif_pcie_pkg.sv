// The PCIe device side's numbers (docs/pcie.md): BAR 0 register offsets and
// bits, the descriptor and completion formats, the error bits, the MSI-X
// vectors. Mirrors include/wsemu/wse_pcie.h name for name
// (WSE_PCIE_REG_H2C -> PcieRegH2c); check_wire (make test-wire) checks that
// the two agree.
package hif_pcie_pkg;
  // A block uses the constants it needs; the rest mirror the header.
  /* verilator lint_off UNUSEDPARAM */
  // ---- BAR 0: identification (read-only) --------------------------------
  localparam int unsigned PcieMagic          = 32'h50455357;  // "WSEP"
  localparam int unsigned PcieVersion        = 32'h00010000;  // 1.0: major << 16 | minor
  localparam int unsigned PcieRegMagic       = 0;
  localparam int unsigned PcieRegMeshCols    = 4;
  localparam int unsigned PcieRegMeshRows    = 8;
  localparam int unsigned PcieRegDtbSize     = 12;
  localparam int unsigned PcieRegMaxPayload  = 16;
  localparam int unsigned PcieRegVersion     = 20;
  localparam int unsigned PcieRegDtbOffset   = 24;
  localparam int unsigned PcieRegDescMax     = 28;  // largest descriptor length
  localparam int unsigned PcieRegRingMax     = 32;  // largest ring, entries
  localparam int unsigned PcieRegCompat      = 64;  // 64 bytes, from the ROM port
  localparam int unsigned PcieCompatBytes    = 64;
  localparam int unsigned PcieDtbOffset      = 4096;  // the DTB, from the ROM port
  localparam int unsigned PcieBarBytes       = 65536;
  // ---- BAR 0: the two rings, a block each -------------------------------
  localparam int unsigned PcieRegH2c         = 256;  // 0x100
  localparam int unsigned PcieRegC2h         = 320;  // 0x140
  localparam int unsigned PcieRingBaseLo     = 0;   // offsets in a ring's block
  localparam int unsigned PcieRingBaseHi     = 4;
  localparam int unsigned PcieRingSize       = 8;   // entries, a power of two
  localparam int unsigned PcieRingTail       = 12;  // doorbell: host's producer index
  localparam int unsigned PcieRingHead       = 16;  // read-only: device's consumer index
  localparam int unsigned PcieRingCtrl       = 20;
  localparam int unsigned PcieCtrlRun        = 1;   // RW: the ring is enabled
  localparam int unsigned PcieCtrlBusy       = 2;   // RO: a descriptor in progress
  // ---- BAR 0: interrupts and errors -------------------------------------
  localparam int unsigned PcieRegIntStatus   = 512;  // 0x200, write 1 to clear
  localparam int unsigned PcieRegIntMask     = 516;  // 1: vector masked
  localparam int unsigned PcieRegErrStatus   = 520;  // write 1 to clear
  // MSI-X vectors; INT_STATUS bit k is vector k.
  localparam int unsigned PcieVecH2c         = 0;
  localparam int unsigned PcieVecC2h         = 1;
  localparam int unsigned PcieVecErr         = 2;
  localparam int unsigned PcieNumVectors     = 3;
  // ERR_STATUS: one byte per ring, H2C in bits 7:0, C2H in 15:8.
  localparam int unsigned PcieErrRingAlign   = 1;
  localparam int unsigned PcieErrRingSize    = 2;
  localparam int unsigned PcieErrDescAlign   = 4;
  localparam int unsigned PcieErrDescLen     = 8;
  localparam int unsigned PcieErrDescRsvd    = 16;
  localparam int unsigned PcieErrTail        = 32;
  localparam int unsigned PcieErrTimeout     = 64;
  localparam int unsigned PcieErrBus         = 128;
  localparam int unsigned PcieErrC2hShift    = 8;
  // ---- descriptors (16 bytes, little-endian) -----------------------------
  localparam int unsigned PcieDescBytes      = 16;
  localparam int unsigned PcieDescOffAddr    = 0;   // u64 buffer address
  localparam int unsigned PcieDescOffLen     = 8;   // u32 bytes
  localparam int unsigned PcieDescOffFlags   = 12;  // u32
  localparam int unsigned PcieDescNoIrq      = 1;   // flag: no completion interrupt
  localparam int unsigned PcieDescFlagsKnown = 1;   // other flag bits reserved, 0
  localparam int unsigned PcieRingAlign      = 16;  // ring base alignment
  localparam int unsigned PcieBufAlign       = 8;   // buffer address and length
  localparam int unsigned PcieDescMaxLen     = 65536;
  localparam int unsigned PcieRingMaxEntries = 4096;
  // ---- completions: written over the descriptor's bytes 8..15 -----------
  localparam int unsigned PcieCplOffLen      = 8;   // u32 bytes moved
  localparam int unsigned PcieCplOffStatus   = 12;  // u32
  localparam int unsigned PcieCplDone        = 32'h80000000;
  localparam int unsigned PcieCplEop         = 256;  // C2H: a packet ends here
  localparam int unsigned PcieCplCodeMask    = 255;
  localparam int unsigned PcieCplOk          = 0;
  localparam int unsigned PcieCplAlign       = 1;
  localparam int unsigned PcieCplLen         = 2;
  localparam int unsigned PcieCplRsvd        = 3;
  localparam int unsigned PcieCplBus         = 4;
  localparam int unsigned PcieCplTimeout     = 5;
  /* verilator lint_on UNUSEDPARAM */
endpackage
