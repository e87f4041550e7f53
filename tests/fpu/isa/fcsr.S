# F extension, directed: mstatus.FS gating, fcsr/frm/fflags in every CSR
# access form, flag accumulation across instructions, dynamic versus static
# rounding, illegal encodings (reserved rm, DYN with an invalid frm, other
# formats), flw/fsw and all 32 F registers. Results go to the signature,
# compared word for word with QEMU; traps store their mcause.
	.option norvc
	.text
	.globl main
main:
	addi	sp, sp, -16
	sw	ra, 0(sp)
	la	s0, begin_signature
	la	t0, handler
	csrw	mtvec, t0
	li	s4, 0			# traps taken
	li	s1, 0x80006000		# mstatus SD and FS

	.macro	SIG reg
	sw	\reg, 0(s0)
	addi	s0, s0, 4
	.endm
	.macro	SIGF freg
	fmv.x.w	t2, \freg
	SIG	t2
	.endm
	.macro	FLI freg, val
	li	t2, \val
	fmv.w.x	\freg, t2
	.endm

	# ---- FS = Off: F instructions and fcsr accesses are illegal
	csrr	a1, mstatus
	and	a1, a1, s1
	SIG	a1
	fadd.s	f1, f2, f3
	csrr	a1, fflags
	fmv.w.x	f1, zero
	flw	f1, 0(s0)
	SIG	s4
	li	t0, 0x2000		# FS = Initial
	csrs	mstatus, t0
	csrr	a1, mstatus
	and	a1, a1, s1
	SIG	a1

	# ---- fcsr, frm, fflags in all access forms
	li	a1, 0xff
	csrw	fcsr, a1
	csrr	a2, fcsr
	SIG	a2
	csrr	a2, frm
	SIG	a2
	csrr	a2, fflags
	SIG	a2
	li	a1, 0xfffffff0
	csrrw	a2, fcsr, a1
	SIG	a2
	csrr	a2, fcsr
	SIG	a2
	csrwi	fflags, 5
	csrr	a2, fcsr
	SIG	a2
	csrsi	fflags, 2
	csrci	fflags, 4
	csrr	a2, fflags
	SIG	a2
	li	a1, 0x1b
	fsflags	a2, a1
	SIG	a2
	frflags	a2
	SIG	a2
	li	a1, 3
	fsrm	a2, a1
	SIG	a2
	frrm	a2
	SIG	a2
	fsrmi	a2, 1
	SIG	a2
	frcsr	a2
	SIG	a2
	li	a1, 0x84
	fscsr	a2, a1
	SIG	a2
	li	a1, 0x60
	csrrs	a2, fcsr, a1
	SIG	a2
	csrrc	a2, fcsr, a1
	SIG	a2
	csrrsi	a2, frm, 2
	SIG	a2
	csrrci	a2, frm, 7
	SIG	a2
	csrrwi	a2, fflags, 0x1f
	SIG	a2
	csrr	a1, mstatus		# fcsr writes made the F state dirty
	and	a1, a1, s1
	SIG	a1

	# ---- flags accumulate until cleared
	csrw	fcsr, zero
	FLI	f1, 0x3f800000		# 1.0
	FLI	f2, 0x00000000		# +0
	FLI	f4, 0x40400000		# 3.0
	FLI	f7, 0xbf800000		# -1.0
	FLI	f8, 0x7f7fffff		# max finite
	FLI	f9, 0x00800001		# just above min normal
	FLI	f10, 0x3f000000		# 0.5
	fdiv.s	f3, f1, f2		# DZ
	frflags	a2
	SIG	a2
	SIGF	f3
	fdiv.s	f5, f1, f4		# NX
	frflags	a2
	SIG	a2
	SIGF	f5
	fsqrt.s	f6, f7			# NV
	frflags	a2
	SIG	a2
	SIGF	f6
	fmul.s	f6, f8, f8		# OF NX
	frflags	a2
	SIG	a2
	SIGF	f6
	fmul.s	f6, f9, f10		# UF NX
	frflags	a2
	SIG	a2
	SIGF	f6
	fsgnjn.s f6, f9, f10		# no flags
	fmin.s	f6, f6, f9
	feq.s	a3, f6, f9
	fclass.s a4, f6
	frcsr	a2
	SIG	a2
	SIG	a3
	SIG	a4
	csrw	fflags, zero
	fadd.s	f6, f1, f2		# exact: flags stay clear
	frflags	a2
	SIG	a2

	# ---- dynamic rounding: frm selects, a static rm overrides it
	FLI	f11, 0x33800001		# just above 2^-24: 1 + f11 is inexact
	FLI	f12, 0x40200000		# 2.5
	FLI	f13, 0xc0200000		# -2.5
	li	a5, 0
