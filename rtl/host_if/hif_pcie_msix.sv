// MSI-X vector requests to the PCIe hard IP: a vector whose interrupt
// status bit is set and not masked is asked for once; it is asked for again
// only after the host has cleared the bit (write 1 to INT_STATUS) and the
// bit is set anew. A vector masked while set is asked for when unmasked.
// A request, once offered, stays until the hard IP takes it.
`include "prim_assert.svh"

module hif_pcie_msix #(
  parameter int unsigned N  = hif_pcie_pkg::PcieNumVectors,
  // Derived; do not override.
  parameter int unsigned VW = (N > 1) ? $clog2(N) : 1
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  input  logic [N-1:0]  status_i,  // INT_STATUS
  input  logic [N-1:0]  mask_i,    // INT_MASK
  output logic          valid_o,
  input  logic          ready_i,
  output logic [VW-1:0] vector_o
);
  logic [N-1:0]  sent_q, sent_d, pending;
  logic          req_q, req_d;
  logic [VW-1:0] vec_q, vec_d;

  assign pending = status_i & ~mask_i & ~sent_q;

  always_comb begin
    sent_d = sent_q & status_i;  // a cleared bit may be sent again
    req_d  = req_q && !ready_i;
    vec_d  = vec_q;
    if (!req_q) begin
      // The lowest pending vector (a downward scan: the last hit wins).
      for (int i = N - 1; i >= 0; i--) begin
        if (pending[i]) vec_d = VW'(i);
      end
      if (pending != '0) begin
        req_d          = 1'b1;
        sent_d[vec_d]  = 1'b1;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sent_q <= '0;
      req_q  <= 1'b0;
      vec_q  <= '0;
    end else begin
      sent_q <= sent_d;
      req_q  <= req_d;
      vec_q  <= vec_d;
    end
  end

  assign valid_o  = req_q;
  assign vector_o = vec_q;

  // ---- assertions --------------------------------------------------------
  // Only the vectors the device has (the hard IP's table has N entries).
  `ASSERT(VecInRange, !valid_o || 32'(vector_o) < 32'(N))
  // A request stays, unchanged, until the hard IP takes it.
  `ASSERT_NEXT(ReqHeld, valid_o && !ready_i, valid_o && $stable(vector_o))
endmodule
