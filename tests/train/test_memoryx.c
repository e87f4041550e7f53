/* MemoryX (train/src/memoryx.c): optimizer updates bit-exact against the
 * reference trainer's, the store (RAM and file-backed), checkpoints: round
 * trip, every truncation, every bit flip, mismatching models, and a
 * SIGKILL in the middle of a write leaving the old checkpoint intact. */
#include "tr_test.h"

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memoryx.h"
#include "train_ref.h"
#include "wsehost.h"

static char dir[512];

static int setup(void **state)
{
	(void)state;
	return tr_tmpdir(dir, sizeof(dir), "mxtest");
}

static int teardown(void **state)
{
	(void)state;
	return tr_rmdir(dir);
}

static void fill(float *p, size_t n, uint64_t *s, float lo, float hi)
{
	for (size_t k = 0; k < n; k++)
		p[k] = tr_uniform(s, lo, hi);
}

#define N 257

static void run_opt(enum mx_opt_kind kind, float wd, float momentum)
{
	struct mx_opt_cfg c = { .kind = kind, .lr = 0.01f, .momentum = momentum,
				.beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f,
				.weight_decay = wd };
	struct mx_opt_scalars sc;
	float w[N], s1[N] = { 0 }, s2[N] = { 0 }, g[N];
	float rw[N], r1[N] = { 0 }, r2[N] = { 0 };
	float b1p = 1.0f, b2p = 1.0f;
	uint64_t s = 42 + kind;

	fill(w, N, &s, -1, 1);
	w[0] = 0.0f;
	w[1] = -0.0f;
	memcpy(rw, w, sizeof(w));
	mx_opt_scalars_init(&sc);
	for (int step = 0; step < 30; step++) {
		fill(g, N, &s, -0.5f, 0.5f);
		g[2] = 0.0f;
		g[3] = 1e-30f; /* tiny and subnormal-producing values */
		mx_opt_begin_step(&c, &sc);
		mx_opt_update(&c, &sc, N, w, s1, s2, g);
		if (kind == MX_OPT_SGD) {
			train_ref_sgd(N, rw, r1, g, c.lr, c.momentum, c.weight_decay);
		} else {
			b1p = b1p * c.beta1;
			b2p = b2p * c.beta2;
			train_ref_adam(N, rw, r1, r2, g, c.lr, c.beta1, c.beta2, c.eps,
				       c.weight_decay, kind == MX_OPT_ADAMW, b1p, b2p);
		}
		for (int k = 0; k < N; k++)
			if (memcmp(&w[k], &rw[k], 4) || memcmp(&s1[k], &r1[k], 4) ||
			    memcmp(&s2[k], &r2[k], 4)) {
				print_error("kind %d step %d element %d: %a vs %a\n", kind, step, k,
					    w[k], rw[k]);
				fail();
			}
	}
	assert_int_equal(sc.t, 30);
}

static void test_sgd_bitexact(void **state)
{
	(void)state;
	run_opt(MX_OPT_SGD, 0.0f, 0.9f);
	run_opt(MX_OPT_SGD, 1e-4f, 0.9f);
	run_opt(MX_OPT_SGD, 0.0f, 0.0f);
}

static void test_adam_bitexact(void **state)
{
	(void)state;
	run_opt(MX_OPT_ADAM, 0.0f, 0);
	run_opt(MX_OPT_ADAM, 1e-2f, 0);
	run_opt(MX_OPT_ADAMW, 1e-2f, 0);
}

static void test_grad_accumulate(void **state)
{
	(void)state;
	float a[3] = { 1.0f, 1e8f, -0.0f }, g[3] = { 2.0f, 1.0f, 0.0f };

	mx_grad_accumulate(3, a, g);
	assert_true(a[0] == 3.0f && a[1] == 1e8f && !signbit(a[2]));
}

/* a small store: two weights, a bias, and state */
static void make_store(struct mx_store *s, const char *backing, uint32_t d0)
{
	uint32_t dw[2] = { d0, 5 }, db[1] = { 7 }, dv[3] = { 2, 3, 4 };

	mx_store_init(s);
	assert_true(mx_store_add(s, "layer0.weight", 2, dw) >= 0);
	assert_true(mx_store_add(s, "layer0.bias", 1, db) >= 0);
	assert_true(mx_store_add(s, "layer0.weight.adam_m", 3, dv) >= 0);
	assert_int_equal(mx_store_add(s, "layer0.bias", 1, db), WSE_ERROR_INVALID_PARAM);
	char err[256];

	assert_int_equal(mx_store_commit(s, backing, err, sizeof(err)), 0);
}

