# The 64-bit counters mcycle and minstret: a CSR write to either half is
# done instead of that instruction's increment of the whole counter (RISC-V
# privileged spec): the written half holds the value written, the other
# half keeps its value, nothing carries across, and the next instruction
# counts from there. A read returns the value before the reading instruction's
# own increment.
#
# Self-checking on the tile (failure code = case number), with expected
# values from the spec. QEMU's counters do not count exactly (docs/core.md),
# so there the cases are skipped and the compared signature is one word.
#
# On the tile every instruction below takes one cycle and retires, so both
# counters advance by one per instruction and one set of cases serves both.
	.option norvc
	.text
	.globl main
main:
	csrr	t0, misa
	li	t1, 0x40001120
	bne	t0, t1, pass		# not the tile

	li	s1, 0xffffffff
	li	s2, 7
	li	s4, 5

	.macro	CHECK id, reg, val
	li	a0, \id
	li	t6, \val
	bne	\reg, t6, fail
	.endm

	# COUNTER_CASES n, lo, hi, lo_ro, hi_ro: the cases on one counter
	# (machine CSRs lo/hi, read-only shadows lo_ro/hi_ro), failure codes
	# n+1.. .
	.macro	COUNTER_CASES n, lo, hi, lo_ro, hi_ro
	# The low half written while it holds 0xffffffff: the write replaces
	# the increment, so nothing carries into the high half.
	csrw	\hi, zero
	csrw	\lo, s1			# holds 0x0_ffffffff after this instruction
	csrw	\lo, s4			# and 0x0_00000005 after this one
	csrr	a1, \hi
	csrr	a2, \lo
	CHECK	\n+1, a1, 0
	CHECK	\n+2, a2, 6		# 5, and the read of the high half counted

	# 0xffffffff written to the low half: the write itself does not count,
	# the next instruction does, and carries.
	csrw	\hi, zero
	csrw	\lo, s1
	csrr	a1, \hi_ro		# 0x0_ffffffff, then 0x1_00000000
	csrr	a2, \hi_ro
	csrr	a3, \lo_ro
	CHECK	\n+3, a1, 0
	CHECK	\n+4, a2, 1
	CHECK	\n+5, a3, 1

	# A write to the high half replaces the increment of the whole
	# counter: the low half does not advance across the writing instruction
	csrw	\lo, zero
	csrw	\hi, s2
	csrr	a1, \lo
	csrr	a2, \hi
	CHECK	\n+6, a1, 0
	CHECK	\n+7, a2, 7

	# ... nor wrap, with no carry into the written high half.
	csrw	\lo, s1
	csrw	\hi, s2
	csrr	a1, \lo			# 0x7_ffffffff, then 0x8_00000000
	csrr	a2, \hi
	CHECK	\n+8, a1, 0xffffffff
	CHECK	\n+9, a2, 8

	# The set and clear forms write too; csrrs with x0 only reads, and counts.
	csrw	\hi, s2
	csrw	\lo, zero
	csrrci	a1, \hi, 7		# 0x7_00000000 -> 0x0_00000000
	csrrsi	a2, \lo, 0x10		# -> 0x0_00000010
	csrrs	a3, \lo, zero		# reads 0x10, counts
	csrr	a4, \lo
	csrr	a5, \hi
	CHECK	\n+10, a1, 7
	CHECK	\n+11, a2, 0
	CHECK	\n+12, a3, 0x10
	CHECK	\n+13, a4, 0x11
	CHECK	\n+14, a5, 0

	# Inhibited, the counter holds what is written.
	csrwi	mcountinhibit, 5
	csrw	\lo, s4
	csrw	\hi, s2
	csrr	a1, \lo
	csrr	a2, \hi
	csrwi	mcountinhibit, 0
	CHECK	\n+15, a1, 5
	CHECK	\n+16, a2, 7
	.endm

	COUNTER_CASES 100, mcycle, mcycleh, cycle, cycleh
	COUNTER_CASES 200, minstret, minstreth, instret, instreth

pass:	li	a0, 0
fail:	tail	wse_exit		# a0 = 0, or the failing case

	.data
	.align	4
	.globl	begin_signature, end_signature
begin_signature:
	.word	1			# the one word compared with QEMU
end_signature:
