// Two-clock testbench of an edge port's crossings: hif_edge_in_cdc feeds a
// model router on the mesh clock, which forwards into hif_edge_out_cdc,
// which a model event sender drains on the link clock. Clocks at coprime
// periods, random colors (so every VC, each with its own credits), random
// stalls on the router and the event sender's credit returns. Every
// wavelet must come out once, in order; the bridges' assertions run
// throughout (--assert). Options: +lhalf=PS +mhalf=PS (half periods),
// +busy=% (router and event sender), +words=N, +seed=N.
module tb_edge_cdc;
  localparam int unsigned NumVc   = 4;
  localparam int unsigned VcW     = 2;
  localparam int unsigned VcDepth = 4;
  localparam int unsigned Credits = 8;   // the executor's and the event sender's, per VC
  localparam int unsigned WW      = 38;

  // Colors 8k .. 8k+7 on VC k, as on the boards.
  function automatic logic [32*VcW-1:0] vc_map();
    logic [32*VcW-1:0] m;
    for (int c = 0; c < 32; c++) m[c*VcW +: VcW] = VcW'(c / 8);
    return m;
  endfunction
  localparam logic [32*VcW-1:0] ColorVcMap = vc_map();

  logic lclk = 1'b0, mclk = 1'b0, arst_n = 1'b0;
  logic lrst_n, mrst_n;
  int unsigned lhalf = 3500, mhalf = 5500, busy = 70, nwords = 20000, seed = 1;
  initial begin
    void'($value$plusargs("lhalf=%d", lhalf));
    void'($value$plusargs("mhalf=%d", mhalf));
    void'($value$plusargs("busy=%d", busy));
    void'($value$plusargs("words=%d", nwords));
    void'($value$plusargs("seed=%d", seed));
  end
  initial begin
    #(1ps);
    forever #(lhalf * 1ps) lclk = ~lclk;
  end
  initial begin
    #(1300ps);
    forever #(mhalf * 1ps) mclk = ~mclk;
  end
  prim_rst_sync u_lrst (.clk_i(lclk), .rst_ni(arst_n), .rst_no(lrst_n));
  prim_rst_sync u_mrst (.clk_i(mclk), .rst_ni(arst_n), .rst_no(mrst_n));

  function automatic logic [WW-1:0] wavelet(int unsigned i);
    logic [4:0] color;
    color = 5'((i * 7 + i / 3) % 32);
    return {1'b0, color, i[31:0] * 32'd2654435761};
  endfunction
  function automatic int unsigned vc_of(logic [WW-1:0] w);
    return 32'(w[36:35]);  // color / 8
  endfunction

  // ---- link clock: the executor's side ----------------------------------
  logic             in_valid;
  logic [WW-1:0]    in_data;
  logic [NumVc-1:0] in_credit;
  int               xcred [NumVc];
  int unsigned      sent = 0;

  // ---- mesh clock: the model router ----------------------------------------
  logic             r_in_valid, r_out_valid;
  logic [WW-1:0]    r_in_data, r_out_data;
  logic [NumVc-1:0] r_in_credit, r_out_credit;
  logic [WW-1:0]    rq [$];        // one queue in arrival order
  int               rq_vc [NumVc]; // its entries per VC (<= VcDepth)
  int               ocred [NumVc]; // the router's credits towards the outlet

  // ---- link clock: the event sender ----------------------------------------
  logic             e_valid;
  logic [WW-1:0]    e_data;
  logic [NumVc-1:0] e_credit;
  int unsigned      got = 0;
  int               owed [NumVc];  // credits to give back to the outlet

  hif_edge_in_cdc #(
    .NumVc(NumVc), .VcW(VcW), .ColorVcMap(ColorVcMap), .VcDepth(VcDepth), .Depth(32),
    .IntakeCredits(Credits)
  ) u_in (
    .clk_link_i(lclk), .rst_link_ni(lrst_n),
    .valid_i(in_valid), .data_i(in_data), .credit_o(in_credit),
    .clk_i(mclk), .rst_ni(mrst_n),
    .valid_o(r_in_valid), .data_o(r_in_data), .credit_i(r_in_credit), .busy_o()
  );

  hif_edge_out_cdc #(
    .NumVc(NumVc), .VcW(VcW), .ColorVcMap(ColorVcMap), .VcDepth(VcDepth),
    .OutCredits(Credits), .Depth(32)
  ) u_out (
    .clk_i(mclk), .rst_ni(mrst_n),
    .valid_i(r_out_valid), .data_i(r_out_data), .credit_o(r_out_credit), .busy_o(),
    .clk_link_i(lclk), .rst_link_ni(lrst_n),
    .valid_o(e_valid), .data_o(e_data), .credit_i(e_credit)
  );

  // Executor: sends wavelet `sent` when its VC has a credit, randomly idle.
  always @(negedge lclk) begin
    in_valid <= 1'b0;
    in_data  <= '0;
    if (lrst_n && sent < nwords && xcred[vc_of(wavelet(sent))] > 0 && ($urandom % 100) < 90) begin
      in_valid <= 1'b1;
      in_data  <= wavelet(sent);
    end
  end
  always @(posedge lclk) if (lrst_n) begin
    for (int v = 0; v < NumVc; v++) if (in_credit[v]) xcred[v]++;
    if (in_valid) begin
      xcred[vc_of(in_data)]--;
      sent++;
    end
    for (int v = 0; v < NumVc; v++)
      if (xcred[v] < 0 || xcred[v] > Credits) $fatal(1, "tb: executor VC %0d holds %0d credits", v, xcred[v]);
  end

  // Router: takes what the intake sends (never beyond VcDepth per VC),
  // forwards its oldest entry when the outlet granted that VC a credit,
  // randomly stalled; a forwarded entry's credit goes back to the intake.
  always @(negedge mclk) begin
    r_out_valid <= 1'b0;
    r_out_data  <= '0;
    r_in_credit <= '0;
    if (mrst_n && rq.size() > 0 && ocred[vc_of(rq[0])] > 0 && ($urandom % 100) < busy) begin
      r_out_valid <= 1'b1;
      r_out_data  <= rq[0];
      r_in_credit[vc_of(rq[0])] <= 1'b1;
    end
  end
  always @(posedge mclk) if (mrst_n) begin
    for (int v = 0; v < NumVc; v++) if (r_out_credit[v]) ocred[v]++;
    if (r_out_valid) begin
      void'(rq.pop_front());
      rq_vc[vc_of(r_out_data)]--;
      ocred[vc_of(r_out_data)]--;
    end
    if (r_in_valid) begin
      rq.push_back(r_in_data);
      rq_vc[vc_of(r_in_data)]++;
      if (rq_vc[vc_of(r_in_data)] > VcDepth) $fatal(1, "tb: router VC %0d overflows", vc_of(r_in_data));
    end
    for (int v = 0; v < NumVc; v++)
      if (ocred[v] < 0 || ocred[v] > VcDepth) $fatal(1, "tb: router holds %0d credits on VC %0d", ocred[v], v);
  end

  // Event sender: checks each wavelet against the next expected one and
  // gives its credit back later, at random.
  always @(negedge lclk) begin
    e_credit <= '0;
    if (lrst_n)
      for (int v = 0; v < NumVc; v++)
        if (owed[v] > 0 && ($urandom % 100) < busy) e_credit[v] <= 1'b1;
  end
  always @(posedge lclk) if (lrst_n) begin
    for (int v = 0; v < NumVc; v++) if (e_credit[v]) owed[v]--;
    if (e_valid) begin
      if (e_data !== wavelet(got))
        $fatal(1, "tb: wavelet %0d: got %010x, want %010x", got, e_data, wavelet(got));
      owed[vc_of(e_data)]++;
      got++;
    end
  end

  initial begin
    for (int v = 0; v < NumVc; v++) begin
      xcred[v] = Credits;
      rq_vc[v] = 0;
      ocred[v] = VcDepth;
      owed[v]  = 0;
    end
    #(2ps);
    void'($urandom(seed));
    #(50ns) arst_n = 1'b1;
    fork
      wait (got == nwords);
      begin
        #(nwords * (lhalf + mhalf) * 40ps);
        $fatal(1, "tb: timed out with %0d of %0d wavelets out", got, nwords);
      end
    join_any
    repeat (40) @(posedge lclk);
    if (e_valid || got != nwords) $fatal(1, "tb: %0d wavelets out of %0d", got, nwords);
    $display("PASS tb_edge_cdc link clock %0dps, mesh clock %0dps, busy %0d%%: %0d wavelets through intake, router and outlet in order",
             2 * lhalf, 2 * mhalf, busy, got);
    $finish;
  end
endmodule
