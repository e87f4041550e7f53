// Host interface request checks (docs/host-if.md, "Checks before any
// access"): the verdict on a request the receiver took whole and intact,
// before its first effect. Combinational, from the header and the first
// two payload words, which the request slots keep in flip-flops for this:
// the executor decides in its dispatch cycle whether to answer at once
// (run_o low: st_o, with len_o bytes of payload; info_o: the INFO
// payload) or to execute the request (run_o high). Apart from the
// executor so that the protocol's rules (docs/protocol.md 4) read in one
// place, without the executor's state around them.
module hif_req_check #(
  parameter int unsigned NumCols    = 4,
  parameter int unsigned NumRows    = 4,
  parameter int unsigned MaxPayload = 4096,  // bytes
  parameter int unsigned DtbBytes   = 8
) (
  input  logic [7:0]  op_i,
  input  logic [31:0] len_i,       // payload bytes
  // Tile access fields (payload bytes 0..11; for HALT, RUN, PERF_READ and
  // RESET the first four bytes).
  input  logic [7:0]  x_i,
  input  logic [7:0]  y_i,
  input  logic [15:0] rsvd_i,
  input  logic [31:0] addr_i,
  input  logic [31:0] count_i,
  // An ABORT finds its request ended just before (answered OK).
  input  logic        abort_ok_i,
  // The receiver's check of a STREAM_IN chunk list.
  input  logic        ck_err_i,
  input  logic [15:0] ck_st_i,
  output logic        run_o,
  output logic [15:0] st_o,
  output logic [31:0] len_o,
  output logic        info_o,
  // A tile read: its answer carries the words read.
  output logic        acc_rd_o
);
  logic        acc_rd, acc_wr, acc_op, a_all, a_in, op_mem, op_csr, op_route, op_reg;
  logic [32:0] acc_end;
  logic [33:0] acc_top;      // first byte past a MEM or REG access
  always_comb begin
    op_mem   = (op_i == 8'(hif_pkg::OpMemRead)) || (op_i == 8'(hif_pkg::OpMemWrite));
    op_csr   = (op_i == 8'(hif_pkg::OpCsrRead)) || (op_i == 8'(hif_pkg::OpCsrWrite));
    op_route = (op_i == 8'(hif_pkg::OpRouteRead)) || (op_i == 8'(hif_pkg::OpRouteWrite));
    op_reg   = (op_i == 8'(hif_pkg::OpRegRead)) || (op_i == 8'(hif_pkg::OpRegWrite));
    acc_rd = (op_i == 8'(hif_pkg::OpMemRead)) || (op_i == 8'(hif_pkg::OpCsrRead)) ||
             (op_i == 8'(hif_pkg::OpRouteRead)) || (op_i == 8'(hif_pkg::OpRegRead));
    acc_wr = (op_i == 8'(hif_pkg::OpMemWrite)) || (op_i == 8'(hif_pkg::OpCsrWrite)) ||
             (op_i == 8'(hif_pkg::OpRouteWrite)) || (op_i == 8'(hif_pkg::OpRegWrite));
    acc_op  = acc_rd || acc_wr;
    acc_end = {1'b0, addr_i} + {1'b0, count_i};
    acc_top = {2'b0, addr_i} + {count_i, 2'b00};
    a_all   = (x_i == 8'hFF) && (y_i == 8'hFF);
    a_in    = (32'(x_i) < NumCols) && (32'(y_i) < NumRows);

    run_o  = 1'b0;
    st_o   = 16'(hif_pkg::StOk);
    len_o  = '0;
    info_o = 1'b0;
    unique case (op_i)
      8'(hif_pkg::OpInfo): begin
        if (len_i != 0) st_o = 16'(hif_pkg::StMalformed);
        else begin
          len_o  = 32'd48 + 32'(DtbBytes);
          info_o = 1'b1;
        end
      end
      8'(hif_pkg::OpPing): len_o = len_i;
      8'(hif_pkg::OpReset): begin
        if (len_i != 4 || {rsvd_i, y_i, x_i} != 0) st_o = 16'(hif_pkg::StMalformed);
        else run_o = 1'b1;
      end
      8'(hif_pkg::OpAbort): begin
        // The ABORT that ended a stream-in is answered OK.
        st_o = (len_i != 4) ? 16'(hif_pkg::StMalformed) :
               abort_ok_i ? 16'(hif_pkg::StOk) : 16'(hif_pkg::StNotFound);
      end
      8'(hif_pkg::OpHalt), 8'(hif_pkg::OpRun): begin
        if (len_i != 4 || rsvd_i != 0) st_o = 16'(hif_pkg::StMalformed);
        else if (!a_all && !a_in) st_o = 16'(hif_pkg::StRange);
        else run_o = 1'b1;
      end
      8'(hif_pkg::OpPerfRead): begin
        // 0xFF,0xFF: the host interface's counters.
        if (len_i != 4 || rsvd_i != 0) st_o = 16'(hif_pkg::StMalformed);
        else if (!a_all && !a_in) st_o = 16'(hif_pkg::StRange);
        else run_o = 1'b1;
      end
      8'(hif_pkg::OpStreamIn): begin
        // The chunk list was checked as it arrived.
        if (len_i == 0 || len_i[2:0] != 0) st_o = 16'(hif_pkg::StMalformed);
        else if (ck_err_i) st_o = ck_st_i;
        else run_o = 1'b1;
      end
      8'(hif_pkg::OpStreamCredit): begin
        if (len_i == 0 || len_i[2:0] != 0) st_o = 16'(hif_pkg::StMalformed);
        else run_o = 1'b1;
      end
      8'(hif_pkg::OpFlashRead), 8'(hif_pkg::OpFlashErase),
      8'(hif_pkg::OpFlashProgram), 8'(hif_pkg::OpFlashVerify):
        run_o = 1'b1;  // hif_flash checks and runs it
      default: begin
        if (!acc_op) st_o = 16'(hif_pkg::StOpcode);
        else if (len_i < 12 || rsvd_i != 0 || count_i == 0 ||
                 (acc_rd && len_i != 12) ||
                 (acc_wr && ({3'b0, len_i} != 35'd12 + {1'b0, count_i, 2'b00})))
          st_o = 16'(hif_pkg::StMalformed);
        else if (!a_in && !(a_all && acc_wr)) st_o = 16'(hif_pkg::StRange);
        else if (op_mem && (!addr_i[31] || acc_top > 34'h1_0000_0000))
          st_o = 16'(hif_pkg::StRange);
        else if (op_csr && acc_end > 33'd4096) st_o = 16'(hif_pkg::StRange);
        else if (op_route && acc_end > 33'd32) st_o = 16'(hif_pkg::StRange);
        else if (op_reg && acc_top > 34'h1_0000_0000) st_o = 16'(hif_pkg::StRange);
        else if ((op_mem || op_reg) && addr_i[1:0] != 0) st_o = 16'(hif_pkg::StAlign);
        else if (acc_rd && {count_i, 2'b00} > 34'(MaxPayload)) st_o = 16'(hif_pkg::StLength);
        else run_o = 1'b1;
      end
    endcase
  end
  assign acc_rd_o = acc_rd;
endmodule
