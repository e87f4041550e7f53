# Every exception cause the tile core raises, with mcause, mepc, mtval and
# mstatus.MIE/MPIE checked by the handler. Self-checking; the signature
# ({mcause, mtval} per trap) is compared with QEMU. Cases that depend on the
# absence of the C extension or on the tile's memory map run only on the
# tile (misa == RV32IMF); QEMU also performs misaligned loads and stores
# in RAM instead of trapping, so those cases are tile-only too.
	.option norvc
	.text
	.globl main
main:
	addi	sp, sp, -16
	sw	ra, 0(sp)
	la	s0, begin_signature
	la	t0, handler
	csrw	mtvec, t0
	csrr	t0, mtvec
	la	t1, handler
	li	a0, 1
	bne	t0, t1, fail
	csrr	t0, misa
	li	t1, 0x40001120
	seqz	s3, zero
	beq	t0, t1, 1f
	li	s3, 0			# s3 = 1 on the tile, 0 on QEMU
1:	li	s4, 0			# traps taken
	li	s6, 0			# check mtval against s5 when 1

# TRAP id, cause, check_tval, tval, instruction... (TRAPS: tval is a symbol)
	.macro TRAP id, cause, chk, tval, insn:vararg
	li	s5, \tval
	TRAPX	\id, \cause, \chk, \insn
	.endm
	.macro TRAPS id, cause, chk, tval, insn:vararg
	la	s5, \tval
	TRAPX	\id, \cause, \chk, \insn
	.endm
	.macro TRAPX id, cause, chk, insn:vararg
	li	a0, \id
	li	t6, \cause
	la	t5, 91f
	la	t4, 92f
	li	s6, \chk
	mv	s7, s4
91:	\insn
	li	a0, 1000 + \id		# fell through: no trap
	j	fail
92:	addi	s7, s7, 1
	li	a0, 2000 + \id		# the handler did not run once
	bne	s4, s7, fail
	.endm

	TRAP	2, 2, 0, 0, .word 0x00000000
	TRAP	3, 2, 0, 0, .word 0xffffffff
	TRAP	4, 2, 0, 0, .word 0xfe000033	# OP with funct7 = 0x7f
	TRAP	5, 2, 0, 0, csrr a1, 0x7c0	# no such CSR
	TRAP	6, 2, 0, 0, csrw mhartid, a1	# read-only CSR
	TRAP	7, 2, 0, 0, csrrs a1, cycle, a2	# read-only CSR, with a write (a2 != 0)
	TRAP	8, 11, 1, 0, ecall
	TRAP	9, 3, 0, 0, ebreak
	TRAP	18, 5, 1, 0, lw a1, 0(zero)
	TRAP	19, 7, 1, 4, sw a1, 4(zero)

	# Instruction access fault: jump to address 0; mepc = 0.
	li	a0, 20
	li	t6, 1
	li	t5, 0
	la	t4, 92f
	li	s6, 1
	li	s5, 0
	mv	s7, s4
	jalr	zero, 0(zero)
	j	fail
92:	addi	s7, s7, 1
	bne	s4, s7, fail

	# mstatus: MIE is saved into MPIE and cleared on a trap, restored by mret.
	li	a0, 21
	csrsi	mstatus, 8
	li	s8, 1			# the handler checks MIE = 0, MPIE = 1
	TRAP	22, 11, 0, 0, ecall
	li	s8, 0
	csrr	t0, mstatus
	andi	t0, t0, 0x88
	li	t1, 0x88		# after mret: MIE = MPIE (1), MPIE = 1
	li	a0, 23
	bne	t0, t1, fail
	csrci	mstatus, 8
	TRAP	24, 3, 0, 0, ebreak
	csrr	t0, mstatus
	andi	t0, t0, 0x88
	li	t1, 0x80		# MIE stays 0, MPIE set by mret
	li	a0, 25
	bne	t0, t1, fail

	beqz	s3, done		# the rest is specific to the tile
	la	s0, tile_log		# and logs outside the compared signature

	# Misaligned loads and stores trap on the tile (QEMU performs them).
	la	a2, scratch
	li	a1, 0x55
	TRAPS	10, 4, 1, scratch + 1, lw a1, 1(a2)
	TRAPS	11, 4, 1, scratch + 2, lw a1, 2(a2)
	TRAPS	12, 4, 1, scratch + 3, lh a1, 3(a2)
	TRAPS	13, 4, 1, scratch + 1, lhu a1, 1(a2)
	li	a0, 14			# a trapping load does not write rd
	li	t0, 0x55
	bne	a1, t0, fail
	TRAPS	15, 6, 1, scratch + 2, sw a1, 2(a2)
	TRAPS	16, 6, 1, scratch + 1, sh a1, 1(a2)
	li	a0, 17			# a trapping store does not write memory
	lw	t0, 0(a2)
	bnez	t0, fail

	# Misaligned jump and branch targets (no C extension): the jump traps
	# with mepc = the jump, mtval = the target.
	la	a1, 1f + 2
	TRAPS	30, 0, 1, 1f + 2, jalr a3, 0(a1)
	li	a0, 31			# a trapping jal/jalr does not write rd
	li	a3, 0
	TRAPS	32, 0, 1, 1f + 2, jal a3, 1f + 2
	bnez	a3, fail
	TRAPS	33, 0, 1, 1f + 2, beq zero, zero, 1f + 2
1:	nop
	nop
	# Data accesses outside DMEM fault on the tile (IMEM is not data memory).
	li	a2, 0x80000000
	TRAP	34, 5, 1, 0x80000000, lw a1, 0(a2)
	TRAP	35, 7, 1, 0x80000004, sw a1, 4(a2)
	li	a2, 0x80100000 + WSE_CFG_DMEM_BYTES
	TRAP	36, 5, 1, 0x80100000 + WSE_CFG_DMEM_BYTES, lb a1, 0(a2)
	# Instruction fetch past IMEM.
	li	a0, 37
	li	t6, 1
	li	t5, 0x80000000 + WSE_CFG_IMEM_BYTES
	la	t4, 92f
	li	s6, 1
	li	s5, 0x80000000 + WSE_CFG_IMEM_BYTES
	mv	s7, s4
	jr	t5
	j	fail
92:	addi	s7, s7, 1
	bne	s4, s7, fail
	# mtval of an illegal instruction is the instruction word on the tile.
	TRAP	38, 2, 1, 0xfe000033, .word 0xfe000033
	TRAPS	39, 3, 1, 91f, ebreak

done:	li	a0, 0
	lw	ra, 0(sp)
	addi	sp, sp, 16
	ret
fail:	tail	wse_exit

	.align	2
handler:
	csrr	t0, mcause
	li	t3, 100
	bne	t0, t6, hfail
	csrr	t1, mepc
	li	t3, 200
	bne	t1, t5, hfail
	csrr	t2, mtval
	beqz	s6, 1f
	li	t3, 300
	bne	t2, s5, hfail
1:	beqz	s8, 2f
	csrr	t1, mstatus
	andi	t1, t1, 0x88
	li	t2, 0x80
	li	t3, 400
	bne	t1, t2, hfail
2:	sw	t0, 0(s0)
	csrr	t2, mtval
	beqz	s6, 3f
	sw	t2, 4(s0)
3:	addi	s0, s0, 8
	addi	s4, s4, 1
	csrw	mepc, t4
	mret
hfail:	add	a0, a0, t3
	j	fail

	.data
	.align	4
scratch:	.word 0, 0
	.globl	begin_signature
begin_signature:
	.space	8 * 64
	.globl	end_signature
end_signature:
	.word	0
tile_log:
	.space	8 * 64
