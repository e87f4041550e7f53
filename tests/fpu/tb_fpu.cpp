// Verilator testbench for the FPU alone. Streams biased random cases
// (tests/fpu/fpu_gen.c) through the valid/ready interface with random input
// gaps and output back-pressure, compares every result and flag set bit for
// bit with the C model, and keeps coverage counters: every (operation,
// rounding mode) must hit each flag combination that can occur, every
// operation each result class that can occur, and a few named corner
// events. Any miss, mismatch or unexpected combination fails the run.
//
//   tb_fpu [--n N] [--seed S] [--mixed N] [--bench] [--cov FILE]
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>

#include "Vfpu.h"
#include "verilated.h"
#include "verilated_cov.h"
#include "fpu_model.h"

namespace {

struct Expect {
  int op, rm;
  uint32_t a, b, c, res, flags, tag;
  uint64_t issue_cycle;
};

VerilatedContext *ctx;
Vfpu *dut;
uint64_t cycle;

void tick() {
  dut->clk_i = 0;
  dut->eval();
  ctx->timeInc(1);
  dut->clk_i = 1;
  dut->eval();
  ctx->timeInc(1);
  cycle++;
}

// ----------------------------------------------------------------- coverage
enum { NumRm = 5, NumCls = 10, NumFl = 32 };
uint64_t hit_flags[FPU_NUM_OPS][NumRm][NumFl];
uint64_t hit_cls[FPU_NUM_OPS][16];
enum { EvTinyRoundsToMin, EvExactSubnormal, EvOfToMax, EvOfToInf,
       EvCancelExactZero, EvNegZeroRdn, EvSatPos, EvSatNeg, EvNumEvents };
const char *ev_names[EvNumEvents] = {
  "UF with result +-2^-126 (tininess after rounding)", "exact subnormal result",
  "overflow to max finite", "overflow to infinity", "exact cancellation to +0",
  "exact cancellation to -0 (RDN)", "fcvt saturates high", "fcvt saturates low" };
uint64_t hit_ev[EvNumEvents];
uint64_t mismatches;

const uint32_t F_NX = FPU_NX, F_UF = FPU_UF, F_OF = FPU_OF, F_DZ = FPU_DZ, F_NV = FPU_NV;

// Flag combinations that can occur per operation (any rounding mode).
// Notes: fadd/fsub never underflow (a sum of binary32 values below 2^-126 is
// exact); fsqrt results are never tiny or overflowing; conversions to float
// cannot overflow or underflow.
std::string possible_flags(int op) {
  std::string s;
  auto add = [&](uint32_t f) { s.push_back((char)f); };
  add(0);
  switch (op) {
  case FPU_ADD: case FPU_SUB: add(F_NX); add(F_OF | F_NX); add(F_NV); break;
  case FPU_MUL: case FPU_MADD: case FPU_MSUB: case FPU_NMSUB: case FPU_NMADD:
    add(F_NX); add(F_OF | F_NX); add(F_UF | F_NX); add(F_NV); break;
  case FPU_DIV: add(F_NX); add(F_OF | F_NX); add(F_UF | F_NX); add(F_NV); add(F_DZ); break;
  case FPU_SQRT: add(F_NX); add(F_NV); break;
  case FPU_MIN: case FPU_MAX: case FPU_EQ: case FPU_LT: case FPU_LE: add(F_NV); break;
  case FPU_CVT_W_S: case FPU_CVT_WU_S: add(F_NX); add(F_NV); break;
  case FPU_CVT_S_W: case FPU_CVT_S_WU: add(F_NX); break;
  default: break;
  }
  return s;
}

// Result "classes": fclass bit index for float results; for integer
// results: 0 zero, 1 positive, 2 negative, 3 saturated high, 4 saturated
// low/zero with NV (fcvt), or the fclass bit / the boolean itself.
int result_class(int op, uint32_t r, uint32_t fl) {
  if (op == FPU_CLASS) return __builtin_ctz(r);
  if (op == FPU_EQ || op == FPU_LT || op == FPU_LE) return (int)r;
  if (op == FPU_CVT_W_S || op == FPU_CVT_WU_S) {
    if (fl & F_NV) return (r == 0 || r == 0x80000000u) ? 4 : 3;
    if (r == 0) return 0;
    return (op == FPU_CVT_W_S && (r >> 31)) ? 2 : 1;
  }
  return __builtin_ctz(fpu_classify(r));
}

uint32_t possible_classes(int op) {
  const uint32_t all = 0x3ff, no_snan = 0x3ff & ~(1u << 8);
  switch (op) {
  case FPU_SQRT: return (1u << 3) | (1u << 4) | (1u << 6) | (1u << 7) | (1u << 9);
  case FPU_CVT_S_W: return (1u << 1) | (1u << 4) | (1u << 6);
  case FPU_CVT_S_WU: return (1u << 4) | (1u << 6);
  case FPU_CVT_W_S: return 0x1f;
  case FPU_CVT_WU_S: return 0x1b;  // no negative results
  case FPU_EQ: case FPU_LT: case FPU_LE: return 0x3;
  case FPU_SGNJ: case FPU_SGNJN: case FPU_SGNJX: case FPU_MV_X_W: case FPU_MV_W_X:
  case FPU_CLASS: return all;
  default: return no_snan;
  }
}

void record(const Expect &e) {
  int cls = result_class(e.op, e.res, e.flags);
  hit_flags[e.op][e.rm][e.flags]++;
  hit_cls[e.op][cls]++;
  bool fres = fpu_op_float_result(e.op);
  uint32_t mag = e.res & 0x7fffffffu;
  if ((e.flags & F_UF) && mag == 0x00800000u) hit_ev[EvTinyRoundsToMin]++;
  if (fres && e.op <= FPU_NMADD && (cls == 2 || cls == 5) && !(e.flags & F_NX))
    hit_ev[EvExactSubnormal]++;
  if ((e.flags & F_OF) && mag == 0x7f7fffffu) hit_ev[EvOfToMax]++;
  if ((e.flags & F_OF) && mag == 0x7f800000u) hit_ev[EvOfToInf]++;
  if ((e.op == FPU_ADD || e.op == FPU_SUB || e.op >= FPU_MADD) && e.op <= FPU_NMADD &&
      e.res == 0 && (e.a & 0x7fffffffu) && e.rm != FPU_RDN)
    hit_ev[EvCancelExactZero]++;
  if ((e.op == FPU_ADD || e.op == FPU_SUB) && e.res == 0x80000000u && e.rm == FPU_RDN &&
      (e.a & 0x7fffffffu))
    hit_ev[EvNegZeroRdn]++;
  if ((e.op == FPU_CVT_W_S || e.op == FPU_CVT_WU_S) && (e.flags & F_NV)) {
    if (e.res == 0x7fffffffu || e.res == 0xffffffffu) hit_ev[EvSatPos]++;
    else hit_ev[EvSatNeg]++;
  }
}

// Checks the coverage tables; prints the summary; returns misses.
int report_coverage(bool full_rm) {
  int misses = 0, unexpected = 0;
  printf("%-10s %-44s %s\n", "op", "flag combos hit/possible per rm (RNE..RMM)", "classes hit/possible");
  for (int op = 0; op < FPU_NUM_OPS; op++) {
    std::string pf = possible_flags(op);
    char buf[128] = "";
    int nrm = full_rm || fpu_op_uses_rm(op) ? NumRm : 1;
    for (int rm = 0; rm < nrm; rm++) {
      int hit = 0;
      for (char f : pf) {
        if (hit_flags[op][rm][(int)f]) hit++;
        else {
          misses++;
          printf("  MISS %s rm=%d flags=0x%02x\n", fpu_op_name(op), rm, (unsigned)f);
        }
      }
      for (int f = 0; f < NumFl; f++)
        if (hit_flags[op][rm][f] && pf.find((char)f) == std::string::npos) {
          unexpected++;
          printf("  UNEXPECTED %s rm=%d flags=0x%02x (%" PRIu64 "x)\n", fpu_op_name(op), rm, f,
                 hit_flags[op][rm][f]);
        }
      snprintf(buf + strlen(buf), sizeof buf - strlen(buf), " %d/%zu", hit, pf.size());
    }
    uint32_t pc = possible_classes(op);
    int chit = 0, cposs = __builtin_popcount(pc);
    for (int c = 0; c < 16; c++) {
      bool p = (pc >> c) & 1;
      if (p && hit_cls[op][c]) chit++;
      else if (p) {
        misses++;
        printf("  MISS %s result class %d\n", fpu_op_name(op), c);
      } else if (hit_cls[op][c]) {
        unexpected++;
        printf("  UNEXPECTED %s result class %d\n", fpu_op_name(op), c);
      }
    }
    printf("%-10s %-44s %d/%d\n", fpu_op_name(op), buf, chit, cposs);
  }
  for (int e = 0; e < EvNumEvents; e++) {
    printf("event %-52s %10" PRIu64 "\n", ev_names[e], hit_ev[e]);
    if (!hit_ev[e]) misses++;
  }
  printf("coverage: %d misses, %d unexpected\n", misses, unexpected);
  return misses + unexpected;
}

// ------------------------------------------------------------------ driver
std::deque<Expect> inflight;
uint64_t rng_stall = 0x1234567;
uint32_t next_tag;
bool stalls = true;

void check_output() {
  if (!(dut->out_valid_o && dut->out_ready_i)) return;
  if (inflight.empty()) {
    printf("ERROR: output with nothing in flight at cycle %" PRIu64 "\n", cycle);
    mismatches++;
    return;
  }
  // Results leave in issue order, except that operations issued while a
  // div/sqrt iterates may pass it: the result is the oldest case with its
  // tag, and every older case still in flight is a div/sqrt.
  size_t k = 0;
  while (k < inflight.size() && inflight[k].tag != dut->out_tag_o) k++;
  if (k == inflight.size()) k = 0;  // reported as a tag mismatch below
  for (size_t j = 0; j < k; j++) {
    if (inflight[j].op != FPU_DIV && inflight[j].op != FPU_SQRT) {
      printf("ERROR: %s (tag %u) passed by %s (tag %u) at cycle %" PRIu64 "\n",
             fpu_op_name(inflight[j].op), inflight[j].tag, fpu_op_name(inflight[k].op),
             inflight[k].tag, cycle);
      mismatches++;
      break;
    }
  }
  Expect e = inflight[k];
  inflight.erase(inflight.begin() + (long)k);
  if (dut->out_result_o != e.res || dut->out_flags_o != e.flags || dut->out_tag_o != e.tag) {
    if (mismatches < 20)
      printf("MISMATCH %s rm=%d a=%08x b=%08x c=%08x: rtl %08x/%02x tag %u, model %08x/%02x tag %u\n",
             fpu_op_name(e.op), e.rm, e.a, e.b, e.c, dut->out_result_o, dut->out_flags_o,
             dut->out_tag_o, e.res, e.flags, e.tag);
    mismatches++;
  }
  record(e);
}

// Runs one cycle: optionally offers a case, samples the handshake.
// Returns true when the offered case was accepted.
bool step(const Expect *offer) {
  bool gap = stalls && (fpu_rand64(&rng_stall) & 7) == 0;
  dut->out_ready_i = !(stalls && (fpu_rand64(&rng_stall) % 5) == 0);
  dut->in_valid_i = offer && !gap;
  if (offer) {
    dut->in_op_i = offer->op;
    dut->in_rm_i = offer->rm;
    dut->in_a_i = offer->a;
    dut->in_b_i = offer->b;
    dut->in_c_i = offer->c;
    dut->in_tag_i = offer->tag;
  }
  dut->clk_i = 0;
  dut->eval();
  bool acc = dut->in_valid_i && dut->in_ready_o;
  check_output();
  tick();
  return acc;
}

void run_case(int op, int rm, uint32_t a, uint32_t b, uint32_t c) {
  Expect e;
  e.op = op; e.rm = rm; e.a = a; e.b = b; e.c = c;
  e.res = fpu_model(op, rm, a, b, c, &e.flags);
  // a tag no case in flight has (operations may pass a division)
  for (bool used = true; used;) {
    e.tag = next_tag++ & 31;
    used = false;
    for (const Expect &f : inflight) used = used || f.tag == e.tag;
  }
  for (;;) {
    e.issue_cycle = cycle;
    if (step(&e)) break;
  }
  inflight.push_back(e);
}

void drain() {
  for (int i = 0; i < 200 && !inflight.empty(); i++) step(nullptr);
  if (!inflight.empty()) {
    printf("ERROR: %zu results never came out\n", inflight.size());
    mismatches++;
    inflight.clear();
  }
}

void reset() {
  dut->rst_ni = 0;
  dut->in_valid_i = 0;
  dut->out_ready_i = 1;
  for (int i = 0; i < 3; i++) tick();
  dut->rst_ni = 1;
  tick();
}

// Latency from acceptance to out_valid for one operation, idle pipeline.
int measure_latency(int op, uint32_t a, uint32_t b, uint32_t c) {
  dut->out_ready_i = 1;
  dut->in_valid_i = 1;
  dut->in_op_i = op; dut->in_rm_i = 0; dut->in_a_i = a; dut->in_b_i = b; dut->in_c_i = c;
  while (true) {
    dut->clk_i = 0; dut->eval();
    if (dut->in_ready_o) break;
    tick();
  }
  tick();
  dut->in_valid_i = 0;
  int lat = 1;
  for (;;) {
    dut->clk_i = 0; dut->eval();
    if (dut->out_valid_o) break;
    tick();
    lat++;
  }
  tick();
  return lat;
}

void bench() {
  stalls = false;
  int fma_lat = measure_latency(FPU_MADD, 0x3fc00000u, 0x40000000u, 0x3f800000u);
  int div_lat = measure_latency(FPU_DIV, 0x3f800000u, 0x40400000u, 0);
  int sqrt_lat = measure_latency(FPU_SQRT, 0x40000000u, 0, 0);
  // throughput: N back-to-back fused multiply-adds
  const int n = 10000;
  uint64_t st = 99, c0 = cycle;
  int out = 0;
  for (int i = 0; i < n || out < n;) {
    uint32_t a, b, c;
    fpu_gen_case(&st, FPU_MADD, &a, &b, &c);
    dut->in_valid_i = i < n;
    dut->in_op_i = FPU_MADD; dut->in_rm_i = 0;
    dut->in_a_i = a; dut->in_b_i = b; dut->in_c_i = c;
    dut->out_ready_i = 1;
    dut->clk_i = 0; dut->eval();
    if (dut->in_valid_i && dut->in_ready_o) i++;
    if (dut->out_valid_o) out++;
    tick();
  }
  double thr = (double)n / (double)(cycle - c0);
  printf("BENCH fpu.fma_latency %d\n", fma_lat);
  printf("BENCH fpu.fma_throughput %.3f\n", thr);
  printf("BENCH fpu.div_cycles %d\n", div_lat);
  printf("BENCH fpu.sqrt_cycles %d\n", sqrt_lat);
}

}  // namespace

