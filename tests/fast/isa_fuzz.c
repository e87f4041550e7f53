/* SPDX-License-Identifier: Apache-2.0 */
/*
 * isa_fuzz: writes a tile-core program (assembly, on stdout) of N random
 * instruction words, many of them illegal or trapping, for the direct
 * comparison of wsemu-fast's instruction-set model with the RTL tile
 * (tests/fast/compare-rtl.sh): the decoders' legality rules (reserved
 * funct3/funct7/rs2/fmt/rm fields, unknown and read-only CSRs, compressed
 * and unknown opcodes, custom opcodes), the traps and their mcause/mtval,
 * the F results and flags of random operands, and loads and stores at
 * random addresses (misaligned, outside DMEM, IMEM).
 *
 * The words run straight through: no jumps or branches, no mret, and no
 * CSR writes but to fflags/frm/fcsr and mstatus (so the handler's mtvec and
 * mscratch stay). A trap handler logs mcause and mtval and resumes at the
 * next word. At the end every x and f register, fcsr and mstatus go to the
 * signature, followed by the log. The counters are never read (the RTL's
 * count the program load as well). Not for QEMU, which differs from the
 * tile by design on misaligned accesses, misa, MPP and the C extension.
 *
 *   isa_fuzz N SEED
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t fz_state;

static uint32_t fz_rand(void)
{
	fz_state ^= fz_state << 13;
	fz_state ^= fz_state >> 7;
	fz_state ^= fz_state << 17;
	return (uint32_t)(fz_state >> 16);
}

static uint32_t fz_pick(const uint32_t *v, unsigned n) { return v[fz_rand() % n]; }

/* CSRs the words may read (all but the counters) and a few unknown ones. */
static const uint32_t fz_csrs[] = {
	0x001, 0x002, 0x003, 0x300, 0x301, 0x304, 0x305, 0x310, 0x320, 0x340, 0x341,
	0x342, 0x343, 0x344, 0xf11, 0xf12, 0xf13, 0xf14, 0x7b1, 0x7c0, 0x000, 0x004,
	0x100, 0x180, 0x306, 0x321, 0x7a0, 0xb04, 0xc1f, 0xfff, 0x800, 0xcc0,
};

/* mcycle, minstret, time and their halves and shadows (0xB00-0xB03,
 * 0xB80-0xB83, 0xC00-0xC03, 0xC80-0xC83). */
static bool fz_counter(uint32_t csr)
{
	return (csr & 0xf7c) == 0xb00 || (csr & 0xf7c) == 0xc00;
}

