// Management node of one tile: a registered stage of the management chain.
// Performs requests addressed to this tile (or broadcast writes) on the tile
// registers, the router's route table and counters, or the tile-side bus,
// and turns a unicast request into a response that rides the rest of the
// chain. See docs/management.md.
`include "prim_assert.svh"

module wse_mgmt_node (
  input  logic                               clk_i,
  input  logic                               rst_ni,
  input  logic [wse_pkg::CoordW-1:0]         x_i,
  input  logic [wse_pkg::CoordW-1:0]         y_i,

  // Chain: packet from the previous stage, packet to the next (registered).
  input  logic [wse_mgmt_pkg::PktW-1:0]      chain_i,
  output logic [wse_mgmt_pkg::PktW-1:0]      chain_o,

  // Router registers.
  output logic                               route_we_o,
  output logic [wse_pkg::ColorW-1:0]         route_color_o,
  output logic [9:0]                         route_wdata_o,   // {rx, tx}
  input  logic [wse_pkg::NumColors*10-1:0]   route_table_i,
  output logic                               cnt_clear_o,
  input  logic [wse_pkg::NumPorts*32-1:0]    cnt_fwd_i,
  input  logic [wse_pkg::NumPorts*32-1:0]    cnt_stall_i,
  input  logic [wse_pkg::NumPorts*32-1:0]    cnt_drop_i,

  // Tile control (TILE_CTRL) and status (TILE_STATUS).
  output logic                               halt_o,
  output logic                               core_rst_o,
  input  logic [31:0]                        tile_status_i,

  // Tile-side bus for addresses 0x0001_0000 and above. req_o is held with
  // stable we/addr/wdata until ack_i (one cycle, may come in the first
  // cycle of req_o); rdata_i and err_i are valid with ack_i.
  output logic                               tbus_req_o,
  output logic                               tbus_we_o,
  output logic [31:0]                        tbus_addr_o,
  output logic [31:0]                        tbus_wdata_o,
  input  logic                               tbus_ack_i,
  input  logic [31:0]                        tbus_rdata_i,
  input  logic                               tbus_err_i
);
  localparam int unsigned PktW = wse_mgmt_pkg::PktW;
  localparam int unsigned CW   = wse_pkg::CoordW;

  // Fields of the incoming packet.
  logic        in_valid, in_rsp, in_write, in_bcast, in_hit, in_local;
  logic [CW-1:0] in_x, in_y;
  logic [31:0] in_addr, in_data;

  assign in_valid = chain_i[wse_mgmt_pkg::PktValid];
  assign in_rsp   = chain_i[wse_mgmt_pkg::PktRsp];
  assign in_write = chain_i[wse_mgmt_pkg::PktWrite];
  assign in_bcast = chain_i[wse_mgmt_pkg::PktBcast];
  assign in_x     = chain_i[wse_mgmt_pkg::PktX +: CW];
  assign in_y     = chain_i[wse_mgmt_pkg::PktY +: CW];
  assign in_addr  = chain_i[wse_mgmt_pkg::PktAddr +: 32];
  assign in_data  = chain_i[wse_mgmt_pkg::PktData +: 32];
  // The request is for this tile.
  assign in_hit   = in_valid && !in_rsp &&
                    (in_bcast || (in_x == x_i && in_y == y_i));
  assign in_local = (in_addr < wse_mgmt_pkg::AddrTileBus);

  // ---------------------------------------------------------------------------
  // Local register decode (combinational on the incoming request)
  // ---------------------------------------------------------------------------
  logic        halt_q, halt_d, core_rst_q, core_rst_d;
  logic [31:0] loc_rdata;
  logic        loc_err, loc_route_we, loc_ctrl_we;

  // The route table and the counters as arrays (wiring only), so that a
  // read is a multiplexer by the index: a part-select such as
  // route_table_i[c*10 +: 10] makes Yosys build a multiplier (a MULT18X18D
  // on ECP5) and a shifter over the whole table.
  logic [9:0]  rt_ent  [wse_pkg::NumColors];
  logic [31:0] cnt_fwd [wse_pkg::NumPorts];
  logic [31:0] cnt_stall [wse_pkg::NumPorts];
  logic [31:0] cnt_drop [wse_pkg::NumPorts];
  for (genvar c = 0; c < wse_pkg::NumColors; c++) begin : g_rt_ent
    assign rt_ent[c] = route_table_i[c*10 +: 10];
  end
  for (genvar p = 0; p < wse_pkg::NumPorts; p++) begin : g_cnt
    assign cnt_fwd[p]   = cnt_fwd_i[p*32 +: 32];
    assign cnt_stall[p] = cnt_stall_i[p*32 +: 32];
    assign cnt_drop[p]  = cnt_drop_i[p*32 +: 32];
  end

  always_comb begin
    logic [2:0]  port;
    logic [1:0]  kind;
    logic [9:0]  ent;
    loc_rdata    = '0;
    loc_err      = 1'b0;
    loc_route_we = 1'b0;
    loc_ctrl_we  = 1'b0;
    ent          = rt_ent[in_addr[6:2]];
    // CNT block: 0x2000 + 16*port + 4*kind (the base is 128-byte aligned).
    port         = in_addr[6:4];
    kind         = in_addr[3:2];
    if (in_addr[1:0] != 2'b00) begin
      loc_err = 1'b1;
    end else if (in_addr == wse_mgmt_pkg::AddrTileId) begin
      loc_rdata = {wse_mgmt_pkg::TileIdMagic, y_i, x_i};
      loc_err   = in_write;
    end else if (in_addr == wse_mgmt_pkg::AddrTileCtrl) begin
      loc_rdata   = {30'd0, core_rst_q, halt_q};
      loc_ctrl_we = in_write;
    end else if (in_addr == wse_mgmt_pkg::AddrTileStatus) begin
      loc_rdata = tile_status_i;
      loc_err   = in_write;
    end else if (in_addr[31:7] == wse_mgmt_pkg::AddrRouteBase[31:7]) begin
      loc_rdata    = {19'd0, ent[9:5], 3'd0, ent[4:0]};
      loc_route_we = in_write;
    end else if (in_addr[31:7] == wse_mgmt_pkg::AddrCntBase[31:7] &&
                 port < 3'(wse_pkg::NumPorts) && kind != 2'd3) begin
      unique case (kind)
        2'd0:    loc_rdata = cnt_fwd[port];
        2'd1:    loc_rdata = cnt_stall[port];
        default: loc_rdata = cnt_drop[port];
      endcase
      loc_err = in_write;
    end else begin
      loc_err = 1'b1;
    end
    // A broadcast read has no single answer: refused everywhere.
    if (in_bcast && !in_write) begin
      loc_err      = 1'b1;
      loc_route_we = 1'b0;
      loc_ctrl_we  = 1'b0;
    end
  end

  // ---------------------------------------------------------------------------
  // Stage: pass through, answer locally, or wait for the tile-side bus
  // ---------------------------------------------------------------------------
  logic [PktW-1:0] pkt_q, pkt_d;
  logic [PktW-1:0] held_q, held_d;     // request waiting for the tile bus
  logic            busy_q, busy_d;
  logic            start_tbus, do_local, cnt_clear;

  // Turn a request into its result: a response for a unicast, the request
  // itself (with err accumulated) for a broadcast.
  function automatic logic [PktW-1:0] finish(logic [PktW-1:0] req,
                                            logic [31:0] rdata, logic err);
    logic [PktW-1:0] r;
    r = req;
    r[wse_mgmt_pkg::PktErr] = req[wse_mgmt_pkg::PktErr] | err;
    if (!req[wse_mgmt_pkg::PktBcast]) begin
      r[wse_mgmt_pkg::PktRsp]        = 1'b1;
      r[wse_mgmt_pkg::PktData +: 32] = rdata;
    end
    finish = r;
  endfunction

  assign start_tbus = in_hit && !in_local && !(in_bcast && !in_write);
  assign do_local   = in_hit && !start_tbus;

  always_comb begin
    pkt_d      = chain_i;       // not for this tile: pass on
    held_d     = held_q;
    busy_d     = busy_q;
    halt_d     = halt_q;
    core_rst_d = core_rst_q;
    cnt_clear  = 1'b0;
    if (do_local) begin
      pkt_d = finish(chain_i, loc_rdata, loc_err);
      if (loc_ctrl_we) begin
        halt_d     = in_data[0];
        core_rst_d = in_data[1];
        cnt_clear  = in_data[2];
      end
    end else if (start_tbus) begin
      pkt_d  = '0;
      held_d = chain_i;
      busy_d = 1'b1;
    end
    if (busy_q && tbus_ack_i) begin
      pkt_d  = finish(held_q, tbus_rdata_i, tbus_err_i);
      busy_d = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pkt_q      <= '0;
      held_q     <= '0;
      busy_q     <= 1'b0;
      halt_q     <= 1'b1;   // tiles come out of reset halted
      core_rst_q <= 1'b0;
    end else begin
      pkt_q      <= pkt_d;
      held_q     <= held_d;
      busy_q     <= busy_d;
      halt_q     <= halt_d;
      core_rst_q <= core_rst_d;
    end
  end

  assign chain_o       = pkt_q;
  assign route_we_o    = do_local && loc_route_we && !loc_err;
  assign route_color_o = in_addr[6:2];
  assign route_wdata_o = {in_data[12:8], in_data[4:0]};
  assign cnt_clear_o   = cnt_clear;
  assign halt_o        = halt_q;
  assign core_rst_o    = core_rst_q;

  // TILE_CTRL and ROUTE keep only their defined bits.
  logic unused_wdata;
  assign unused_wdata = ^{in_data[31:13], in_data[7:5]};

  assign tbus_req_o    = busy_q;
  assign tbus_we_o     = held_q[wse_mgmt_pkg::PktWrite];
  assign tbus_addr_o   = held_q[wse_mgmt_pkg::PktAddr +: 32];
  assign tbus_wdata_o  = held_q[wse_mgmt_pkg::PktData +: 32];

  // Assertions
  // One request in flight: nothing arrives while the tile bus is busy.
  `ASSERT(MgmtNoPktWhileBusy, !(busy_q && chain_i[wse_mgmt_pkg::PktValid]))
  `ASSERT(MgmtNoAckWithoutReq, !(tbus_ack_i && !busy_q))
  `ASSERT_KNOWN(MgmtChainValidKnown, chain_o[wse_mgmt_pkg::PktValid])
  `COVER(MgmtTileBus, busy_q && tbus_ack_i)
endmodule
