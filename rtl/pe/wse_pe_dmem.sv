// Data memory of a tile: NumBanks prim_ram_2p banks, word-interleaved (bank
// = word address mod NumBanks). Each bank serves one read and one write per
// cycle, so requesters that hit different banks proceed together: e.g. a
// vector engine reading two operands and writing one result per cycle.
// NumPorts requesters; port 0 has the highest priority, a port that loses
// (same bank, same direction) is not granted and retries. Read data one
// cycle after the grant. Ports are flattened vectors (port p at [p*W +: W]).
// ReadPorts and WritePorts say which ports may read and which may write: a
// port's request only enters the arbitration of the directions it may use,
// so that a read-only requester's request is no input of the write grants
// (the tile is synthesized without flattening, where the parent's constant
// we_i would not reach this logic).
`include "prim_assert.svh"

module wse_pe_dmem #(
  parameter int unsigned DmemBytes = wse_cfg_pkg::DmemBytes,
  parameter int unsigned NumBanks  = wse_cfg_pkg::DmemBanks,
  parameter int unsigned NumPorts  = 2,
  parameter logic [NumPorts-1:0] ReadPorts  = '1,
  parameter logic [NumPorts-1:0] WritePorts = '1,
  localparam int unsigned Words  = DmemBytes / 4,
  localparam int unsigned AW     = $clog2(Words),         // word address
  localparam int unsigned BW     = (NumBanks > 1) ? $clog2(NumBanks) : 1,
  localparam int unsigned BankAW = (NumBanks > 1) ? AW - $clog2(NumBanks) : AW
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic [NumPorts-1:0]    req_i,
  output logic [NumPorts-1:0]    gnt_o,
  input  logic [NumPorts-1:0]    we_i,
  input  logic [NumPorts*AW-1:0] addr_i,
  input  logic [NumPorts*4-1:0]  be_i,
  input  logic [NumPorts*32-1:0] wdata_i,
  output logic [NumPorts-1:0]    rvalid_o,
  output logic [NumPorts*32-1:0] rdata_o,
  output logic [NumBanks-1:0]    rd_lost_o      // banks where a read was refused
);
  // Bank of each port's request.
  logic [BW-1:0] port_bank [NumPorts];
  always_comb begin
    for (int p = 0; p < NumPorts; p++) begin
      if (NumBanks > 1) port_bank[p] = BW'(32'(addr_i[p*AW +: AW]) % NumBanks);
      else              port_bank[p] = '0;
    end
  end

  logic [NumBanks-1:0]   bank_re, bank_we;
  logic [BankAW-1:0]     bank_raddr [NumBanks];
  logic [BankAW-1:0]     bank_waddr [NumBanks];
  logic [31:0]           bank_wdata [NumBanks];
  logic [3:0]            bank_be    [NumBanks];
  logic [31:0]           bank_rdata [NumBanks];

  // Each port's request by direction.
  logic [NumPorts-1:0] port_re, port_we;
  assign port_we = req_i & we_i & WritePorts;
  assign port_re = req_i & ~we_i & ReadPorts;

  // Fixed-priority arbitration per bank and direction.
  always_comb begin
    gnt_o     = '0;
    rd_lost_o = '0;
    for (int b = 0; b < NumBanks; b++) begin
      bank_re[b]    = 1'b0;
      bank_we[b]    = 1'b0;
      bank_raddr[b] = '0;
      bank_waddr[b] = '0;
      bank_wdata[b] = '0;
      bank_be[b]    = '0;
    end
    for (int p = 0; p < NumPorts; p++) begin
      if (port_we[p]) begin
        if (!bank_we[port_bank[p]]) begin
          gnt_o[p] = 1'b1;
          bank_we[port_bank[p]]    = 1'b1;
          bank_waddr[port_bank[p]] = BankAW'(32'(addr_i[p*AW +: AW]) / NumBanks);
          bank_wdata[port_bank[p]] = wdata_i[p*32 +: 32];
          bank_be[port_bank[p]]    = be_i[p*4 +: 4];
        end
      end else if (port_re[p]) begin
        if (!bank_re[port_bank[p]]) begin
          gnt_o[p] = 1'b1;
          bank_re[port_bank[p]]    = 1'b1;
          bank_raddr[port_bank[p]] = BankAW'(32'(addr_i[p*AW +: AW]) / NumBanks);
        end else begin
          rd_lost_o[port_bank[p]] = 1'b1;
        end
      end
    end
  end

  for (genvar b = 0; b < NumBanks; b++) begin : gen_bank
    prim_ram_2p #(
      .Width (32),
      .Depth (Words / NumBanks)
    ) u_ram (
      .clk_i   (clk_i),
      .we_i    (bank_we[b]),
      .waddr_i (bank_waddr[b]),
      .wdata_i (bank_wdata[b]),
      .be_i    (bank_be[b]),
      .re_i    (bank_re[b]),
      .raddr_i (bank_raddr[b]),
      .rdata_o (bank_rdata[b])
    );
  end

  // Read data returns to the port that was granted, from the bank it used.
  logic [NumPorts-1:0] rvalid_q, rvalid_d;
  logic [BW-1:0]       rbank_q [NumPorts];
  logic [BW-1:0]       rbank_d [NumPorts];
  always_comb begin
    for (int p = 0; p < NumPorts; p++) begin
      rvalid_d[p] = gnt_o[p] && port_re[p];
      rbank_d[p]  = rvalid_d[p] ? port_bank[p] : rbank_q[p];
      rdata_o[p*32 +: 32] = bank_rdata[rbank_q[p]];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rvalid_q <= '0;
      for (int p = 0; p < NumPorts; p++) rbank_q[p] <= '0;
    end else begin
      rvalid_q <= rvalid_d;
      for (int p = 0; p < NumPorts; p++) rbank_q[p] <= rbank_d[p];
    end
  end
  assign rvalid_o = rvalid_q;

  `ASSERT(GntOnlyOnReq, (gnt_o & ~req_i) == '0)
  `ASSERT(ReqInItsDirections, (req_i & we_i & ~WritePorts) == '0 &&
                              (req_i & ~we_i & ~ReadPorts) == '0)
  `ASSERT_KNOWN(GntKnown, gnt_o)
endmodule
