// Payload storage of the host interface's two request slots
// (docs/host-if.md, "Storage"): block RAM with a registered read, so a
// word comes a cycle after its address. Each read port takes two
// addresses: the word its user needs now (need) and the word to read for
// the next cycle (next, usually the same, or the one after when the user
// consumes a word now); valid says that the data out is that of need,
// i.e. that need was asked for in the cycle before. Two RAMs of 32-bit
// halves, because management read data is written a u32 at a time; and
// one copy of the wavelet bits (38 of each word) for each stream-in lane,
// because the lanes read a wavelet each in the same cycle. The lanes'
// copies are written only by the receiver (lane_we_i): a stream-in's
// payload is never management read data.
module hif_slot_ram #(
  parameter int unsigned Words    = 1024,  // both slots
  parameter int unsigned NumLanes = 4,
  // Derived; do not override.
  parameter int unsigned AddrW    = (Words > 1) ? $clog2(Words) : 1
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,
  // Write port: halves written {upper, lower}, and the lanes' copies.
  input  logic [1:0]                we_i,
  input  logic                      lane_we_i,
  input  logic [AddrW-1:0]          waddr_i,
  input  logic [63:0]               wdata_i,
  // Main read port (responses, management write data, chunk headers,
  // credit grants).
  input  logic [AddrW-1:0]          need_i,
  input  logic [AddrW-1:0]          next_i,
  output logic [63:0]               rdata_o,
  output logic                      rvalid_o,
  // One read port a stream-in lane, for its wavelets.
  input  logic [NumLanes*AddrW-1:0] ln_need_i,
  input  logic [NumLanes*AddrW-1:0] ln_next_i,
  output logic [NumLanes*38-1:0]    ln_rdata_o,
  output logic [NumLanes-1:0]       ln_rvalid_o
);
  // The address each port read in the cycle before, for valid: it holds
  // no data, so it has a reset, unlike the RAMs.
  logic [AddrW-1:0] ra_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) ra_q <= '0;
    else         ra_q <= next_i;
  end
  assign rvalid_o = (ra_q == need_i);

  prim_ram_sdp #(
    .Width(32),
    .Depth(Words)
  ) u_lo (
    .clk_i  (clk_i),
    .we_i   (we_i[0]),
    .waddr_i(waddr_i),
    .wdata_i(wdata_i[31:0]),
    .raddr_i(next_i),
    .rdata_o(rdata_o[31:0])
  );

  prim_ram_sdp #(
    .Width(32),
    .Depth(Words)
  ) u_hi (
    .clk_i  (clk_i),
    .we_i   (we_i[1]),
    .waddr_i(waddr_i),
    .wdata_i(wdata_i[63:32]),
    .raddr_i(next_i),
    .rdata_o(rdata_o[63:32])
  );

  for (genvar l = 0; l < NumLanes; l++) begin : g_lane
    logic [AddrW-1:0] ln_ra_q;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) ln_ra_q <= '0;
      else         ln_ra_q <= ln_next_i[l*AddrW +: AddrW];
    end
    assign ln_rvalid_o[l] = (ln_ra_q == ln_need_i[l*AddrW +: AddrW]);

    prim_ram_sdp #(
      .Width(38),
      .Depth(Words)
    ) u_ram (
      .clk_i  (clk_i),
      .we_i   (lane_we_i),
      .waddr_i(waddr_i),
      .wdata_i(wdata_i[37:0]),
      .raddr_i(ln_next_i[l*AddrW +: AddrW]),
      .rdata_o(ln_rdata_o[l*38 +: 38])
    );
  end
endmodule
