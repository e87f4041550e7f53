// CRC-32C (Castagnoli, reflected, polynomial 0x82F63B78) of Bytes bytes in
// one cycle: crc_o is the running state crc_i after data_i's bytes, byte 0
// in bits [7:0] first. No pre- or post-inversion: the caller seeds the
// state with all ones and inverts the result, as docs/protocol.md says.
//
// The update is linear over GF(2): bit k of crc_o is the parity of the bits
// of {data_i, crc_i} that a fixed mask selects. The masks are worked out at
// elaboration from the bit-serial definition (one column per input bit, the
// response to that bit alone), and each output bit is one reduction XOR,
// which Yosys builds as a balanced tree: 6 cells deep for a word
// (synth_ecp5 -abc9). Written as the bit-serial loop, the same function
// came out of synthesis as a chain of dependent steps, 89 cells deep for
// the link header's 20 bytes (the link clock's critical path on the ECP5,
// docs/fpga.md); the framing now hashes the header a word at a time.
module hif_crc32c #(
  parameter int unsigned Bytes = 8
) (
  input  logic [31:0]        crc_i,
  input  logic [8*Bytes-1:0] data_i,
  output logic [31:0]        crc_o
);
  localparam int unsigned InW = 32 + 8 * Bytes;  // {data_i, crc_i}
  localparam logic [31:0] Poly = 32'h82F6_3B78;

  // The bit-serial definition: the reference the masks are taken from.
  function automatic logic [31:0] serial(logic [31:0] crc, logic [8*Bytes-1:0] d);
    logic [31:0] c;
    c = crc;
    for (int unsigned i = 0; i < Bytes; i++) begin
      c = c ^ {24'h0, d[8*i +: 8]};
      for (int k = 0; k < 8; k++) c = (c >> 1) ^ (Poly & {32{c[0]}});
    end
    serial = c;
  endfunction

  // masks()[InW*k + j]: input bit j ({data_i, crc_i}) feeds output bit k.
  function automatic logic [32*InW-1:0] masks();
    logic [InW-1:0] unit;
    logic [31:0]    col;
    masks = '0;
    for (int unsigned j = 0; j < InW; j++) begin
      unit = '0;
      unit[j] = 1'b1;
      col = serial(unit[31:0], unit[InW-1:32]);
      for (int unsigned k = 0; k < 32; k++) masks[InW*k + j] = col[k];
    end
  endfunction

  localparam logic [32*InW-1:0] Mask = masks();

  logic [InW-1:0] in;
  assign in = {data_i, crc_i};

  for (genvar k = 0; k < 32; k++) begin : g_bit
    assign crc_o[k] = ^(in & Mask[InW*k +: InW]);
  end
endmodule
