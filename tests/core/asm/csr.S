# Machine-mode CSRs of the tile core: the six access forms, the trap CSRs,
# counters, identity. Self-checking; the common part writes a signature
# compared with QEMU, the tile-specific part (misa, WARL fields, exact
# counter values, mhartid) runs only on the tile.
	.option norvc
	.text
	.globl main
main:
	la	s0, begin_signature
	csrr	t0, misa
	li	t1, 0x40001120
	li	s3, 0
	bne	t0, t1, 1f
	li	s3, 1			# s3 = 1 on the tile
1:
	.macro	EXPECT id, reg, val
	li	t6, \val
	li	a0, \id
	bne	\reg, t6, fail
	sw	\reg, 0(s0)
	addi	s0, s0, 4
	.endm

	# csrrw / csrrs / csrrc and their immediate forms on mscratch
	li	a1, 0x12345678
	csrw	mscratch, a1
	li	a2, 0xff00ff00
	csrrw	a3, mscratch, a2
	EXPECT	1, a3, 0x12345678
	li	a2, 0x0000000f
	csrrs	a3, mscratch, a2
	EXPECT	2, a3, 0xff00ff00
	li	a2, 0x0f000003
	csrrc	a3, mscratch, a2
	EXPECT	3, a3, 0xff00ff0f
	csrr	a3, mscratch
	EXPECT	4, a3, 0xf000ff0c
	csrrwi	a3, mscratch, 0x15
	EXPECT	5, a3, 0xf000ff0c
	csrrsi	a3, mscratch, 0x0a
	EXPECT	6, a3, 0x15
	csrrci	a3, mscratch, 0x03
	EXPECT	7, a3, 0x1f
	csrr	a3, mscratch
	EXPECT	8, a3, 0x1c
	# csrrs/csrrc with x0 and zero immediates do not write
	csrrs	a3, mscratch, zero
	csrrc	a3, mscratch, zero
	csrrsi	a3, mscratch, 0
	csrrci	a3, mscratch, 0
	csrr	a3, mscratch
	EXPECT	9, a3, 0x1c
	# rd = x0: csrrw still writes
	csrrw	zero, mscratch, a1
	csrr	a3, mscratch
	EXPECT	10, a3, 0x12345678
	# rd = rs1: the old value goes to rd, the old rs1 to the CSR
	li	a3, 0x0badcafe
	csrrw	a3, mscratch, a3
	EXPECT	11, a3, 0x12345678
	csrr	a3, mscratch
	EXPECT	12, a3, 0x0badcafe

	# trap CSRs hold what is written (aligned values)
	li	a1, 0x80001230
	csrw	mepc, a1
	csrr	a3, mepc
	EXPECT	13, a3, 0x80001230
	li	a1, 0x80000200
	csrr	s1, mtvec
	csrw	mtvec, a1
	csrr	a3, mtvec
	csrw	mtvec, s1
	EXPECT	14, a3, 0x80000200
	li	a1, 0xa5a5a5a5
	csrw	mtval, a1
	csrr	a3, mtval
	EXPECT	15, a3, 0xa5a5a5a5
	li	a1, 11
	csrw	mcause, a1
	csrr	a3, mcause
	EXPECT	16, a3, 11
	# mie: the three machine enables
	li	a1, 0x888
	csrw	mie, a1
	csrr	a3, mie
	EXPECT	17, a3, 0x888
	csrw	mie, zero
	# counters move forward
	csrr	a1, mcycle
	csrr	a2, mcycle
	sltu	a3, a1, a2
	EXPECT	19, a3, 1
	csrr	a1, cycle
	csrr	a2, cycleh
	csrr	a1, instret
	csrr	a2, instreth
	csrr	a1, mcycleh
	csrr	a1, minstreth
	csrr	a1, mvendorid
	csrr	a1, marchid
	csrr	a1, mimpid
	fence
	fence.i

	beqz	s3, done
	la	s0, tile_log

	csrr	a3, misa
	EXPECT	30, a3, 0x40001120
	csrr	a3, mhartid		# the harness's default tile (0, 0)
	EXPECT	31, a3, 0
	csrr	a3, mip
	EXPECT	32, a3, 0
	csrr	a3, mvendorid
	EXPECT	33, a3, 0
	# WARL fields: mtvec is direct-only, mepc is 4-byte aligned
	li	a1, 0x80000203
	csrw	mtvec, a1
	csrr	a3, mtvec
	csrw	mtvec, s1
	EXPECT	34, a3, 0x80000200
	li	a1, 0x80001237
	csrw	mepc, a1
	csrr	a3, mepc
	EXPECT	35, a3, 0x80001234
	# minstret counts retired instructions exactly
	csrr	a1, minstret
	nop
	nop
	nop
	wfi
	csrr	a2, minstret
	sub	a3, a2, a1
	EXPECT	36, a3, 5
	# mcycle counts cycles: one per simple instruction on this core
	csrr	a1, mcycle
	addi	zero, zero, 0
	addi	zero, zero, 0
	csrr	a2, mcycle
	sub	a3, a2, a1
	EXPECT	37, a3, 3
	# writing mcycle / minstret sets them
	csrw	mcycle, zero
	csrr	a3, mcycle
	EXPECT	38, a3, 0
	csrw	minstret, zero
	li	a1, 5
	csrw	minstreth, a1
	csrr	a3, minstreth
	EXPECT	39, a3, 5
	csrw	mcycle, zero
	li	a1, 7
	csrw	mcycleh, a1
	csrr	a3, mcycleh
	EXPECT	43, a3, 7
	# mstatus.MPP reads machine mode (the only mode)
	csrr	a3, mstatus
	srli	a3, a3, 11
	andi	a3, a3, 3
	EXPECT	18, a3, 3
	# mcountinhibit stops both counters
	csrwi	mcountinhibit, 5
	csrr	a1, mcycle
	csrr	a2, minstret
	nop
	csrr	a3, mcycle
	sub	a3, a3, a1
	EXPECT	40, a3, 0
	csrr	a3, minstret
	sub	a3, a3, a2
	EXPECT	41, a3, 0
	csrwi	mcountinhibit, 0
	# mstatus: only MIE, MPIE and FS are writable; SD reflects FS = Dirty
	csrr	s1, mstatus
	li	a1, 0xffffffff
	csrw	mstatus, a1
	csrr	a3, mstatus
	csrw	mstatus, s1
	EXPECT	42, a3, 0x80007888

done:	li	a0, 0
	tail	wse_exit
fail:	tail	wse_exit

	.data
	.align	4
	.globl	begin_signature
begin_signature:
	.space	4 * 24
	.globl	end_signature
end_signature:
	.word	0
tile_log:
	.space	4 * 32
