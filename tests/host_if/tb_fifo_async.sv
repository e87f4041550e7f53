// Two-clock testbench of prim_fifo_async: write and read clocks at coprime
// periods, random valid/ready on both sides, every word checked to cross
// once and in order. Assertions inside the FIFO run throughout (--assert).
// Run-time options: +whalf=PS +rhalf=PS (half periods), +wbusy=% +rbusy=%,
// +words=N, +seed=N.
module tb_fifo_async #(
  parameter int unsigned Depth     = 8,
  parameter int unsigned WHalfPs   = 3500,   // write clock half period (ps)
  parameter int unsigned RHalfPs   = 5500,   // read clock half period (ps)
  parameter int unsigned NumWords  = 20000,
  parameter int unsigned WBusyPct  = 70,     // chance of wvalid per cycle
  parameter int unsigned RBusyPct  = 70,     // chance of rready per cycle
  parameter int unsigned Seed      = 1
);
  localparam int unsigned W  = 64;
  localparam int unsigned AW = $clog2(Depth);

  logic wclk = 1'b0, rclk = 1'b0, arst_n = 1'b0;
  logic wrst_n, rrst_n;
  logic wvalid, wready, rvalid, rready;
  logic [W-1:0] wdata, rdata;
  logic [AW:0] wfill, rfill;

  int unsigned whalf = WHalfPs, rhalf = RHalfPs, wbusy = WBusyPct,
               rbusy = RBusyPct, nwords = NumWords, seed = Seed;
  initial begin
    void'($value$plusargs("whalf=%d", whalf));
    void'($value$plusargs("rhalf=%d", rhalf));
    void'($value$plusargs("wbusy=%d", wbusy));
    void'($value$plusargs("rbusy=%d", rbusy));
    void'($value$plusargs("words=%d", nwords));
    void'($value$plusargs("seed=%d", seed));
  end
  initial begin
    #(1ps);
    forever #(whalf * 1ps) wclk = ~wclk;
  end
  initial begin
    #(1300ps);  // an odd phase between the two clocks
    forever #(rhalf * 1ps) rclk = ~rclk;
  end

  prim_rst_sync u_wrst (.clk_i(wclk), .rst_ni(arst_n), .rst_no(wrst_n));
  prim_rst_sync u_rrst (.clk_i(rclk), .rst_ni(arst_n), .rst_no(rrst_n));

  prim_fifo_async #(.Width(W), .Depth(Depth)) dut (
    .wclk_i   (wclk),
    .wrst_ni  (wrst_n),
    .wvalid_i (wvalid),
    .wready_o (wready),
    .wdata_i  (wdata),
    .wfill_o  (wfill),
    .rclk_i   (rclk),
    .rrst_ni  (rrst_n),
    .rvalid_o (rvalid),
    .rready_i (rready),
    .rdata_o  (rdata),
    .rfill_o  (rfill)
  );

  // Word i: a pattern that tells a lost, repeated or reordered word.
  function automatic logic [W-1:0] word(int unsigned i);
    return {i[31:0] ^ 32'hA5A5_0000, i[31:0] * 32'd2654435761};
  endfunction

  int unsigned pushed = 0, got = 0, wcycles = 0, rcycles = 0, full_seen = 0;
  int unsigned rnd_w, rnd_r;

  // Writer: drives on the falling edge, so the rising edge samples stable
  // values (a test-side choice; the FIFO itself has no such need). Words
  // are counted where they are accepted, at the rising edge.
  always @(negedge wclk) begin
    if (!wrst_n) begin
      wvalid <= 1'b0;
      wdata  <= '0;
    end else begin
      rnd_w = $urandom;
      wvalid <= (pushed < nwords) && ((rnd_w % 100) < wbusy);
      wdata  <= word(pushed);
    end
  end

  always @(posedge wclk) if (wrst_n) begin
    wcycles++;
    if (!wready) full_seen++;
    if (wvalid && wready) begin
      if (wdata != word(pushed)) $fatal(1, "tb: writer drove word %0d wrongly", pushed);
      pushed++;
    end
  end

  always @(negedge rclk) begin
    if (!rrst_n) rready <= 1'b0;
    else begin
      rnd_r = $urandom;
      rready <= (rnd_r % 100) < rbusy;
    end
  end

  always @(posedge rclk) if (rrst_n) begin
    rcycles++;
    if (rvalid && rready) begin
      if (rdata !== word(got))
        $fatal(1, "tb: word %0d: got %016x, want %016x", got, rdata, word(got));
      got++;
    end
    if (got > pushed) $fatal(1, "tb: read %0d words, only %0d written", got, pushed);
  end

  // The writer must stop at NumWords: wvalid is only raised while
  // pushed < NumWords.
  always @(posedge wclk) if (wrst_n && pushed > nwords)
    $fatal(1, "tb: pushed more than %0d words", nwords);

  initial begin
    #(2ps);
    void'($urandom(seed));
    #(50ns) arst_n = 1'b1;
    // Generous bound: every word needs at most a few cycles of each clock.
    fork
      wait (got == nwords);
      begin
        #(nwords * (whalf + rhalf) * 40ps);
        $fatal(1, "tb: timed out with %0d of %0d words read", got, nwords);
      end
    join_any
    // Nothing more may appear after the last word.
    repeat (20) @(posedge rclk);
    if (rvalid) $fatal(1, "tb: FIFO not empty after the last word");
    $display("PASS tb_fifo_async Depth=%0d wclk=%0dps rclk=%0dps: %0d words in order, %0d write cycles (%0d full), %0d read cycles, %.3f words/read-cycle",
             Depth, 2 * whalf, 2 * rhalf, got, wcycles, full_seen, rcycles,
             real'(got) / real'(rcycles));
    $finish;
  end
endmodule
