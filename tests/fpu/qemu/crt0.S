/* Start-up for the bare-metal FPU programs run on QEMU's spike machine:
 * stack, FPU enabled (mstatus.FS), fcsr cleared, main(), then the
 * riscv-tests tohost convention: 1 = pass, (code << 1) | 1 = failure. */
	.section .text.init, "ax"
	.globl _start
_start:
	la	sp, _stack_top
	li	t0, 0x2000		/* mstatus.FS = initial */
	csrs	mstatus, t0
	csrw	fcsr, zero
	call	main
	slli	a0, a0, 1
	ori	a0, a0, 1
	la	t0, tohost
	sw	a0, 0(t0)
	sw	zero, 4(t0)
1:	j	1b

	.section .tohost, "aw", @progbits
	.align	6
	.globl	tohost
	.type	tohost, @object
	.size	tohost, 8
tohost:	.dword	0
	.align	6
	.globl	fromhost
	.type	fromhost, @object
	.size	fromhost, 8
fromhost: .dword 0
