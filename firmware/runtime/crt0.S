/* Start-up code for a wsemu tile core: machine mode, no C extension.
 * Sets up gp, sp (top of DMEM), a default trap vector, clears .bss, runs
 * main() and ends through wse_exit(main's return value). */
	.section .text.init, "ax"
	.option norvc
	.globl _start
_start:
	.option push
	.option norelax
	la	gp, __global_pointer$
	.option pop
	la	sp, __stack_top
	la	t0, wse_default_trap
	csrw	mtvec, t0
	la	t0, __bss_start
	la	t1, __bss_end
1:	bgeu	t0, t1, 2f
	sw	zero, 0(t0)
	addi	t0, t0, 4
	j	1b
2:	li	a0, 0
	li	a1, 0
	call	main
	tail	wse_exit

/* Any trap a program did not ask for ends the run with failure code
 * 0x800 + mcause, so an unexpected exception is never taken for a pass. */
	.align 2
	.weak	wse_default_trap
wse_default_trap:
	csrr	a0, mcause
	addi	a0, a0, 0x7ff
	addi	a0, a0, 1
	tail	wse_exit

/* Host I/O block (see docs/core.md): tohost/fromhost as in riscv-tests and
 * the QEMU/spike HTIF, then the tile's putchar word. */
	.section .tohost, "aw", @progbits
	.align	3
	.globl	tohost
tohost:	.dword	0
	.size	tohost, 8
	.globl	fromhost
fromhost:	.dword	0
	.size	fromhost, 8
	.globl	wse_putchar_reg
wse_putchar_reg:	.word	0
	.word	0