/* One random word: an opcode class, then random fields. */
static uint32_t fz_word(void)
{
	static const uint32_t fp_opc[] = { 0x07, 0x27, 0x43, 0x47, 0x4b, 0x4f, 0x53, 0x53, 0x53, 0x53 };
	static const uint32_t fp_f7[] = { 0x00, 0x04, 0x08, 0x0c, 0x2c, 0x10, 0x14, 0x50, 0x60, 0x68,
					  0x70, 0x78, 0x01, 0x2d, 0x61, 0x7a };
	uint32_t r = fz_rand(), w;
	uint32_t rd = r & 31, rs1 = (r >> 5) & 31, rs2 = (r >> 10) & 31, f3 = (r >> 15) & 7;
	switch (fz_rand() % 16) {
	case 0: case 1: /* OP-IMM, with reserved shift encodings now and then */
		w = (fz_rand() & 0xfff00000u) | rs1 << 15 | f3 << 12 | rd << 7 | 0x13;
		if ((f3 == 1 || f3 == 5) && fz_rand() % 4)
			w = (w & 0x41ffffffu);
		return w;
	case 2: case 3: { /* OP and M, sometimes a reserved funct7 */
		static const uint32_t f7[] = { 0x00, 0x00, 0x20, 0x01, 0x01, 0x02, 0x40 };
		return fz_pick(f7, 7) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | 0x33;
	}
	case 4: /* lui, auipc */
		return (fz_rand() & 0xfffff000u) | rd << 7 | ((r >> 20) & 1 ? 0x37 : 0x17);
	case 5: case 6: /* loads, every funct3 */
		return (fz_rand() & 0xfff00000u) | rs1 << 15 | f3 << 12 | rd << 7 | 0x03;
	case 7: /* stores, every funct3 */
		return (fz_rand() & 0xfe000000u) | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | 0x23;
	case 8: { /* SYSTEM: CSR reads, F CSR and mstatus writes, ecall, ebreak, wfi, reserved */
		uint32_t k = fz_rand() % 8, csr = fz_pick(fz_csrs, sizeof(fz_csrs) / 4);
		if (k < 3) { /* a read: csrrs/csrrc with rs1 = x0, or the immediate forms with 0 */
			static const uint32_t rf3[] = { 2, 3, 6, 7 };
			if (fz_rand() % 4 == 0)
				csr = fz_rand() & 0xfff;
			if (fz_counter(csr))
				csr = 0x301;
			return csr << 20 | fz_pick(rf3, 4) << 12 | rd << 7 | 0x73;
		}
		if (k < 5) { /* fflags, frm, fcsr, mstatus written, every form */
			static const uint32_t wcsr[] = { 0x001, 0x002, 0x003, 0x300 };
			static const uint32_t wf3[] = { 1, 2, 3, 5, 6, 7 };
			return fz_pick(wcsr, 4) << 20 | rs1 << 15 | fz_pick(wf3, 6) << 12 | rd << 7 | 0x73;
		}
		if (k == 5) { /* a write to a read-only CSR: illegal */
			static const uint32_t ro[] = { 0xf14, 0xc00, 0xc82, 0xf11 };
			return fz_pick(ro, 4) << 20 | (rs1 | 1) << 15 | 1u << 12 | rd << 7 | 0x73;
		}
		static const uint32_t sys[] = { 0x00000073, 0x00100073, 0x10500073, 0x00200073,
						0x10200073, 0x7b200073, 0x00004073 };
		return fz_pick(sys, 7) | (fz_rand() % 4 == 0 ? rd << 7 : 0);
	}
	case 9: /* fence, fence.i, reserved MISC-MEM */
		return (fz_rand() & 0xfff00000u) | rs1 << 15 | f3 << 12 | rd << 7 | 0x0f;
	case 10: case 11: case 12: case 13: { /* F: every opcode, common and reserved fields */
		uint32_t opc = fz_pick(fp_opc, sizeof(fp_opc) / 4);
		if (opc == 0x07 || opc == 0x27) {
			w = (fz_rand() & 0xfff00000u) | rs1 << 15 | (fz_rand() % 4 ? 2u : f3) << 12 |
			    rd << 7 | opc;
			return opc == 0x27 ? (w & 0xfe0fffffu) | rs2 << 20 : w;
		}
		uint32_t rm = fz_rand() % 3 ? (fz_rand() % 2 ? 7u : fz_rand() % 5) : f3;
		if (opc != 0x53)
			return (fz_rand() & 0xf8000000u) | (fz_rand() % 6 ? 0u : fz_rand() % 4) << 25 |
			       rs2 << 20 | rs1 << 15 | rm << 12 | rd << 7 | opc;
		uint32_t f7 = fz_pick(fp_f7, sizeof(fp_f7) / 4);
		uint32_t s2 = fz_rand() % 4 ? rs2 % 2 : rs2;
		if (f7 == 0x2c || f7 == 0x70 || f7 == 0x78)
			s2 = fz_rand() % 5 ? 0 : rs2;
		if (f7 == 0x10 || f7 == 0x14 || f7 == 0x50 || f7 == 0x70 || f7 == 0x78)
			rm = fz_rand() % 5 ? fz_rand() % 3 : f3;
		return f7 << 25 | (f7 == 0x00 || f7 == 0x04 || f7 == 0x08 || f7 == 0x0c ||
				   f7 == 0x10 || f7 == 0x14 || f7 == 0x50 ? rs2 : s2) << 20 |
		       rs1 << 15 | rm << 12 | rd << 7 | 0x53;
	}
	case 14: /* custom-1, custom-0 that the dataflow unit refuses, compressed */
		switch (fz_rand() % 3) {
		case 0: return (fz_rand() & 0xffffff80u) | 0x2b;
		case 1: return (fz_rand() & 0xffff8f80u) | (f3 == 1 || f3 == 2 ? 0u : f3) << 12 | 0x0b;
		default: return fz_rand() & ~3u;
		}
	default: { /* any other major opcode; control transfers become illegal words */
		w = fz_rand() | 3;
		uint32_t opc = w & 0x7f;
		if (opc == 0x6f || opc == 0x67 || opc == 0x63 || opc == 0x73 || opc == 0x0b)
			w = (w & ~0x7fu) | 0x7f;
		return w;
	}
	}
}

/* Initial register values: DMEM pointers (away from the host I/O block),
 * IMEM pointers, edge values and random bits. */
static uint32_t fz_xval(void)
{
	static const uint32_t edge[] = { 0, 1, 0xffffffffu, 0x80000000u, 0x7fffffffu, 2, 3, 0x80100000u };
	switch (fz_rand() % 4) {
	case 0: return 0x80104000u + (fz_rand() & 0x3fffu);
	case 1: return fz_pick(edge, 8);
	case 2: return 0x80000000u + (fz_rand() & 0x3fffu);
	default: return fz_rand() ^ fz_rand() << 16;
	}
}

