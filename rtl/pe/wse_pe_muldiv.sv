// Multiply/divide unit of the tile core (the M extension), an execute unit
// behind the core's multi-cycle handshake: the core holds req_i with stable
// operands until done_o, which is high for exactly one cycle. Multiplies take
// 2 cycles (product registered); divides and remainders take 34 cycles
// (one quotient bit per cycle), or 2 for division by zero and overflow.
module wse_pe_muldiv (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        req_i,
  input  logic [2:0]  op_i,   // funct3: mul mulh mulhsu mulhu div divu rem remu
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic        done_o,
  output logic [31:0] result_o
);
  typedef enum logic [1:0] { StIdle, StDiv, StDone } state_e;

  state_e      state_q, state_d;
  logic [31:0] result_q, result_d;
  logic [31:0] quot_q, quot_d;      // dividend shifting out, quotient shifting in
  logic [32:0] rem_q, rem_d;        // partial remainder
  logic [31:0] divisor_q, divisor_d;
  logic [5:0]  count_q, count_d;
  logic        neg_q, neg_d;        // negate the final result

  // Multiplier: 33x33 signed product covers every mulh* variant.
  logic        a_signed, b_signed;
  logic [32:0] a_ext, b_ext;
  logic signed [65:0] product;
  assign a_signed = (op_i == 3'b001) || (op_i == 3'b010);
  assign b_signed = (op_i == 3'b001);
  assign a_ext    = {a_signed & a_i[31], a_i};
  assign b_ext    = {b_signed & b_i[31], b_i};
  assign product  = $signed(a_ext) * $signed(b_ext);
  logic [1:0] unused_product;
  assign unused_product = product[65:64];

  // Divider set-up.
  logic        is_div, div_signed, is_rem, a_neg, b_neg;
  logic [31:0] a_abs, b_abs;
  assign is_div     = op_i[2];
  assign div_signed = !op_i[0];
  assign is_rem     = op_i[1];
  assign a_neg      = div_signed && a_i[31];
  assign b_neg      = div_signed && b_i[31];
  assign a_abs      = a_neg ? (~a_i + 32'd1) : a_i;
  assign b_abs      = b_neg ? (~b_i + 32'd1) : b_i;

  // One restoring-division step.
  logic [32:0] rem_shift, rem_sub;
  assign rem_shift = {rem_q[31:0], quot_q[31]};
  assign rem_sub   = rem_shift - {1'b0, divisor_q};

  always_comb begin
    state_d   = state_q;
    result_d  = result_q;
    quot_d    = quot_q;
    rem_d     = rem_q;
    divisor_d = divisor_q;
    count_d   = count_q;
    neg_d     = neg_q;
    done_o    = 1'b0;

    unique case (state_q)
      StIdle: begin
        if (req_i) begin
          state_d = StDone;
          if (!is_div) begin
            unique case (op_i[1:0])
              2'b00:   result_d = product[31:0];
              default: result_d = product[63:32];
            endcase
          end else if (b_i == 32'd0) begin
            // Division by zero: quotient all ones, remainder the dividend.
            result_d = is_rem ? a_i : 32'hffff_ffff;
          end else if (div_signed && a_i == 32'h8000_0000 && b_i == 32'hffff_ffff) begin
            // Signed overflow: quotient the dividend, remainder 0.
            result_d = is_rem ? 32'd0 : a_i;
          end else begin
            state_d   = StDiv;
            quot_d    = a_abs;
            rem_d     = 33'd0;
            divisor_d = b_abs;
            count_d   = 6'd32;
            neg_d     = is_rem ? a_neg : (a_neg ^ b_neg);
          end
        end
      end
      StDiv: begin
        if (!rem_sub[32]) begin
          rem_d  = rem_sub;
          quot_d = {quot_q[30:0], 1'b1};
        end else begin
          rem_d  = rem_shift;
          quot_d = {quot_q[30:0], 1'b0};
        end
        count_d = count_q - 6'd1;
        if (count_q == 6'd1) begin
          state_d  = StDone;
          result_d = is_rem ? rem_d[31:0] : quot_d;
          if (neg_q) result_d = ~result_d + 32'd1;
        end
      end
      StDone: begin
        done_o  = 1'b1;
        state_d = StIdle;
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q   <= StIdle;
      result_q  <= 32'd0;
      quot_q    <= 32'd0;
      rem_q     <= 33'd0;
      divisor_q <= 32'd0;
      count_q   <= 6'd0;
      neg_q     <= 1'b0;
    end else begin
      state_q   <= state_d;
      result_q  <= result_d;
      quot_q    <= quot_d;
      rem_q     <= rem_d;
      divisor_q <= divisor_d;
      count_q   <= count_d;
      neg_q     <= neg_d;
    end
  end

  assign result_o = result_q;
endmodule
