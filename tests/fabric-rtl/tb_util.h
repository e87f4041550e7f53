// Small helpers for the fabric RTL smoke tests: bit fields of Verilator
// signals of any width.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <verilated.h>

template <typename T> static inline void set_bits(T &sig, int lsb, int w, uint64_t v) {
	for (int i = 0; i < w; i++) {
		int b = lsb + i;
		uint64_t bit = (v >> i) & 1u;
		if constexpr (sizeof(T) <= 8) {
			if (bit) sig |= (T)((T)1 << b); else sig &= (T)~((T)1 << b);
		} else {
			if (bit) sig[b / 32] |= (1u << (b % 32)); else sig[b / 32] &= ~(1u << (b % 32));
		}
	}
}
template <typename T> static inline uint64_t get_bits(const T &sig, int lsb, int w) {
	uint64_t v = 0;
	for (int i = 0; i < w; i++) {
		int b = lsb + i;
		uint64_t bit;
		if constexpr (sizeof(T) <= 8) bit = (sig >> b) & 1u;
		else bit = (sig[b / 32] >> (b % 32)) & 1u;
		v |= bit << i;
	}
	return v;
}

static int g_fail = 0;
#define CHECK(cond, ...) do { if (!(cond)) { printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); g_fail = 1; } } while (0)

static inline uint64_t wavelet(unsigned color, uint32_t data, unsigned ctrl = 0) {
	return ((uint64_t)ctrl << 37) | ((uint64_t)(color & 31) << 32) | data;
}
