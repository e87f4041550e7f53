// Bit-field access to Verilator port values of any width, so the same
// harness drives the RTL model and the Yosys netlist (whose packed ports
// have the same widths).
#pragma once

#include <cstdint>
#include <type_traits>

#include "verilated.h"

namespace tb {

template <typename T>
inline typename std::enable_if<std::is_integral<T>::value, uint64_t>::type get_bits(const T &v, int lsb, int w) {
  uint64_t x = (uint64_t)v >> lsb;
  return w >= 64 ? x : (x & ((1ull << w) - 1));
}

template <std::size_t N>
inline uint64_t get_bits(const VlWide<N> &v, int lsb, int w) {
  uint64_t r = 0;
  for (int i = 0; i < w; i++) {
    int b = lsb + i;
    r |= (uint64_t)((v[b / 32] >> (b % 32)) & 1u) << i;
  }
  return r;
}

template <typename T>
inline typename std::enable_if<std::is_integral<T>::value>::type set_bits(T &v, int lsb, int w, uint64_t x) {
  uint64_t m = (w >= 64 ? ~0ull : ((1ull << w) - 1)) << lsb;
  v = (T)(((uint64_t)v & ~m) | ((x << lsb) & m));
}

template <std::size_t N>
inline void set_bits(VlWide<N> &v, int lsb, int w, uint64_t x) {
  for (int i = 0; i < w; i++) {
    int b = lsb + i;
    uint32_t m = 1u << (b % 32);
    if ((x >> i) & 1)
      v[b / 32] |= m;
    else
      v[b / 32] &= ~m;
  }
}

template <typename T>
inline bool get_bit(const T &v, int b) {
  return get_bits(v, b, 1) != 0;
}
template <typename T>
inline void set_bit(T &v, int b, bool x) {
  set_bits(v, b, 1, x ? 1 : 0);
}

}  // namespace tb