static void randomize(struct mx_store *s, uint64_t seed)
{
	for (unsigned k = 0; k < s->n; k++)
		fill(mx_store_data(s, (int)k), s->t[k].count, &seed, -3, 3);
}

static int same(const struct mx_store *a, const struct mx_store *b)
{
	for (unsigned k = 0; k < a->n; k++)
		if (memcmp(mx_store_data(a, (int)k), mx_store_data(b, (int)k),
			   a->t[k].count * 4))
			return 0;
	return 1;
}

static void path_of(char *p, size_t n, const char *name)
{
	snprintf(p, n, "%s/%s", dir, name);
}

static void test_store_file_backed(void **state)
{
	(void)state;
	char p[600];
	struct mx_store s;

	path_of(p, sizeof(p), "store.bin");
	make_store(&s, p, 4);
	randomize(&s, 9);
	float *w = mx_store_data(&s, mx_store_find(&s, "layer0.bias"));
	float first = w[0];
	struct stat st;

	assert_int_equal(stat(p, &st), 0);
	assert_true((size_t)st.st_size >= s.arena_elems * 4);
	int fd = open(p, O_RDONLY);
	float got;

	assert_true(pread(fd, &got, 4, (off_t)(s.t[1].offset * 4)) == 4);
	close(fd);
	assert_true(memcmp(&got, &first, 4) == 0); /* the tensor lives in the file */
	mx_store_free(&s);
	char err[256];

	mx_store_init(&s);
	uint32_t d[1] = { 4 };

	mx_store_add(&s, "x", 1, d);
	assert_int_equal(mx_store_commit(&s, "/nonexistent-dir/store.bin", err, sizeof(err)),
			 WSE_ERROR_IO);
	assert_non_null(strstr(err, "/nonexistent-dir/store.bin"));
	mx_store_free(&s);
}

static void test_ckpt_round_trip(void **state)
{
	(void)state;
	char p[600], err[512];
	struct mx_store a, b;
	struct mx_ckpt_meta m = { 123, 0xDEADBEEFCAFEull, 3, 4567 }, m2;

	path_of(p, sizeof(p), "rt.ckpt");
	make_store(&a, NULL, 4);
	make_store(&b, NULL, 4);
	randomize(&a, 1);
	assert_int_equal(mx_ckpt_save(p, &a, &m, err, sizeof(err)), 0);
	assert_int_equal(mx_ckpt_load(p, &b, &m2, err, sizeof(err)), 0);
	assert_true(same(&a, &b));
	assert_memory_equal(&m, &m2, sizeof(m));
	/* a model with another shape is refused, naming the tensor */
	struct mx_store c;

	make_store(&c, NULL, 3);
	assert_int_equal(mx_ckpt_load(p, &c, &m2, err, sizeof(err)), WSE_ERROR_MALFORMED);
	assert_non_null(strstr(err, "layer0.weight"));
	mx_store_free(&c);
	/* missing file */
	path_of(p, sizeof(p), "none.ckpt");
	assert_int_equal(mx_ckpt_load(p, &b, &m2, err, sizeof(err)), WSE_ERROR_NOT_FOUND);
	mx_store_free(&a);
	mx_store_free(&b);
}

static uint8_t *slurp(const char *p, size_t *n)
{
	FILE *f = fopen(p, "rb");

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	rewind(f);
	uint8_t *d = malloc(*n);

	assert_true(fread(d, 1, *n, f) == *n);
	fclose(f);
	return d;
}

static void spit(const char *p, const uint8_t *d, size_t n)
{
	FILE *f = fopen(p, "wb");

	assert_non_null(f);
	assert_true(fwrite(d, 1, n, f) == n);
	fclose(f);
}

