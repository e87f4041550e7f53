/* One FPU case on the RISC-V target: clears fflags, runs the F instruction
 * selected by k->op (codes of tests/fpu/fpu_model.h) and returns the result
 * bits and fflags. Mode 0 uses the dynamic rounding mode (frm = rm); mode 1
 * encodes rm statically in the instruction while frm holds another mode.
 * Shared by the QEMU case runner and the tile-core ISA test. */
#ifndef FPU_RUN_CASE_H
#define FPU_RUN_CASE_H

#include <stdint.h>

#define RMOP(rm, S, ...)                                                       \
	do {                                                                   \
		switch (rm) {                                                  \
		case 0: __asm__ volatile(S ", rne" __VA_ARGS__); break;        \
		case 1: __asm__ volatile(S ", rtz" __VA_ARGS__); break;        \
		case 2: __asm__ volatile(S ", rdn" __VA_ARGS__); break;        \
		case 3: __asm__ volatile(S ", rup" __VA_ARGS__); break;        \
		case 4: __asm__ volatile(S ", rmm" __VA_ARGS__); break;        \
		default: __asm__ volatile(S ", dyn" __VA_ARGS__); break;       \
		}                                                              \
	} while (0)

#define OPF(name) __asm__ volatile(name " %0, %1, %2" : "=f"(fr) : "f"(fa), "f"(fb))

static inline uint32_t fpu_run_case(const struct fpu_case *k, uint32_t *flags)
{
	float fa, fb, fc, fr = 0;
	uint32_t r = 0, fl;
	int srm = k->mode ? k->rm : 7;

	__asm__ volatile("fsrm %0" : : "r"((uint32_t)(k->mode ? (k->rm + 1) % 5 : k->rm)));
	__asm__ volatile("fmv.w.x %0, %1" : "=f"(fa) : "r"(k->a));
	__asm__ volatile("fmv.w.x %0, %1" : "=f"(fb) : "r"(k->b));
	__asm__ volatile("fmv.w.x %0, %1" : "=f"(fc) : "r"(k->c));
	__asm__ volatile("csrw fflags, zero");
	switch (k->op) {
	case 0: RMOP(srm, "fadd.s %0, %1, %2", : "=f"(fr) : "f"(fa), "f"(fb)); break;
	case 1: RMOP(srm, "fsub.s %0, %1, %2", : "=f"(fr) : "f"(fa), "f"(fb)); break;
	case 2: RMOP(srm, "fmul.s %0, %1, %2", : "=f"(fr) : "f"(fa), "f"(fb)); break;
	case 3: RMOP(srm, "fdiv.s %0, %1, %2", : "=f"(fr) : "f"(fa), "f"(fb)); break;
	case 4: RMOP(srm, "fsqrt.s %0, %1", : "=f"(fr) : "f"(fa)); break;
	case 5: RMOP(srm, "fmadd.s %0, %1, %2, %3", : "=f"(fr) : "f"(fa), "f"(fb), "f"(fc)); break;
	case 6: RMOP(srm, "fmsub.s %0, %1, %2, %3", : "=f"(fr) : "f"(fa), "f"(fb), "f"(fc)); break;
	case 7: RMOP(srm, "fnmsub.s %0, %1, %2, %3", : "=f"(fr) : "f"(fa), "f"(fb), "f"(fc)); break;
	case 8: RMOP(srm, "fnmadd.s %0, %1, %2, %3", : "=f"(fr) : "f"(fa), "f"(fb), "f"(fc)); break;
	case 9: OPF("fsgnj.s"); break;
	case 10: OPF("fsgnjn.s"); break;
	case 11: OPF("fsgnjx.s"); break;
	case 12: OPF("fmin.s"); break;
	case 13: OPF("fmax.s"); break;
	case 14: __asm__ volatile("feq.s %0, %1, %2" : "=r"(r) : "f"(fa), "f"(fb)); break;
	case 15: __asm__ volatile("flt.s %0, %1, %2" : "=r"(r) : "f"(fa), "f"(fb)); break;
	case 16: __asm__ volatile("fle.s %0, %1, %2" : "=r"(r) : "f"(fa), "f"(fb)); break;
	case 17: __asm__ volatile("fclass.s %0, %1" : "=r"(r) : "f"(fa)); break;
	case 18: RMOP(srm, "fcvt.w.s %0, %1", : "=r"(r) : "f"(fa)); break;
	case 19: RMOP(srm, "fcvt.wu.s %0, %1", : "=r"(r) : "f"(fa)); break;
	case 20: RMOP(srm, "fcvt.s.w %0, %1", : "=f"(fr) : "r"(k->a)); break;
	case 21: RMOP(srm, "fcvt.s.wu %0, %1", : "=f"(fr) : "r"(k->a)); break;
	case 22: __asm__ volatile("fmv.x.w %0, %1" : "=r"(r) : "f"(fa)); break;
	default: __asm__ volatile("fmv.w.x %0, %1" : "=f"(fr) : "r"(k->a)); break;
	}
	__asm__ volatile("csrr %0, fflags" : "=r"(fl));
	if (!((k->op >= 14 && k->op <= 19) || k->op == 22))
		__asm__ volatile("fmv.x.w %0, %1" : "=r"(r) : "f"(fr));
	*flags = fl;
	return r;
}

#endif
