/* Compiled floating-point code on a tile core: the kind of arithmetic the
 * training kernels do (dot products with fused multiply-add, a dense layer
 * with ReLU, a normalization with division and square root, conversions,
 * min/max, compares), all in C, compiled by gcc for rv32imf. The raw bits
 * of every result go to the signature and must equal QEMU's. */
#include <stdint.h>

#include "wse_rt.h"

#define N 24
#define M 8

WSE_SIGNATURE(160);

static float x[N], w[M][N], y[M];
static uint32_t sig_n;

/* RISC-V fmin/fmax/fsqrt (gcc would call libm for fminf, fmaxf, sqrtf) */
static float f_min(float a, float b)
{
	float r;
	__asm__("fmin.s %0, %1, %2" : "=f"(r) : "f"(a), "f"(b));
	return r;
}

static float f_max(float a, float b)
{
	float r;
	__asm__("fmax.s %0, %1, %2" : "=f"(r) : "f"(a), "f"(b));
	return r;
}

static float f_sqrt(float a)
{
	float r;
	__asm__("fsqrt.s %0, %1" : "=f"(r) : "f"(a));
	return r;
}

static uint32_t bits(float f)
{
	union { float f; uint32_t u; } v = { f };
	return v.u;
}

static void put(uint32_t v)
{
	begin_signature[sig_n++] = v;
}

static void putf(float f)
{
	put(bits(f));
}

/* deterministic pseudo-random floats spanning several binades */
static uint32_t lcg = 12345;
static float rnd(void)
{
	lcg = lcg * 1103515245u + 12345u;
	return (float)(int32_t)(lcg >> 8) / (float)(1 << 20) - 4.0f;
}

int main(void)
{
	__asm__ volatile("csrs mstatus, %0" : : "r"(0x2000u));
	for (int i = 0; i < N; i++)
		x[i] = rnd();
	for (int j = 0; j < M; j++)
		for (int i = 0; i < N; i++)
			w[j][i] = rnd() * 0.125f;

	/* dense layer + ReLU (a*b+c contracts to fmadd.s) */
	for (int j = 0; j < M; j++) {
		float acc = 0.0f;
		for (int i = 0; i < N; i++)
			acc += w[j][i] * x[i];
		y[j] = acc > 0.0f ? acc : 0.0f;
		putf(acc);
		putf(y[j]);
	}
	/* mean / variance normalization: division and square root */
	float mean = 0.0f, var = 0.0f;
	for (int i = 0; i < N; i++)
		mean += x[i];
	mean /= (float)N;
	for (int i = 0; i < N; i++)
		var += (x[i] - mean) * (x[i] - mean);
	var /= (float)N;
	float inv = 1.0f / f_sqrt(var + 1e-5f);
	putf(mean);
	putf(var);
	putf(inv);
	for (int i = 0; i < N; i++)
		putf((x[i] - mean) * inv);
	/* conversions, min/max, compares, sign manipulation */
	for (int i = 0; i < N; i++) {
		put((uint32_t)(int32_t)(x[i] * 1000.0f));
		put((uint32_t)(x[i] > 0.0f ? x[i] * 3e9f : 0.0f));
		putf((float)(int32_t)(lcg += 77777u));
		putf(f_min(x[i], y[i % M]) + f_max(-x[i], y[i % M]));
		put((x[i] < y[i % M]) | (x[i] <= 0.5f) << 1 | (x[i] == x[i]) << 2);
	}
	putf(__builtin_copysignf(2.5f, x[3]));
	putf(__builtin_fabsf(x[5]));
	/* rounding mode switch at run time: the same division in all modes */
	for (uint32_t rm = 0; rm < 5; rm++) {
		__asm__ volatile("fsrm %0" : : "r"(rm));
		putf(x[1] / 3.0f);
	}
	__asm__ volatile("fsrm %0" : : "r"(0u));
	uint32_t fl;
	__asm__ volatile("frflags %0" : "=r"(fl));
	put(fl);
	put(sig_n);
	return 0;
}