static void test_ckpt_corruption(void **state)
{
	(void)state;
	char p[600], q[600], err[512];
	struct mx_store a, b, ref;
	struct mx_ckpt_meta m = { 7, 8, 9, 10 }, m2;
	size_t n;

	path_of(p, sizeof(p), "good.ckpt");
	path_of(q, sizeof(q), "bad.ckpt");
	make_store(&a, NULL, 4);
	make_store(&b, NULL, 4);
	make_store(&ref, NULL, 4);
	randomize(&a, 2);
	randomize(&b, 3);
	randomize(&ref, 3);
	assert_int_equal(mx_ckpt_save(p, &a, &m, err, sizeof(err)), 0);
	uint8_t *d = slurp(p, &n);

	/* every truncation length */
	for (size_t len = 0; len < n; len++) {
		spit(q, d, len);
		int rc = mx_ckpt_load(q, &b, &m2, err, sizeof(err));

		if (rc >= 0) {
			print_error("truncated to %zu of %zu bytes: accepted\n", len, n);
			fail();
		}
		assert_true(strstr(err, "truncated") || strstr(err, "corrupt") ||
			    strstr(err, "CRC") || strstr(err, "magic"));
		assert_true(same(&b, &ref)); /* untouched */
	}
	spit(q, d, 100);
	mx_ckpt_load(q, &b, &m2, err, sizeof(err));
	print_message("truncated: %s\n", err);
	/* every single bit flip */
	unsigned flips = 0;

	for (size_t byte = 0; byte < n; byte++)
		for (int bit = 0; bit < 8; bit++) {
			d[byte] ^= (uint8_t)(1u << bit);
			spit(q, d, n);
			int rc = mx_ckpt_load(q, &b, &m2, err, sizeof(err));

			d[byte] ^= (uint8_t)(1u << bit);
			if (rc >= 0) {
				print_error("bit %d of byte %zu flipped: accepted\n", bit, byte);
				fail();
			}
			assert_true(same(&b, &ref));
			flips++;
		}
	print_message("%zu truncations and %u bit flips of a %zu-byte checkpoint refused\n",
		      n, flips, n);
	/* trailing garbage */
	uint8_t *e = malloc(n + 1);

	memcpy(e, d, n);
	e[n] = 0;
	spit(q, e, n + 1);
	assert_true(mx_ckpt_load(q, &b, &m2, err, sizeof(err)) < 0);
	free(e);
	free(d);
	mx_store_free(&a);
	mx_store_free(&b);
	mx_store_free(&ref);
}

static void kill_hook(uint64_t bytes, void *user)
{
	if (bytes >= *(uint64_t *)user)
		raise(SIGKILL);
}

static void test_ckpt_atomic_kill(void **state)
{
	(void)state;
	char p[600], err[512];
	struct mx_store a, b, c;
	struct mx_ckpt_meta m1 = { 1, 1, 0, 32 }, m2 = { 2, 1, 0, 64 }, got;
	size_t n;

	path_of(p, sizeof(p), "atomic.ckpt");
	make_store(&a, NULL, 4);
	make_store(&b, NULL, 4);
	make_store(&c, NULL, 4);
	randomize(&a, 5);
	assert_int_equal(mx_ckpt_save(p, &a, &m1, err, sizeof(err)), 0);
	free(slurp(p, &n));
	uint64_t points[] = { 1, 64, 65, 100, n / 2, n - 9, n - 1, n };

	for (unsigned k = 0; k < sizeof(points) / sizeof(points[0]); k++) {
		fflush(NULL);
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (pid == 0) {
			randomize(&a, 77); /* new contents */
			mx_ckpt_save_hooked(p, &a, &m2, kill_hook, &points[k], NULL, 0);
			_exit(0); /* not reached */
		}
		int st;

		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
		assert_int_equal(mx_ckpt_load(p, &b, &got, err, sizeof(err)), 0);
		assert_true(same(&a, &b));
		assert_int_equal(got.step, 1);
	}
	/* an uninterrupted save replaces it; the temporary is gone */
	randomize(&c, 77);
	assert_int_equal(mx_ckpt_save(p, &c, &m2, err, sizeof(err)), 0);
	assert_int_equal(mx_ckpt_load(p, &b, &got, err, sizeof(err)), 0);
	assert_true(same(&b, &c));
	assert_int_equal(got.step, 2);
	char tmp[700];

	snprintf(tmp, sizeof(tmp), "%s.tmp", p);
	assert_int_equal(access(tmp, F_OK), -1);
	mx_store_free(&a);
	mx_store_free(&b);
	mx_store_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sgd_bitexact),
		cmocka_unit_test(test_adam_bitexact),
		cmocka_unit_test(test_grad_accumulate),
		cmocka_unit_test(test_store_file_backed),
		cmocka_unit_test(test_ckpt_round_trip),
		cmocka_unit_test(test_ckpt_corruption),
		cmocka_unit_test(test_ckpt_atomic_kill),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
