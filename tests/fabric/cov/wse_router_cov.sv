// Testbench cover points bound into every wse_router (RTL builds only).
// The simulator (5.006) merges the cover points of a generate loop into one, so
// each input->output pair and each multicast fan-out has its own line here.
// Pair names: TbPair_<in>_<out> with ports N E S W R(AMP).
module wse_router_cov #(
  parameter int unsigned NP = 5,
  parameter int unsigned NV = 4
) (
  input logic                   clk_i,
  input logic                   rst_ni,
  input logic [NP-1:0][NP-1:0]  ognt,      // [output][input]
  input logic [NP-1:0][NV-1:0]  vsel,
  input logic [NP-1:0]          sel_done,
  input logic [NP-1:0]          sel_drop,
  input logic [NP-1:0][NP-1:0]  sel_tx     // [input][output]
);
  logic [NP-1:0] fin;
  logic [NP:0]   fan;  // fan[k]: some input completed a k-way multicast
  always_comb begin
    fan = '0;
    for (int p = 0; p < NP; p++) begin
      fin[p] = (vsel[p] != '0) && sel_done[p] && !sel_drop[p];
      if (fin[p]) fan[$countones(sel_tx[p])] = 1'b1;
    end
  end
  TbPair_N_N: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[0][0]);
  TbPair_N_E: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[1][0]);
  TbPair_N_S: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[2][0]);
  TbPair_N_W: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[3][0]);
  TbPair_N_R: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[4][0]);
  TbPair_E_N: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[0][1]);
  TbPair_E_E: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[1][1]);
  TbPair_E_S: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[2][1]);
  TbPair_E_W: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[3][1]);
  TbPair_E_R: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[4][1]);
  TbPair_S_N: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[0][2]);
  TbPair_S_E: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[1][2]);
  TbPair_S_S: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[2][2]);
  TbPair_S_W: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[3][2]);
  TbPair_S_R: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[4][2]);
  TbPair_W_N: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[0][3]);
  TbPair_W_E: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[1][3]);
  TbPair_W_S: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[2][3]);
  TbPair_W_W: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[3][3]);
  TbPair_W_R: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[4][3]);
  TbPair_R_N: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[0][4]);
  TbPair_R_E: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[1][4]);
  TbPair_R_S: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[2][4]);
  TbPair_R_W: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[3][4]);
  TbPair_R_R: cover property (@(posedge clk_i) disable iff (!rst_ni) ognt[4][4]);
  TbFanout1: cover property (@(posedge clk_i) disable iff (!rst_ni) fan[1]);
  TbFanout2: cover property (@(posedge clk_i) disable iff (!rst_ni) fan[2]);
  TbFanout3: cover property (@(posedge clk_i) disable iff (!rst_ni) fan[3]);
  TbFanout4: cover property (@(posedge clk_i) disable iff (!rst_ni) fan[4]);
  TbFanout5: cover property (@(posedge clk_i) disable iff (!rst_ni) fan[5]);
endmodule

bind wse_router wse_router_cov #(
  .NP (wse_pkg::NumPorts),
  .NV (NumVc)
) u_tb_cov (
  .clk_i    (clk_i),
  .rst_ni   (rst_ni),
  .ognt     (ognt),
  .vsel     (vsel),
  .sel_done (sel_done),
  .sel_drop (sel_drop),
  .sel_tx   (sel_tx)
);
