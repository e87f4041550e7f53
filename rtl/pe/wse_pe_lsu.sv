// Load/store unit of the tile core: checks alignment and the address map,
// drives the data port (request/grant, read data one cycle after the grant)
// and aligns and extends load data. The core holds req_i and its operands
// stable until done_o. A store is done when granted, a load when its data
// returns; an access that faults is done at once with err_o.
module wse_pe_lsu #(
  parameter int unsigned DmemBytes = wse_cfg_pkg::DmemBytes
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        req_i,
  input  logic        we_i,
  input  logic [1:0]  size_i,    // funct3[1:0]
  input  logic        uns_i,     // funct3[2]: zero-extend
  input  logic [31:0] addr_i,
  input  logic [31:0] wdata_i,
  output logic        done_o,
  output logic        err_o,
  output logic [4:0]  err_cause_o,
  output logic [31:0] rdata_o,

  // Data port
  output logic        data_req_o,
  input  logic        data_gnt_i,
  output logic        data_we_o,
  output logic [31:0] data_addr_o,  // word-aligned byte address
  output logic [3:0]  data_be_o,
  output logic [31:0] data_wdata_o,
  input  logic        data_rvalid_i,
  input  logic [31:0] data_rdata_i
);
  logic wait_q, wait_d;  // a load was granted; its data arrives this cycle

  logic misaligned, in_dmem;
  assign misaligned = (size_i == wse_pe_pkg::SizeHalf && addr_i[0]) ||
                      (size_i == wse_pe_pkg::SizeWord && addr_i[1:0] != 2'b00);
  assign in_dmem = (addr_i - wse_pe_pkg::DmemBase) < DmemBytes;

  always_comb begin
    err_o       = 1'b0;
    err_cause_o = we_i ? wse_pe_pkg::ExcStoreAccess : wse_pe_pkg::ExcLoadAccess;
    if (misaligned) begin
      err_o       = 1'b1;
      err_cause_o = we_i ? wse_pe_pkg::ExcStoreMisaligned : wse_pe_pkg::ExcLoadMisaligned;
    end else if (!in_dmem) begin
      err_o = 1'b1;
    end
  end

  // Byte enables and store data placed in their byte lanes.
  always_comb begin
    unique case (size_i)
      wse_pe_pkg::SizeByte: begin
        data_be_o    = 4'b0001 << addr_i[1:0];
        data_wdata_o = {4{wdata_i[7:0]}};
      end
      wse_pe_pkg::SizeHalf: begin
        data_be_o    = addr_i[1] ? 4'b1100 : 4'b0011;
        data_wdata_o = {2{wdata_i[15:0]}};
      end
      default: begin
        data_be_o    = 4'b1111;
        data_wdata_o = wdata_i;
      end
    endcase
  end

  assign data_req_o  = req_i && !err_o && !wait_q;
  assign data_we_o   = we_i;
  assign data_addr_o = {addr_i[31:2], 2'b00};

  always_comb begin
    wait_d = wait_q;
    done_o = 1'b0;
    if (req_i && err_o) begin
      done_o = 1'b1;
    end else if (wait_q) begin
      if (data_rvalid_i) begin
        done_o = 1'b1;
        wait_d = 1'b0;
      end
    end else if (data_req_o && data_gnt_i) begin
      if (we_i) done_o = 1'b1;
      else      wait_d = 1'b1;
    end
  end

  // Load data: select the addressed lanes, then sign- or zero-extend.
  logic [31:0] shifted;
  assign shifted = data_rdata_i >> {addr_i[1:0], 3'b000};
  logic [15:0] unused_shifted;
  assign unused_shifted = shifted[31:16];
  always_comb begin
    unique case (size_i)
      wse_pe_pkg::SizeByte: rdata_o = {{24{!uns_i && shifted[7]}}, shifted[7:0]};
      wse_pe_pkg::SizeHalf: rdata_o = {{16{!uns_i && shifted[15]}}, shifted[15:0]};
      default:              rdata_o = data_rdata_i;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) wait_q <= 1'b0;
    else         wait_q <= wait_d;
  end
endmodule