static uint32_t fz_fval(void)
{
	static const uint32_t spec[] = { 0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u,
					 0x7fc00000u, 0x7f800001u, 0x00000001u, 0x807fffffu,
					 0x3f800000u, 0xbf800000u, 0x4f000000u, 0xcf000000u,
					 0x7f7fffffu, 0x00800000u, 0x4f800000u, 0x3effffffu };
	uint32_t k = fz_rand() % 3;
	if (k == 0)
		return fz_pick(spec, 16);
	if (k == 1) /* exponents near 1.0 */
		return (fz_rand() & 0x807fffffu) | (0x3c000000u + (fz_rand() % 16 << 23));
	return fz_rand() ^ fz_rand() << 16;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: isa_fuzz N SEED\n");
		return 2;
	}
	unsigned n = (unsigned)strtoul(argv[1], NULL, 0);
	fz_state = 0x9e3779b97f4a7c15ull ^ strtoull(argv[2], NULL, 0) * 0x2545f4914f6cdd1dull;
	if (!fz_state)
		fz_state = 1;
	for (int i = 0; i < 8; i++)
		fz_rand();

	printf("# isa_fuzz %u %s: generated, do not edit\n", n, argv[2]);
	printf("\t.option norvc\n\t.text\n\t.globl main\nmain:\n");
	printf("\tli\tt0, 0x2000\n\tcsrs\tmstatus, t0\n");
	printf("\tla\tt0, fz_handler\n\tcsrw\tmtvec, t0\n");
	printf("\tla\tt0, fz_log\n\tcsrw\tmscratch, t0\n");
	printf("\tla\tt0, fz_finit\n");
	for (int i = 0; i < 32; i++)
		printf("\tflw\tf%d, %d(t0)\n", i, 4 * i);
	printf("\tla\tx31, fz_xinit\n");
	for (int i = 1; i < 32; i++)
		printf("\tlw\tx%d, %d(x31)\n", i, 4 * i);
	printf("# the words\n");
	for (unsigned i = 0; i < n; i++)
		printf("\t.word\t0x%08" PRIx32 "\n", fz_word());
	printf("# the end: FS on (the words may have turned it off), registers to the signature\n");
	printf("\tcsrrw\tx31, mscratch, x31\n\tsw\tx30, 8(x31)\n");
	printf("\tli\tx30, 0x2000\n\tcsrs\tmstatus, x30\n");
	printf("\tlw\tx30, 8(x31)\n\tcsrrw\tx31, mscratch, x31\n");
	printf("\tcsrw\tmscratch, x31\n\tla\tx31, begin_signature\n");
	for (int i = 1; i < 31; i++)
		printf("\tsw\tx%d, %d(x31)\n", i, 4 * i);
	printf("\tcsrr\tx1, mscratch\n\tsw\tx1, 124(x31)\n");
	for (int i = 0; i < 32; i++)
		printf("\tfsw\tf%d, %d(x31)\n", i, 128 + 4 * i);
	printf("\tcsrr\tx1, fcsr\n\tsw\tx1, 256(x31)\n");
	printf("\tcsrr\tx1, mstatus\n\tsw\tx1, 260(x31)\n");
	printf("\t.option push\n\t.option norelax\n\tla\tgp, __global_pointer$\n\t.option pop\n");
	printf("\tla\tsp, __stack_top\n\tli\ta0, 0\n\ttail\twse_exit\n");
	printf("# trap handler: log mcause and mtval, resume at the next word\n");
	printf("\t.align 2\nfz_handler:\n");
	printf("\tcsrrw\tx31, mscratch, x31\n\tsw\tx30, 8(x31)\n");
	printf("\tcsrr\tx30, mcause\n\tsw\tx30, 0(x31)\n");
	printf("\tcsrr\tx30, mtval\n\tsw\tx30, 4(x31)\n");
	printf("\tcsrr\tx30, mepc\n\taddi\tx30, x30, 4\n\tcsrw\tmepc, x30\n");
	printf("\tlw\tx30, 8(x31)\n\taddi\tx31, x31, 8\n");
	printf("\tcsrrw\tx31, mscratch, x31\n\tmret\n");
	printf("\t.data\n\t.align 4\nfz_xinit:\n");
	for (int i = 0; i < 32; i++)
		printf("\t.word\t0x%08" PRIx32 "\n", fz_xval());
	printf("fz_finit:\n");
	for (int i = 0; i < 32; i++)
		printf("\t.word\t0x%08" PRIx32 "\n", fz_fval());
	/* the signature: 66 words of registers, then the log (2 words a trap) */
	printf("\t.align 4\n\t.globl begin_signature\nbegin_signature:\n\t.space\t%u\n", 4 * 66);
	printf("fz_log:\n\t.space\t%u\n", 8 * n + 16);
	printf("\t.globl end_signature\nend_signature:\n");
	return 0;
}
