// Testbench model of the ECP5 block RAM (DP16KD) for Verilator runs of
// synth_ecp5 netlists (the gate-level board top, mk/bitstream.mk): Yosys
// ships the primitive as a black box only. It models the configurations
// Yosys's block-RAM mapping (memory_libmap with brams_16kd.txt) writes:
//   - no output register (REGMODE NOREG), chip selects that match
//     CSDECODE, the clocks not inverted;
//   - true dual port at 1, 2, 4, 9 or 18 bits a port, and the 36-bit
//     pseudo dual port (port A writes {DIB, DIA}, port B reads {DOB, DOA});
//   - the write modes: NORMAL keeps a writing port's output, WRITETHROUGH
//     gives the new word, READBEFOREWRITE the old one; a read on one port
//     of a word the other port writes in the same cycle gives the old one;
//   - the output reset, SYNC or ASYNC, clears the output latch;
//   - the initial contents from INITVAL_00..3F.
// Anything else stops the simulation at time 0 with the reason, so an
// unmodelled configuration cannot pass unnoticed.
//
// The array is 1,024 words of 18 bits, as INITVAL lays it out (16 words
// of 18 bits per INITVAL, each in 20 bits). A 9-bit entry e is half e[0]
// of word e >> 1; a 36-bit entry e is words 2e (low) and 2e + 1. The 1, 2
// and 4-bit widths use the 16 bits without the ninth bits (8 and 17), in
// order. That layout is the model's own, so they are allowed only where
// it cannot be observed: without initial contents, and with both ports at
// the same width unless one of them is never enabled (a narrow single
// port, as Yosys maps one, leaves port B at 18 bits and unused); a run
// that enables both stops.
// Address bits: 18-bit AD[13:4] with AD[1:0] the two 9-bit byte enables;
// 36-bit AD[13:5] with AD[3:0] the four byte enables; 9-bit AD[13:3];
// 4-bit AD[13:2]; 2-bit AD[13:1]; 1-bit AD[13:0].
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNUSEDPARAM */
// Both ports write the array, each in its own clock's process.
/* verilator lint_off MULTIDRIVEN */
module DP16KD #(
  parameter int    DATA_WIDTH_A = 18,
  parameter int    DATA_WIDTH_B = 18,
  parameter string REGMODE_A = "NOREG",
  parameter string REGMODE_B = "NOREG",
  parameter string RESETMODE = "SYNC",
  parameter string ASYNC_RESET_RELEASE = "SYNC",
  parameter string CSDECODE_A = "0b000",
  parameter string CSDECODE_B = "0b000",
  parameter string WRITEMODE_A = "NORMAL",
  parameter string WRITEMODE_B = "NORMAL",
  parameter string CLKAMUX = "CLKA",
  parameter string CLKBMUX = "CLKB",
  parameter string GSR = "ENABLED",
  parameter logic [319:0] INITVAL_00 = '0,
  parameter logic [319:0] INITVAL_01 = '0,
  parameter logic [319:0] INITVAL_02 = '0,
  parameter logic [319:0] INITVAL_03 = '0,
  parameter logic [319:0] INITVAL_04 = '0,
  parameter logic [319:0] INITVAL_05 = '0,
  parameter logic [319:0] INITVAL_06 = '0,
  parameter logic [319:0] INITVAL_07 = '0,
  parameter logic [319:0] INITVAL_08 = '0,
  parameter logic [319:0] INITVAL_09 = '0,
  parameter logic [319:0] INITVAL_0A = '0,
  parameter logic [319:0] INITVAL_0B = '0,
  parameter logic [319:0] INITVAL_0C = '0,
  parameter logic [319:0] INITVAL_0D = '0,
  parameter logic [319:0] INITVAL_0E = '0,
  parameter logic [319:0] INITVAL_0F = '0,
  parameter logic [319:0] INITVAL_10 = '0,
  parameter logic [319:0] INITVAL_11 = '0,
  parameter logic [319:0] INITVAL_12 = '0,
  parameter logic [319:0] INITVAL_13 = '0,
  parameter logic [319:0] INITVAL_14 = '0,
  parameter logic [319:0] INITVAL_15 = '0,
  parameter logic [319:0] INITVAL_16 = '0,
  parameter logic [319:0] INITVAL_17 = '0,
  parameter logic [319:0] INITVAL_18 = '0,
  parameter logic [319:0] INITVAL_19 = '0,
  parameter logic [319:0] INITVAL_1A = '0,
  parameter logic [319:0] INITVAL_1B = '0,
  parameter logic [319:0] INITVAL_1C = '0,
  parameter logic [319:0] INITVAL_1D = '0,
  parameter logic [319:0] INITVAL_1E = '0,
  parameter logic [319:0] INITVAL_1F = '0,
  parameter logic [319:0] INITVAL_20 = '0,
  parameter logic [319:0] INITVAL_21 = '0,
  parameter logic [319:0] INITVAL_22 = '0,
  parameter logic [319:0] INITVAL_23 = '0,
  parameter logic [319:0] INITVAL_24 = '0,
  parameter logic [319:0] INITVAL_25 = '0,
  parameter logic [319:0] INITVAL_26 = '0,
  parameter logic [319:0] INITVAL_27 = '0,
  parameter logic [319:0] INITVAL_28 = '0,
  parameter logic [319:0] INITVAL_29 = '0,
  parameter logic [319:0] INITVAL_2A = '0,
  parameter logic [319:0] INITVAL_2B = '0,
  parameter logic [319:0] INITVAL_2C = '0,
  parameter logic [319:0] INITVAL_2D = '0,
  parameter logic [319:0] INITVAL_2E = '0,
  parameter logic [319:0] INITVAL_2F = '0,
  parameter logic [319:0] INITVAL_30 = '0,
  parameter logic [319:0] INITVAL_31 = '0,
  parameter logic [319:0] INITVAL_32 = '0,
  parameter logic [319:0] INITVAL_33 = '0,
  parameter logic [319:0] INITVAL_34 = '0,
  parameter logic [319:0] INITVAL_35 = '0,
  parameter logic [319:0] INITVAL_36 = '0,
  parameter logic [319:0] INITVAL_37 = '0,
  parameter logic [319:0] INITVAL_38 = '0,
  parameter logic [319:0] INITVAL_39 = '0,
  parameter logic [319:0] INITVAL_3A = '0,
  parameter logic [319:0] INITVAL_3B = '0,
  parameter logic [319:0] INITVAL_3C = '0,
  parameter logic [319:0] INITVAL_3D = '0,
  parameter logic [319:0] INITVAL_3E = '0,
  parameter logic [319:0] INITVAL_3F = '0
) (
  input  logic DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0,
  input  logic ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0,
  input  logic CEA, OCEA, CLKA, WEA, RSTA, CSA2, CSA1, CSA0,
  output logic DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0,
  input  logic DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0,
  input  logic ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0,
  input  logic CEB, OCEB, CLKB, WEB, RSTB, CSB2, CSB1, CSB0,
  output logic DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0
);
  localparam logic [64*320-1:0] InitAll = {
    INITVAL_3F, INITVAL_3E, INITVAL_3D, INITVAL_3C, INITVAL_3B, INITVAL_3A, INITVAL_39, INITVAL_38,
    INITVAL_37, INITVAL_36, INITVAL_35, INITVAL_34, INITVAL_33, INITVAL_32, INITVAL_31, INITVAL_30,
    INITVAL_2F, INITVAL_2E, INITVAL_2D, INITVAL_2C, INITVAL_2B, INITVAL_2A, INITVAL_29, INITVAL_28,
    INITVAL_27, INITVAL_26, INITVAL_25, INITVAL_24, INITVAL_23, INITVAL_22, INITVAL_21, INITVAL_20,
    INITVAL_1F, INITVAL_1E, INITVAL_1D, INITVAL_1C, INITVAL_1B, INITVAL_1A, INITVAL_19, INITVAL_18,
    INITVAL_17, INITVAL_16, INITVAL_15, INITVAL_14, INITVAL_13, INITVAL_12, INITVAL_11, INITVAL_10,
    INITVAL_0F, INITVAL_0E, INITVAL_0D, INITVAL_0C, INITVAL_0B, INITVAL_0A, INITVAL_09, INITVAL_08,
    INITVAL_07, INITVAL_06, INITVAL_05, INITVAL_04, INITVAL_03, INITVAL_02, INITVAL_01, INITVAL_00
  };

  logic [17:0] mem [1024];

  // The 16 data bits of a word without its ninth bits, for the narrow widths.
  function automatic int unsigned narrow_bit(int unsigned i);
    return (i % 16 < 8) ? i % 16 : i % 16 + 1;
  endfunction

  function automatic logic known_mode(string mode);
    return mode == "NORMAL" || mode == "WRITETHROUGH" || mode == "READBEFOREWRITE";
  endfunction

  function automatic logic cs_match(string decode, logic [2:0] cs);
    logic [2:0] want;
    for (int i = 0; i < 3; i++) want[2 - i] = (decode[2 + i] == "1");
    return cs == want;
  endfunction

  initial begin
    for (int i = 0; i < 1024; i++) mem[i] = InitAll[(i / 16) * 320 + (i % 16) * 20 +: 18];
    if (REGMODE_A != "NOREG" || REGMODE_B != "NOREG" || CLKAMUX != "CLKA" || CLKBMUX != "CLKB")
      $fatal(1, "DP16KD %m: output registers or inverted clocks are not modelled");
    if (DATA_WIDTH_B == 36 && DATA_WIDTH_A != 36)
      $fatal(1, "DP16KD %m: a 36-bit read port needs the 36-bit write port");
    if ((DATA_WIDTH_A < 9 || DATA_WIDTH_B < 9) && |InitAll)
      $fatal(1, "DP16KD %m: initial contents with a port of %0d or %0d bits are not modelled",
             DATA_WIDTH_A, DATA_WIDTH_B);
    if (!(RESETMODE == "SYNC" || RESETMODE == "ASYNC") || !known_mode(WRITEMODE_A) ||
        !known_mode(WRITEMODE_B))
      $fatal(1, "DP16KD %m: unknown RESETMODE or WRITEMODE");
  end

  // The (low) word an entry lies in, and the 36-bit entry's high word.
  function automatic int unsigned word_of(int width, logic [13:0] ad);
    unique case (width)
      36: return 32'({ad[13:5], 1'b0});
      18, 9: return 32'(ad[13:4]);
      4: return 32'(ad[13:2]) / 4;
      2: return 32'(ad[13:1]) / 8;
      default: return 32'(ad) / 16;
    endcase
  endfunction

  // The first of a narrow entry's bits among its word's 16 data bits: the
  // entry's index (ad[13:2], ad[13:1] or ad[13:0]) modulo the entries a
  // word holds.
  function automatic int unsigned narrow_pos(int width, logic [13:0] ad);
    unique case (width)
      4: return 32'(ad[3:2]) * 4;
      2: return 32'(ad[3:1]) * 2;
      default: return 32'(ad[3:0]);
    endcase
  endfunction

  // The entry at ad, from its word lo (and hi, the 36-bit entry's high word).
  function automatic logic [35:0] extract(int width, logic [13:0] ad, logic [17:0] lo, logic [17:0] hi);
    logic [35:0] d = '0;
    unique case (width)
      36: d = {hi, lo};
      18: d = 36'(lo);
      9:  d = {27'b0, ad[3] ? lo[17:9] : lo[8:0]};
      default:
        for (int unsigned i = 0; i < 32'(width); i++) d[i] = lo[narrow_bit(narrow_pos(width, ad) + i)];
    endcase
    return d;
  endfunction

  // The words lo and hi with the entry at ad written from di: 18 and 36
  // bits write the 9-bit bytes whose enables (ad[1:0], ad[3:0]) are set.
  function automatic logic [35:0] insert(int width, logic [13:0] ad, logic [35:0] di, logic [17:0] lo,
                                         logic [17:0] hi);
    logic [35:0] w = {hi, lo};
    unique case (width)
      36: for (int l = 0; l < 4; l++) if (ad[l]) w[l * 9 +: 9] = di[l * 9 +: 9];
      18: for (int l = 0; l < 2; l++) if (ad[l]) w[l * 9 +: 9] = di[l * 9 +: 9];
      9:  w[(ad[3] ? 9 : 0) +: 9] = di[8:0];
      default:
        for (int unsigned i = 0; i < 32'(width); i++) w[narrow_bit(narrow_pos(width, ad) + i)] = di[i];
    endcase
    return w;
  endfunction

  logic [13:0] ada, adb;
  logic [35:0] dia, dib, doa_q, dob_q;
  assign ada = {ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0};
  assign adb = {ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0};
  assign dib = {18'b0, DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6,
                DIB5, DIB4, DIB3, DIB2, DIB1, DIB0};
  // The 36-bit write port takes its high half from port B's data pins.
  assign dia = {DATA_WIDTH_A == 36 ? dib[17:0] : 18'b0, DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11,
                DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0};

  logic ena, enb, arsta, arstb;
  assign ena = CEA && cs_match(CSDECODE_A, {CSA2, CSA1, CSA0});
  assign enb = CEB && cs_match(CSDECODE_B, {CSB2, CSB1, CSB0});
  assign arsta = RESETMODE == "ASYNC" && RSTA;
  assign arstb = RESETMODE == "ASYNC" && RSTB;

  // Which ports have been enabled, for the narrow widths' check.
  logic used_a = 1'b0, used_b = 1'b0;
  always @(posedge CLKA) if (ena) used_a <= 1'b1;
  always @(posedge CLKB) if (enb) used_b <= 1'b1;
  always @(posedge CLKA or posedge CLKB)
    if (used_a && used_b && DATA_WIDTH_A != DATA_WIDTH_B && (DATA_WIDTH_A < 9 || DATA_WIDTH_B < 9))
      $fatal(1, "DP16KD %m: both ports used at %0d and %0d bits: the narrow layout is not modelled",
             DATA_WIDTH_A, DATA_WIDTH_B);

  // Port A. A synchronous output reset blocks the port's write, as
  // brams_16kd.txt declares (block_wr).
  always @(posedge CLKA or posedge arsta) begin
    if (arsta || (RESETMODE == "SYNC" && RSTA)) begin
      doa_q <= '0;
    end else if (ena) begin
      int unsigned wa = word_of(DATA_WIDTH_A, ada);
      logic [17:0] lo = mem[wa], hi = mem[wa | 1];
      logic [35:0] w = insert(DATA_WIDTH_A, ada, dia, lo, hi);
      if (WEA) begin
        mem[wa] <= w[17:0];
        if (DATA_WIDTH_A == 36) mem[wa | 1] <= w[35:18];
        if (WRITEMODE_A == "WRITETHROUGH") doa_q <= extract(DATA_WIDTH_A, ada, w[17:0], w[35:18]);
        else if (WRITEMODE_A == "READBEFOREWRITE") doa_q <= extract(DATA_WIDTH_A, ada, lo, hi);
      end else begin
        doa_q <= extract(DATA_WIDTH_A, ada, lo, hi);
      end
    end
  end

  // Port B: the same; in the 36-bit pseudo dual port it only reads.
  always @(posedge CLKB or posedge arstb) begin
    if (arstb || (RESETMODE == "SYNC" && RSTB)) begin
      dob_q <= '0;
    end else if (enb) begin
      int unsigned wa = word_of(DATA_WIDTH_B, adb);
      logic [17:0] lo = mem[wa], hi = mem[wa | 1];
      logic [35:0] w = insert(DATA_WIDTH_B, adb, dib, lo, hi);
      if (WEB && DATA_WIDTH_B != 36) begin
        mem[wa] <= w[17:0];
        if (WRITEMODE_B == "WRITETHROUGH") dob_q <= extract(DATA_WIDTH_B, adb, w[17:0], w[35:18]);
        else if (WRITEMODE_B == "READBEFOREWRITE") dob_q <= extract(DATA_WIDTH_B, adb, lo, hi);
      end else begin
        dob_q <= extract(DATA_WIDTH_B, adb, lo, hi);
      end
    end
  end

  // A 36-bit read's low half comes out on port A's pins.
  assign {DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4,
          DOA3, DOA2, DOA1, DOA0} = DATA_WIDTH_B == 36 ? dob_q[17:0] : doa_q[17:0];
  assign {DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4,
          DOB3, DOB2, DOB1, DOB0} = DATA_WIDTH_B == 36 ? dob_q[35:18] : dob_q[17:0];
endmodule
/* verilator lint_on MULTIDRIVEN */
/* verilator lint_on UNUSEDPARAM */
/* verilator lint_on UNUSEDSIGNAL */
