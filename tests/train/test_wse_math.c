/* expf/logf of wire/wse_math.c on the host.
 *   test_wse_math check    ulp distance to glibc over a sweep of all floats
 *                          (every 509th bit pattern) and special values
 *   test_wse_math sample   prints the sample of math_sample.h (compared with
 *                          the same program on QEMU rv32imf) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "math_sample.h"
#include "wsemu/wse_math.h"

#define ULP_BOUND 1 /* measured maximum over the sweep; the test fails above */

static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float flt(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* distance in units in the last place (ordered integer difference) */
static int64_t ulps(float a, float b)
{
	int64_t ia = (int32_t)bits(a), ib = (int32_t)bits(b);

	if (ia < 0)
		ia = INT32_MIN - ia;
	if (ib < 0)
		ib = INT32_MIN - ib;
	return ia > ib ? ia - ib : ib - ia;
}

static int check(void)
{
	int64_t me = 0, ml = 0;
	float we = 0, wl = 0;
	unsigned long n = 0;
	int bad = 0;

	for (uint64_t u = 0; u <= 0xffffffffu; u += 509) {
		float x = flt((uint32_t)u);

		if (isnan(x))
			continue;
		float a = wse_expf(x), b = expf(x);
		int64_t d = (isnan(a) && isnan(b)) ? 0 : ulps(a, b);

		if (d > me) { me = d; we = x; }
		a = wse_logf(x);
		b = logf(x);
		d = (isnan(a) && isnan(b)) ? 0 : ulps(a, b);
		if (d > ml) { ml = d; wl = x; }
		n++;
	}
	/* specials: exact results required */
	struct { float x; uint32_t e, l; } sp[] = {
		{ 0.0f, 0x3f800000u, 0xff800000u }, { -0.0f, 0x3f800000u, 0xff800000u },
		{ INFINITY, 0x7f800000u, 0x7f800000u }, { -INFINITY, 0x00000000u, 0x7fc00000u },
		{ NAN, 0x7fc00000u, 0x7fc00000u }, { 1.0f, 0x402df854u, 0x00000000u },
		{ -1.0f, 0x3ebc5ab2u, 0x7fc00000u },
	};
	for (unsigned k = 0; k < sizeof(sp) / sizeof(sp[0]); k++) {
		if (bits(wse_expf(sp[k].x)) != sp[k].e || bits(wse_logf(sp[k].x)) != sp[k].l) {
			printf("special %a: expf %08x (want %08x) logf %08x (want %08x)\n", sp[k].x,
			       bits(wse_expf(sp[k].x)), sp[k].e, bits(wse_logf(sp[k].x)), sp[k].l);
			bad = 1;
		}
	}
	printf("wse_expf: max %lld ulp from glibc expf (at %a) over %lu inputs\n",
	       (long long)me, we, n);
	printf("wse_logf: max %lld ulp from glibc logf (at %a) over %lu inputs\n",
	       (long long)ml, wl, n);
	if (me > ULP_BOUND || ml > ULP_BOUND) {
		printf("FAIL: above the bound of %d ulp\n", ULP_BOUND);
		bad = 1;
	}
	return bad;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "check"))
		return check();
	if (argc == 2 && !strcmp(argv[1], "sample")) {
		unsigned int s = 0x12345678u;

		for (unsigned int k = 0; k < MATH_SAMPLE_N; k++) {
			unsigned int ex, lx;

			ms_inputs(&s, k, &ex, &lx);
			printf("%08x %08x\n", bits(wse_expf(flt(ex))), bits(wse_logf(flt(lx))));
		}
		return 0;
	}
	fprintf(stderr, "usage: test_wse_math check|sample\n");
	return 2;
}
