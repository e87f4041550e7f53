/* The PE's one FPU, shared by the vector engine and the core (wse_pe_fpu):
 * the core's F instructions, divisions and square roots among them, run
 * while the engine streams FMACS through the same FPU, which takes the
 * engine's element in every cycle it offers one. Each side's results and
 * flags must equal those of the same work done alone: the core's with the
 * engine idle, the engine's with the core idle. The engine must still be
 * running when the core's work ends, or nothing was shared. */
#include "wse_rt.h"
#include "wse_df.h"

#define N      512u  /* elements a pass */
#define PASSES 24u
#define ROUNDS 32u

static uint32_t va[N] __attribute__((aligned(16)));
static uint32_t vd_alone[N] __attribute__((aligned(16)));
static uint32_t vd_shared[N] __attribute__((aligned(16)));

#define FOP2(insn, a, b) ({ float r_; \
	__asm__ volatile(insn " %0, %1, %2" : "=f"(r_) : "f"(a), "f"(b)); r_; })
#define FOP1(insn, a) ({ float r_; \
	__asm__ volatile(insn " %0, %1" : "=f"(r_) : "f"(a)); r_; })

static uint32_t bits(float f)
{
	union { float f; uint32_t u; } v = { f };
	return v.u;
}

static float flt(uint32_t u)
{
	union { uint32_t u; float f; } v = { u };
	return v.f;
}

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s;
}

/* Every kind of F instruction the core sends to the FPU, with its flags.
 * Returns a signature of every result's bits. */
static uint32_t core_work(uint32_t *fflags)
{
	uint32_t sig = 0, s = 12345u;
	__asm__ volatile("csrw fflags, zero");
	for (uint32_t r = 0; r < ROUNDS; r++) {
		float a = flt(0x3f000000u + (lcg(&s) >> 9));
		float b = flt(0x40000000u + (lcg(&s) >> 9));
		float q = FOP2("fdiv.s", a, b);
		float t = FOP1("fsqrt.s", b);
		float m = FOP2("fmul.s", q, t);
		float d = FOP2("fsub.s", m, a);
		float f;
		__asm__ volatile("fmadd.s %0, %1, %2, %3" : "=f"(f) : "f"(d), "f"(b), "f"(q));
		float n = FOP2("fmax.s", f, d);
		int32_t w;
		__asm__ volatile("fcvt.w.s %0, %1, rtz" : "=r"(w) : "f"(FOP2("fmul.s", n, flt(0x4b000000u))));
		float c;
		__asm__ volatile("fcvt.s.w %0, %1" : "=f"(c) : "r"(w));
		uint32_t lt, cls;
		__asm__ volatile("flt.s %0, %1, %2" : "=r"(lt) : "f"(a), "f"(b));
		__asm__ volatile("fclass.s %0, %1" : "=r"(cls) : "f"(d));
		sig = (sig << 5 | sig >> 27) ^ bits(q) ^ bits(t) ^ bits(f) ^ bits(c) ^
		      (uint32_t)w ^ lt ^ cls;
	}
	__asm__ volatile("csrr %0, fflags" : "=r"(*fflags));
	return sig;
}

/* FMACS dst += a * scalar over PASSES passes of the same N elements. */
static void engine_issue(uint32_t *vd)
{
	uint32_t s = 777u;
	for (uint32_t i = 0; i < N; i++)
		vd[i] = 0x3c000000u + (lcg(&s) >> 8);
	wse_vflags_clear();
	wse_dsd_mem(0, vd, N, 1, PASSES, 0, 0);
	wse_dsd_mem(1, va, N, 1, PASSES, 0, 0);
	wse_vscalar(0x3f9e3779u);
	wse_vop(WSE_VOP(WSE_V_FMACS, 0, 1, 1, WSE_B_SCALAR));
}

int main(void)
{
	/* mstatus.FS resets Off (docs/core.md) */
	__asm__ volatile("csrs mstatus, %0" :: "r"(1u << 13) : "memory");
	uint32_t s = 4242u;
	for (uint32_t i = 0; i < N; i++)
		va[i] = 0x3e000000u + (lcg(&s) >> 7);

	uint32_t ff_alone, ff_shared;
	uint32_t sig_alone = core_work(&ff_alone);
	engine_issue(vd_alone);
	uint32_t vfl_alone = wse_vwait();

	uint32_t done0 = wse_vdone();
	engine_issue(vd_shared);
	uint32_t sig_shared = core_work(&ff_shared);
	uint32_t still = (wse_vdone() == done0);
	uint32_t vfl_shared = wse_vwait();

	if (!still) {
		wse_puts("the engine ended before the core's work\n");
		return 10;
	}
	if (sig_shared != sig_alone || ff_shared != ff_alone) {
		wse_puts("the core's results differ with the engine running\n");
		return 11;
	}
	if (vfl_shared != vfl_alone)
		return 12;
	for (uint32_t i = 0; i < N; i++)
		if (vd_shared[i] != vd_alone[i])
			return 100 + (int)i;
	if (ff_alone == 0 || (vfl_alone & 0x1fu) == 0)
		return 13;  /* both sides raise flags (inexact at least) */
	wse_puts("fpu_share ok\n");
	return 0;
}