int main(int argc, char **argv) {
  long n = 2000, mixed = 20000;
  uint64_t seed = 1;
  bool do_bench = false;
  const char *cov = nullptr;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--n") && i + 1 < argc) n = atol(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], nullptr, 0);
    else if (!strcmp(argv[i], "--mixed") && i + 1 < argc) mixed = atol(argv[++i]);
    else if (!strcmp(argv[i], "--bench")) do_bench = true;
    else if (!strcmp(argv[i], "--cov") && i + 1 < argc) cov = argv[++i];
  }
  ctx = new VerilatedContext;
  ctx->commandArgs(argc, argv);
  dut = new Vfpu{ctx};
  reset();
  if (do_bench) {
    bench();
    dut->final();
    delete dut;
    return 0;
  }
  rng_stall ^= seed * 0x9e3779b97f4a7c15ull;
  uint64_t total = 0;
  // Every operation in every rounding mode (the rm input must not matter
  // for the operations that ignore it; they are run in all five as well).
  for (int op = 0; op < FPU_NUM_OPS; op++) {
    for (int rm = 0; rm < NumRm; rm++) {
      uint64_t st = seed * 0x9e3779b97f4a7c15ull + (uint64_t)(op * 8 + rm) + 7;
      for (long i = 0; i < n; i++) {
        uint32_t a, b, c;
        fpu_gen_case(&st, op, &a, &b, &c);
        run_case(op, rm, a, b, c);
      }
      total += n;
    }
  }
  // Mixed stream: random operations back to back (div/sqrt among others).
  uint64_t st = seed ^ 0xfeedull;
  for (long i = 0; i < mixed; i++) {
    int op = (int)(fpu_rand64(&st) % FPU_NUM_OPS);
    int rm = (int)(fpu_rand64(&st) % NumRm);
    uint32_t a, b, c;
    fpu_gen_case(&st, op, &a, &b, &c);
    run_case(op, rm, a, b, c);
  }
  total += mixed;
  drain();
  int cov_bad = report_coverage(true);
  printf("tb_fpu: %" PRIu64 " cases, %" PRIu64 " cycles, %" PRIu64 " mismatches\n", total, cycle,
         mismatches);
  dut->final();
  if (cov) VerilatedCov::write(cov);
  delete dut;
  return (mismatches || cov_bad) ? 1 : 0;
}
