/* F-extension ISA test for a tile core: every F instruction in every
 * rounding mode, static and dynamic, on biased cases from the C model's
 * generator (fpu_cases.h). Each case's result and fflags go to the
 * signature, which the harness compares word for word with QEMU's. */
#include <stdint.h>

#include "wse_rt.h"
#include "fpu_cases.h"
#include "fpu_run_case.h"

#define SIGNATURE(n) WSE_SIGNATURE(n)
SIGNATURE(FPU_SIG_WORDS);

int main(void)
{
	__asm__ volatile("csrs mstatus, %0" : : "r"(0x2000u)); /* FS = Initial */
	for (uint32_t i = 0; i < FPU_NUM_CASES; i++) {
		uint32_t fl;

		begin_signature[2 * i] = fpu_run_case(&fpu_cases[i], &fl);
		begin_signature[2 * i + 1] = fl;
	}
	return 0;
}
