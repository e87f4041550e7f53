/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pcie_shm.c - the PCIe register file in an ivshmem BAR and the ivshmem
 * server (pcie_shm.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "pcie_shm.h"
#include "wsemu/wse_error.h"
#include "wsemu/wse_pcie.h"

#define PCIE_SHM_ID_WORDS (WSE_PCIE_DTB_OFFSET / 4)

struct pcie_shm_ring {
	bool run;
	uint32_t size, tail;
};

struct pcie_shm {
	volatile uint32_t *regs;
	uint32_t id[PCIE_SHM_ID_WORDS]; /* the read-only block as created */
	struct pcie_shm_ring ring[2];
	uint32_t raised; /* vectors raised, not yet taken */
};

static uint32_t ring_reg(unsigned ring, uint32_t off)
{
	return (ring ? WSE_PCIE_REG_C2H : WSE_PCIE_REG_H2C) + off;
}

static uint32_t rd(struct pcie_shm *s, uint32_t off)
{
	return __atomic_load_n(&s->regs[off / 4], __ATOMIC_ACQUIRE);
}

static void wr(struct pcie_shm *s, uint32_t off, uint32_t v)
{
	__atomic_store_n(&s->regs[off / 4], v, __ATOMIC_RELEASE);
}

static void set_bits(struct pcie_shm *s, uint32_t off, uint32_t bits)
{
	__atomic_fetch_or(&s->regs[off / 4], bits, __ATOMIC_ACQ_REL);
}

/* Put want in the register at off unless the guest wrote again since it
 * held seen. */
static void put_back(struct pcie_shm *s, uint32_t off, uint32_t seen, uint32_t want)
{
	__atomic_compare_exchange_n(&s->regs[off / 4], &seen, want, false, __ATOMIC_ACQ_REL,
				    __ATOMIC_ACQUIRE);
}

void pcie_shm_stopped(struct pcie_shm *s, unsigned ring)
{
	s->ring[ring].run = false;
	s->ring[ring].tail = 0;
	wr(s, ring_reg(ring, WSE_PCIE_RING_CTRL), 0);
	wr(s, ring_reg(ring, WSE_PCIE_RING_HEAD), 0);
	wr(s, ring_reg(ring, WSE_PCIE_RING_TAIL), 0);
}

void pcie_shm_head(struct pcie_shm *s, unsigned ring, uint32_t head)
{
	wr(s, ring_reg(ring, WSE_PCIE_RING_HEAD), head);
}

void pcie_shm_status(struct pcie_shm *s, uint32_t bits)
{
	set_bits(s, WSE_PCIE_REG_INT_STATUS, bits);
}

void pcie_shm_raise(struct pcie_shm *s, unsigned vec)
{
	set_bits(s, WSE_PCIE_REG_INT_STATUS, 1u << vec);
	s->raised |= 1u << vec;
}

void pcie_shm_error(struct pcie_shm *s, unsigned ring, uint32_t bits)
{
	set_bits(s, WSE_PCIE_REG_ERR_STATUS, bits << (ring ? WSE_PCIE_ERR_C2H_SHIFT : 0));
	pcie_shm_raise(s, WSE_PCIE_VEC_ERR);
}

/* RUN, stop and the doorbell of one ring. */
static void ring_regs(struct pcie_shm *s, unsigned i, const struct pcie_shm_ops *ops, void *ctx)
{
	struct pcie_shm_ring *r = &s->ring[i];
	/* TAIL before CTRL: a TAIL read while CTRL has no RUN was written
	 * before the guest's RUN (its stores stay in order) */
	uint32_t tail = rd(s, ring_reg(i, WSE_PCIE_RING_TAIL));
	uint32_t ctrl = rd(s, ring_reg(i, WSE_PCIE_RING_CTRL));
	if (!r->run) {
		if (!(ctrl & WSE_PCIE_CTRL_RUN)) {
			if (ctrl) /* a stop request: taken */
				wr(s, ring_reg(i, WSE_PCIE_RING_CTRL), 0);
			if (tail) /* written while stopped: ignored */
				put_back(s, ring_reg(i, WSE_PCIE_RING_TAIL), tail, 0);
			return;
		}
		uint64_t base = rd(s, ring_reg(i, WSE_PCIE_RING_BASE_LO)) |
				(uint64_t)rd(s, ring_reg(i, WSE_PCIE_RING_BASE_HI)) << 32;
		uint32_t size = rd(s, ring_reg(i, WSE_PCIE_RING_SIZE));
		uint32_t bit = ops->start(ctx, i, base, size);
		if (bit) {
			pcie_shm_error(s, i, bit);
			pcie_shm_stopped(s, i);
			return;
		}
		r->run = true;
		r->size = size;
		r->tail = 0;
		wr(s, ring_reg(i, WSE_PCIE_RING_HEAD), 0);
	} else if (!(ctrl & WSE_PCIE_CTRL_RUN)) {
		ops->stop(ctx, i);
		pcie_shm_stopped(s, i);
		return;
	}
	tail = rd(s, ring_reg(i, WSE_PCIE_RING_TAIL));
	if (tail == r->tail)
		return;
	uint32_t bit = ops->tail(ctx, i, tail);
	if (bit) {
		pcie_shm_error(s, i, bit);
		/* keep the old value unless the guest wrote again meanwhile */
		put_back(s, ring_reg(i, WSE_PCIE_RING_TAIL), tail, r->tail);
		return;
	}
	r->tail = tail;
}

void pcie_shm_look(struct pcie_shm *s, const struct pcie_shm_ops *ops, void *ctx)
{
	for (uint32_t i = 0; i < PCIE_SHM_ID_WORDS; i++)
		if (s->id[i] && s->regs[i] != s->id[i])
			wr(s, 4 * i, s->id[i]);
	for (unsigned i = 0; i < 2; i++)
		ring_regs(s, i, ops, ctx);
}

uint32_t pcie_shm_take_vectors(struct pcie_shm *s)
{
	uint32_t v = s->raised & ~rd(s, WSE_PCIE_REG_INT_MASK);
	s->raised &= ~v;
	return v;
}

int pcie_shm_create(volatile void *regs, const uint32_t *id, const uint8_t *dtb, size_t dtb_len,
		    struct pcie_shm **out)
{
	if (!regs || !id || (!dtb && dtb_len) || !out ||
	    dtb_len > WSE_PCIE_BAR_BYTES - WSE_PCIE_DTB_OFFSET)
		return WSE_ERROR_INVALID_PARAM;
	struct pcie_shm *s = calloc(1, sizeof *s);
	if (!s)
		return WSE_ERROR_NO_MEM;
	s->regs = regs;
	memcpy(s->id, id, sizeof s->id);
	for (uint32_t i = 0; i < WSE_PCIE_BAR_BYTES / 4; i++)
		s->regs[i] = 0;
	for (uint32_t i = 0; i < PCIE_SHM_ID_WORDS; i++)
		s->regs[i] = id[i];
	for (size_t i = 0; i < dtb_len; i += 4) {
		uint8_t w[4] = {0};
		memcpy(w, dtb + i, dtb_len - i < 4 ? dtb_len - i : 4);
		s->regs[(WSE_PCIE_DTB_OFFSET + i) / 4] =
			(uint32_t)w[0] | (uint32_t)w[1] << 8 | (uint32_t)w[2] << 16 | (uint32_t)w[3] << 24;
	}
	s->regs[WSE_PCIE_REG_INT_MASK / 4] = (1u << WSE_PCIE_NUM_VECTORS) - 1;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*out = s;
	return 0;
}

void pcie_shm_destroy(struct pcie_shm *s)
{
	free(s);
}

/* ---- the ivshmem server (QEMU docs/specs/ivshmem-spec.rst) ---- */

struct pcie_shm_server {
	int lfd, cfd;
	char *path, *regs;
	int efd[WSE_PCIE_NUM_VECTORS];
};

/* One message: a little-endian int64, with a descriptor when fd >= 0. */
static int ivshmem_send(int c, int64_t v, int fd)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {&v, sizeof v};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	if (fd >= 0) {
		memset(ctl, 0, sizeof ctl);
		m.msg_control = ctl;
		m.msg_controllen = sizeof ctl;
		struct cmsghdr *h = CMSG_FIRSTHDR(&m);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(h), &fd, sizeof fd);
	}
	return sendmsg(c, &m, MSG_NOSIGNAL) == (ssize_t)sizeof v ? 0 : -1;
}

