// Host interface transmit arbiter: shares hif_tx_frame between the
// executor's responses (requester 0) and the event sender (requester 1),
// a whole packet at a time; when both wait they take turns.
`include "prim_assert.svh"

module hif_tx_arb (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Requesters: packet description, then ceil(length / 8) payload words.
  input  logic [1:0]  cmd_valid_i,
  output logic [1:0]  cmd_ready_o,
  input  logic [15:0] cmd_opcode_i,   // requester r in [8r +: 8]
  input  logic [15:0] cmd_flags_i,
  input  logic [63:0] cmd_tag_i,
  input  logic [31:0] cmd_status_i,
  input  logic [63:0] cmd_length_i,
  input  logic [1:0]  tx_valid_i,
  output logic [1:0]  tx_ready_o,
  input  logic [127:0] tx_data_i,
  // To hif_tx_frame.
  output logic        cmd_valid_o,
  input  logic        cmd_ready_i,
  output logic [7:0]  cmd_opcode_o,
  output logic [7:0]  cmd_flags_o,
  output logic [31:0] cmd_tag_o,
  output logic [15:0] cmd_status_o,
  output logic [31:0] cmd_length_o,
  output logic        tx_valid_o,
  input  logic        tx_ready_i,
  output logic [63:0] tx_data_o,
  // A packet is being sent.
  output logic        busy_o
);
  typedef enum logic [1:0] {AIdle, ACmd, APl} ast_e;

  ast_e        st_q, st_d;
  logic        own_q, own_d;     // requester of the packet in progress
  logic        turn_q, turn_d;   // requester 1 goes first next time
  logic [29:0] left_q, left_d;   // payload words still to pass
  logic        sel;

  always_comb begin
    unique case (st_q)
      AIdle:   sel = (cmd_valid_i == 2'b11) ? turn_q : cmd_valid_i[1];
      default: sel = own_q;
    endcase
  end

  assign cmd_valid_o  = (st_q != APl) && cmd_valid_i[sel];
  assign cmd_opcode_o = cmd_opcode_i[8*sel +: 8];
  assign cmd_flags_o  = cmd_flags_i[8*sel +: 8];
  assign cmd_tag_o    = cmd_tag_i[32*sel +: 32];
  assign cmd_status_o = cmd_status_i[16*sel +: 16];
  assign cmd_length_o = cmd_length_i[32*sel +: 32];
  assign tx_valid_o   = (st_q == APl) && tx_valid_i[own_q];
  assign tx_data_o    = tx_data_i[64*own_q +: 64];
  assign busy_o       = (st_q != AIdle);

  always_comb begin
    st_d   = st_q;
    own_d  = own_q;
    turn_d = turn_q;
    left_d = left_q;
    cmd_ready_o = '0;
    tx_ready_o  = '0;
    unique case (st_q)
      AIdle, ACmd: begin
        if (cmd_valid_i[sel]) begin
          cmd_ready_o[sel] = cmd_ready_i;
          own_d = sel;
          st_d  = ACmd;
          if (cmd_ready_i) begin
            turn_d = ~sel;
            left_d = 30'((cmd_length_o + 32'd7) >> 3);
            st_d   = (cmd_length_o == '0) ? AIdle : APl;
          end
        end
      end
      APl: begin
        tx_ready_o[own_q] = tx_ready_i;
        if (tx_valid_i[own_q] && tx_ready_i) begin
          left_d = left_q - 1'b1;
          if (left_q == 30'd1) st_d = AIdle;
        end
      end
      default: st_d = AIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q   <= AIdle;
      own_q  <= 1'b0;
      turn_q <= 1'b0;
      left_q <= '0;
    end else begin
      st_q   <= st_d;
      own_q  <= own_d;
      turn_q <= turn_d;
      left_q <= left_d;
    end
  end

  `ASSERT_KNOWN(CmdValidKnown, cmd_valid_o)
  `ASSERT_KNOWN(TxValidKnown, tx_valid_o)
  // A requester waiting for its command is not switched away from.
  `ASSERT(CmdHeld, cmd_valid_o && !cmd_ready_i |=> cmd_valid_o && st_q == ACmd)
  `ASSERT(PayloadCount, st_q == APl |-> left_q != '0)
endmodule
