// Host interface management sequencer (docs/host-if.md, "Operations" and
// "Management time-out"): runs the management accesses of one request
// against the mesh's management port, one at a time, in order. A tile
// access (MEM/CSR/ROUTE/REG) is one access per u32, HALT and RUN one
// TILE_CTRL write, RESET a broadcast TILE_CTRL write and the 32 route
// entries cleared, PERF_READ the 15 counter reads. Write data comes from
// the request's payload in the slot's block RAM (wword_i, valid when
// wvalid_i says the word read is the one asked for, widx_o); read data
// goes back into the slot (rd_we_o). Apart from the executor because the
// time-out bookkeeping outlives a request: an access answered TIMEOUT is
// not withdrawn, its request stays offered until the port takes it and
// its response, when it comes, is dropped, whatever the executor does
// meanwhile.
`include "prim_assert.svh"

module hif_mgmt_seq #(
  // Cycles an access may wait (for the port, then for the response)
  // before it is answered TIMEOUT.
  parameter int unsigned MgmtTimeout = 65536
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Start the accesses of a request (one cycle), with its fields.
  input  logic        start_i,
  input  logic [7:0]  op_i,
  input  logic [7:0]  x_i,
  input  logic [7:0]  y_i,
  input  logic        all_i,       // x, y = 0xFF, 0xFF: broadcast
  input  logic [31:0] addr_i,
  input  logic [31:0] count_i,
  // Write data: payload word widx_o of the request's slot.
  output logic [31:0] widx_o,
  output logic [31:0] widx_next_o, // the word asked for in the next cycle
  input  logic [63:0] wword_i,
  input  logic        wvalid_i,
  // Read data into the slot: u32 rd_idx_o of the payload; rd_count_o: the
  // PERF_READ count (15) goes into u32 0 in the same cycle.
  output logic        rd_we_o,
  output logic [31:0] rd_idx_o,
  output logic [31:0] rd_data_o,
  output logic        rd_count_o,
  // The sequence ended (one cycle): all accesses done, or err_o (an error
  // response, or tmo_o: a time-out).
  output logic        done_o,
  output logic        err_o,
  output logic        tmo_o,
  // Management port of the mesh.
  output logic        mgmt_req_valid_o,
  input  logic        mgmt_req_ready_i,
  output logic        mgmt_req_write_o,
  output logic        mgmt_req_bcast_o,
  output logic [7:0]  mgmt_req_x_o,
  output logic [7:0]  mgmt_req_y_o,
  output logic [31:0] mgmt_req_addr_o,
  output logic [31:0] mgmt_req_wdata_o,
  input  logic        mgmt_rsp_valid_i,
  input  logic [31:0] mgmt_rsp_rdata_i,
  input  logic        mgmt_rsp_err_i
);
  localparam int unsigned NumRoutes    = wse_pkg::NumColors;     // entries RESET clears
  localparam int unsigned NumPerf      = 3 * wse_pkg::NumPorts;  // CNT_* of every port

  typedef enum logic [1:0] {MIdle, MReq, MRsp} ph_e;
  // What the accesses are.
  typedef enum logic [1:0] {MkAcc, MkCtrl, MkReset, MkPerf} kind_e;

  ph_e         ph_q, ph_d;
  kind_e       kind_q, kind_d;
  logic        halt_q, halt_d;
  logic        write_q, write_d, bcast_q, bcast_d;
  logic [7:0]  x_q, x_d, y_q, y_d;
  logic [31:0] base_q, base_d, i_q, i_d, n_q, n_d;
  logic [31:0] addr_q, addr_d, wdata_q, wdata_d;
  logic        valid_q, valid_d;
  // An access that times out may still be answered later: valid_q then
  // belongs to it (stale_q) until the port takes it, and drop_q counts the
  // responses still owed to such accesses, which are dropped when they
  // come (the port answers in order).
  logic [31:0] wait_q, wait_d;
  logic        stale_q, stale_d;
  logic [1:0]  drop_q, drop_d;

  logic rsp_ours, tmo, owed_now, stale_taken;
  assign rsp_ours    = mgmt_rsp_valid_i && (drop_q == '0);
  assign tmo         = (wait_q == 32'(MgmtTimeout));
  assign stale_taken = stale_q && valid_q && mgmt_req_ready_i;
  // A response becomes owed to an access answered TIMEOUT: taken by the
  // port in the cycle it timed out, or taken before and never answered.
  assign owed_now = tmo && ((ph_q == MReq && !stale_q && valid_q && mgmt_req_ready_i) ||
                            (ph_q == MRsp && !rsp_ours));

  // The byte offsets of RESET's and PERF_READ's accesses, from the low bits
  // of i alone (i < 1 + NumRoutes, i < NumPerf: assertions below): a
  // division by 3 or a subtraction on all 32 bits of i was the link clock's
  // longest path on the ECP5 (docs/fpga.md). Both offsets stay below the
  // bases' lowest set bit, so base | offset is base + offset.
  function automatic logic [7:0] perf_off(logic [3:0] i);
    logic [3:0] port;
    logic [1:0] cnt;
    port = i / 4'd3;
    cnt  = 2'(i % 4'd3);
    perf_off = {port, 4'd0} | {4'd0, cnt, 2'd0};
  endfunction
  function automatic logic [7:0] route_off(logic [5:0] i);
    logic [5:0] color;
    color = i - 6'd1;
    route_off = {color, 2'd0};
  endfunction

  // u32 i of a tile write's data is payload byte 12 + 4 i: the upper half
  // of word (i + 3) / 2 for an even i.
  assign widx_o      = (i_q + 32'd3) >> 1;
  assign widx_next_o = (ph_q == MRsp && rsp_ours) ? (i_q + 32'd4) >> 1 : widx_o;

  // Read data: u32 i of the answer (PERF_READ: i + 1, after the count).
  assign rd_we_o    = (ph_q == MRsp) && rsp_ours && !write_q;
  assign rd_idx_o   = (kind_q == MkPerf) ? i_q + 32'd1 : i_q;
  assign rd_data_o  = mgmt_rsp_rdata_i;
  assign rd_count_o = rd_we_o && (kind_q == MkPerf) && (i_q == '0);

  always_comb begin
    ph_d    = ph_q;
    kind_d  = kind_q;
    halt_d  = halt_q;
    write_d = write_q;
    bcast_d = bcast_q;
    x_d     = x_q;
    y_d     = y_q;
    base_d  = base_q;
    i_d     = i_q;
    n_d     = n_q;
    addr_d  = addr_q;
    wdata_d = wdata_q;
    valid_d = valid_q;
    wait_d  = (ph_q == MIdle) ? '0 : wait_q + 32'd1;
    stale_d = stale_q;
    done_o  = 1'b0;
    err_o   = 1'b0;
    tmo_o   = 1'b0;

    // A timed-out access's request, taken by the port at last.
    if (stale_taken) begin
      valid_d = 1'b0;
      stale_d = 1'b0;
    end
    drop_d = drop_q + 2'(stale_taken) + 2'(owed_now) - 2'(mgmt_rsp_valid_i && drop_q != '0);

    unique case (ph_q)
      MIdle: begin
        if (start_i) begin
          ph_d    = MReq;
          halt_d  = (op_i == 8'(hif_pkg::OpHalt));
          bcast_d = all_i;
          x_d     = x_i;
          y_d     = y_i;
          i_d     = '0;
          n_d     = count_i;
          base_d  = addr_i;
          write_d = 1'b1;
          kind_d  = MkAcc;
          unique case (op_i)
            8'(hif_pkg::OpMemRead), 8'(hif_pkg::OpRegRead): write_d = 1'b0;
            8'(hif_pkg::OpCsrRead): begin
              write_d = 1'b0;
              base_d  = wse_mgmt_pkg::AddrTileBus + (addr_i << 2);
            end
            8'(hif_pkg::OpRouteRead): begin
              write_d = 1'b0;
              base_d  = wse_mgmt_pkg::AddrRouteBase + (addr_i << 2);
            end
            8'(hif_pkg::OpCsrWrite):   base_d = wse_mgmt_pkg::AddrTileBus + (addr_i << 2);
            8'(hif_pkg::OpRouteWrite): base_d = wse_mgmt_pkg::AddrRouteBase + (addr_i << 2);
            8'(hif_pkg::OpHalt), 8'(hif_pkg::OpRun): begin
              kind_d = MkCtrl;
              n_d    = 32'd1;
            end
            8'(hif_pkg::OpReset): begin
              kind_d  = MkReset;
              bcast_d = 1'b1;
              n_d     = 32'(1 + NumRoutes);
            end
            8'(hif_pkg::OpPerfRead): begin
              kind_d  = MkPerf;
              write_d = 1'b0;
              n_d     = 32'(NumPerf);
            end
            default: ;  // MEM, REG writes: the address as it is
          endcase
        end
      end

      MReq: begin
        if (tmo) begin
          // Never taken by the port: answered TIMEOUT; the request stays
          // valid until taken (stale_q), or was taken just now.
          if (!stale_q && valid_q && !mgmt_req_ready_i) stale_d = 1'b1;
          if (!stale_q && valid_q && mgmt_req_ready_i) valid_d = 1'b0;
          done_o = 1'b1;
          err_o  = 1'b1;
          tmo_o  = 1'b1;
          ph_d   = MIdle;
        end else if (stale_q) begin
          ;  // the port still holds an earlier access's request
        end else if (!valid_q) begin
          // A tile write's data is a payload word: it waits for the RAM.
          if (kind_q != MkAcc || wvalid_i) valid_d = 1'b1;
          unique case (kind_q)
            MkAcc: begin
              addr_d  = base_q + (i_q << 2);
              wdata_d = i_q[0] ? wword_i[31:0] : wword_i[63:32];
            end
            MkCtrl: begin
              addr_d  = wse_mgmt_pkg::AddrTileCtrl;
              wdata_d = halt_q ? wse_mgmt_pkg::TileCtrlHalt : '0;
            end
            MkReset: begin
              // TILE_CTRL first, then the route entries.
              addr_d  = (i_q == 0) ? wse_mgmt_pkg::AddrTileCtrl :
                                     wse_mgmt_pkg::AddrRouteBase | 32'(route_off(i_q[5:0]));
              wdata_d = (i_q == 0) ? (wse_mgmt_pkg::TileCtrlHalt | wse_mgmt_pkg::TileCtrlCoreRst |
                                     wse_mgmt_pkg::TileCtrlCntClear) : '0;
            end
            default: begin  // MkPerf: three counters a port, 16 bytes apart
              addr_d  = wse_mgmt_pkg::AddrCntBase | 32'(perf_off(i_q[3:0]));
              wdata_d = '0;
            end
          endcase
        end else if (mgmt_req_ready_i) begin
          valid_d = 1'b0;
          ph_d    = MRsp;
        end
      end

      MRsp: begin
        if (!rsp_ours && tmo) begin
          // Taken but not answered: TIMEOUT (the response is owed).
          done_o = 1'b1;
          err_o  = 1'b1;
          tmo_o  = 1'b1;
          ph_d   = MIdle;
        end
        if (rsp_ours) begin
          wait_d = '0;
          i_d    = i_q + 32'd1;
          if (mgmt_rsp_err_i && kind_q != MkReset) begin
            done_o = 1'b1;
            err_o  = 1'b1;
            ph_d   = MIdle;
          end else if (i_q + 32'd1 == n_q) begin
            done_o = 1'b1;
            ph_d   = MIdle;
          end else begin
            ph_d = MReq;
          end
        end
      end

      default: ph_d = MIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ph_q    <= MIdle;
      kind_q  <= MkAcc;
      halt_q  <= 1'b0;
      write_q <= 1'b0;
      bcast_q <= 1'b0;
      x_q     <= '0;
      y_q     <= '0;
      base_q  <= '0;
      i_q     <= '0;
      n_q     <= '0;
      addr_q  <= '0;
      wdata_q <= '0;
      valid_q <= 1'b0;
      wait_q  <= '0;
      stale_q <= 1'b0;
      drop_q  <= '0;
    end else begin
      ph_q    <= ph_d;
      kind_q  <= kind_d;
      halt_q  <= halt_d;
      write_q <= write_d;
      bcast_q <= bcast_d;
      x_q     <= x_d;
      y_q     <= y_d;
      base_q  <= base_d;
      i_q     <= i_d;
      n_q     <= n_d;
      addr_q  <= addr_d;
      wdata_q <= wdata_d;
      valid_q <= valid_d;
      wait_q  <= wait_d;
      stale_q <= stale_d;
      drop_q  <= drop_d;
    end
  end

  assign mgmt_req_valid_o = valid_q;
  assign mgmt_req_write_o = write_q;
  assign mgmt_req_bcast_o = bcast_q;
  assign mgmt_req_x_o     = x_q;
  assign mgmt_req_y_o     = y_q;
  assign mgmt_req_addr_o  = addr_q;
  assign mgmt_req_wdata_o = wdata_q;

  `ASSERT(MgmtValidHeld, valid_q && !mgmt_req_ready_i |=> valid_q)
  `ASSERT(NoRspWithoutReq, mgmt_rsp_valid_i |-> ph_q == MRsp || drop_q != '0)
  `ASSERT(MgmtOwedBound, drop_q != 2'd3)
  `ASSERT(StartOnlyIdle, start_i |-> ph_q == MIdle)
  `ASSERT_KNOWN(MgmtValidKnown, mgmt_req_valid_o)
  // perf_off and route_off see only i's low bits, and their offsets must
  // not reach the bases' set bits.
  `ASSERT(PerfIdxBound, ph_q == MReq && kind_q == MkPerf |-> i_q < 32'(NumPerf) && NumPerf <= 16)
  `ASSERT(RouteIdxBound, ph_q == MReq && kind_q == MkReset |-> i_q <= 32'(NumRoutes) && NumRoutes <= 32)
  `ASSERT(OffsetsBelowBases, (wse_mgmt_pkg::AddrCntBase & 32'hff) == 0 &&
                             (wse_mgmt_pkg::AddrRouteBase & 32'hff) == 0)
endmodule