/* QEMU connecting: version 0, its ID 0, the register file, its vectors. */
static void server_accept(struct pcie_shm_server *v)
{
	int c = accept4(v->lfd, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return;
	int rfd = open(v->regs, O_RDWR | O_CLOEXEC);
	int ok = rfd >= 0 && !ivshmem_send(c, 0, -1) && !ivshmem_send(c, 0, -1) &&
		 !ivshmem_send(c, -1, rfd);
	for (unsigned i = 0; ok && i < WSE_PCIE_NUM_VECTORS; i++)
		ok = !ivshmem_send(c, 0, v->efd[i]);
	if (rfd >= 0)
		close(rfd);
	if (!ok || v->cfd >= 0) {
		fprintf(stderr, "%s: a second or failed ivshmem client\n", v->path);
		close(c);
		return;
	}
	v->cfd = c;
}

int pcie_shm_server_send(struct pcie_shm_server *v, uint32_t vec)
{
	if (v->cfd < 0)
		server_accept(v);
	for (unsigned i = 0; i < WSE_PCIE_NUM_VECTORS; i++)
		if (vec & 1u << i) {
			uint64_t one = 1;
			if (write(v->efd[i], &one, sizeof one) < 0)
				return WSE_ERROR_IO;
		}
	return 0;
}

void pcie_shm_server_close(struct pcie_shm_server *v)
{
	if (!v)
		return;
	for (unsigned i = 0; i < WSE_PCIE_NUM_VECTORS; i++)
		if (v->efd[i] >= 0)
			close(v->efd[i]);
	if (v->cfd >= 0)
		close(v->cfd);
	if (v->lfd >= 0) {
		close(v->lfd);
		unlink(v->path);
	}
	free(v->path);
	free(v->regs);
	free(v);
}

int pcie_shm_server_open(const char *path, const char *regs_path, struct pcie_shm_server **out)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (!path || !regs_path || !out || strlen(path) >= sizeof sa.sun_path)
		return WSE_ERROR_INVALID_PARAM;
	struct pcie_shm_server *v = calloc(1, sizeof *v);
	if (!v)
		return WSE_ERROR_NO_MEM;
	v->cfd = -1;
	v->lfd = -1;
	for (unsigned i = 0; i < WSE_PCIE_NUM_VECTORS; i++)
		v->efd[i] = -1;
	v->path = strdup(path);
	v->regs = strdup(regs_path);
	if (!v->path || !v->regs) {
		pcie_shm_server_close(v);
		return WSE_ERROR_NO_MEM;
	}
	strcpy(sa.sun_path, path);
	unlink(path);
	v->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (v->lfd < 0 || bind(v->lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(v->lfd, 1) < 0)
		goto fail;
	for (unsigned i = 0; i < WSE_PCIE_NUM_VECTORS; i++)
		if ((v->efd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
			goto fail;
	*out = v;
	return 0;
fail:;
	int e = errno;
	pcie_shm_server_close(v);
	errno = e;
	return WSE_ERROR_IO;
}

void *pcie_shm_map_file(const char *prog, const char *path, size_t bytes)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	void *m = MAP_FAILED;
	if (fd >= 0 && ftruncate(fd, (off_t)bytes) == 0)
		m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		m = NULL;
	}
	if (fd >= 0)
		close(fd);
	return m;
}
