/* wse_rt.h - bare-metal runtime of a wsemu tile core: exit through tohost,
 * console output, CSR access. Freestanding: no libc. See docs/core.md. */
#ifndef WSE_RT_H
#define WSE_RT_H

#include <stdint.h>

#define WSE_IMEM_BASE 0x80000000u
#define WSE_DMEM_BASE 0x80100000u
#define WSE_TOHOST_ADDR 0x80100000u
#define WSE_FROMHOST_ADDR 0x80100008u
#define WSE_PUTCHAR_ADDR 0x80100010u

#define wse_csr_read(csr) ({ uint32_t v_; __asm__ volatile("csrr %0, " #csr : "=r"(v_)); v_; })
#define wse_csr_write(csr, v) __asm__ volatile("csrw " #csr ", %0" :: "r"((uint32_t)(v)))

/* End the run: code 0 = pass (tohost = 1), else tohost = (code << 1) | 1.
 * On pass, the signature region (begin_signature..end_signature), if the
 * program has one, is first printed as lines "S:" + 8 hex digits. */
void wse_exit(int code) __attribute__((noreturn));
/* One character to the console (HTIF console: QEMU and the tile print it). */
void wse_putc(char c);
void wse_puts(const char *s);
void wse_puthex(uint32_t v);
void wse_putu(uint32_t v);   /* decimal */
/* The tile's own putchar word: printed by the tile, plain memory on QEMU. */
static inline void wse_tile_putc(char c) { *(volatile uint32_t *)WSE_PUTCHAR_ADDR = (uint8_t)c; }
/* Declares the signature region of a test program: N words that the
 * harness (and, on QEMU, wse_exit) dumps for the word-for-word compare. */
#define WSE_SIGNATURE(n)                                                      \
	uint32_t begin_signature[n] __attribute__((aligned(16)));             \
	__asm__(".globl end_signature\n.set end_signature, begin_signature + 4 * " #n)

/* This tile's coordinates, from mhartid = {y, x}. */
static inline uint32_t wse_tile_x(void) { return wse_csr_read(mhartid) & 0xffu; }
static inline uint32_t wse_tile_y(void) { return (wse_csr_read(mhartid) >> 8) & 0xffu; }

#endif