1:	fsrm	a5
	fadd.s	f6, f1, f11		# dyn
	SIGF	f6
	fsub.s	f6, f7, f11		# dyn
	SIGF	f6
	fcvt.w.s a2, f12		# dyn
	SIG	a2
	fcvt.w.s a2, f13		# dyn
	SIG	a2
	fmadd.s	f6, f12, f11, f1	# dyn
	SIGF	f6
	fadd.s	f6, f1, f11, rtz	# static wins over frm
	SIGF	f6
	fcvt.s.w f6, a5
	SIGF	f6
	frflags	a2
	SIG	a2
	addi	a5, a5, 1
	li	t0, 5
	blt	a5, t0, 1b

	# ---- illegal encodings trap (cause 2); others stay legal
	mv	s5, s4
	.word	0x003150d3		# fadd.s f1, f2, f3 with rm = 5
	.word	0x003160d3		# fadd.s f1, f2, f3 with rm = 6
	.word	0x023100d3		# fadd.d f1, f2, f3 (fmt = D)
	.word	0x223100c3		# fmadd.d f1, f2, f3, f4 (fmt = D)
	.word	0x0003b087		# fld f1, 0(t2)
	.word	0xe0108553		# fmv.x.w a0, f1 with rs2 = 1
	.word	0xa0314553		# feq/flt/fle with funct3 = 4
	.word	0x581100d3		# fsqrt.s with rs2 = 1
	.word	0xc0260553		# fcvt.w.s with rs2 = 2
	.word	0x0000000b		# custom-0: no coprocessor claims it
	fsrmi	5
	fadd.s	f1, f2, f3		# DYN with frm = 5
	fsrmi	6
	fmul.s	f1, f2, f3		# DYN with frm = 6
	fsrmi	7
	fcvt.w.s a1, f12		# DYN with frm = 7
	fsgnj.s	f14, f12, f13		# no rm: legal with any frm
	fmin.s	f15, f12, f13
	fsrmi	0
	sub	a2, s4, s5
	SIG	a2
	SIGF	f14
	SIGF	f15

	# ---- all 32 F registers, flw/fsw with offsets
	li	a1, 0x40000000
	li	a2, 0x00010001
	.irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	fmv.w.x	f\r, a1
	add	a1, a1, a2
	.endr
	.irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	fsw	f\r, 0(s0)
	addi	s0, s0, 4
	.endr
	la	a3, fdata + 8
	flw	f5, -8(a3)
	flw	f6, -4(a3)
	flw	f7, 0(a3)
	flw	f8, 4(a3)
	SIGF	f5
	SIGF	f6
	SIGF	f7
	SIGF	f8
	fadd.s	f9, f5, f6
	fsw	f9, 12(a3)
	fsw	f7, -8(a3)
	lw	a4, 12(a3)
	SIG	a4
	lw	a4, -8(a3)
	SIG	a4
	flw	f0, 0(a3)		# f0 is an ordinary register
	fmv.x.w	a4, f0
	SIG	a4
	fmv.x.w	zero, f0		# x0 stays zero
	SIG	zero
	csrr	a1, mstatus
	and	a1, a1, s1
	SIG	a1
	SIG	s4

	li	a0, 0
	lw	ra, 0(sp)
	addi	sp, sp, 16
	ret

# Trap handler: record mcause, skip the instruction.
	.align	2
handler:
	csrr	t0, mcause
	sw	t0, 0(s0)
	addi	s0, s0, 4
	addi	s4, s4, 1
	csrr	t0, mepc
	addi	t0, t0, 4
	csrw	mepc, t0
	mret

	.data
	.align	4
fdata:	.word	0x3fc00000, 0xc0490fdb, 0x7f800001, 0x00000001, 0, 0
	.globl	begin_signature
	.align	4
begin_signature:
	.space	4 * 200
	.globl	end_signature
end_signature:
