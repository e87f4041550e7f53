/* The route plan of docs/training-dataflow.md section 6, built with
 * host-lib/route/wse_route.h for the boards' mesh sizes and checked for
 * deadlock freedom, edges and dead ends by wse_route_check. */
#include "tr_test.h"

#include <wsemu/wse_wire.h>

#include "wse_route.h"

#define PN (1u << WSE_PORT_NORTH)
#define PE (1u << WSE_PORT_EAST)
#define PS (1u << WSE_PORT_SOUTH)
#define PW (1u << WSE_PORT_WEST)
#define PR (1u << WSE_PORT_RAMP)

enum {
	C_WEIGHTS = 0,       /* row multicast from the west edge */
	C_GRAD_A = 1,        /* row chain toward the east outlet */
	C_GRAD_B = 2,
	C_REDUCE_A = 8,      /* column chain southward */
	C_REDUCE_B = 9,
	C_RETURN_A = 16,     /* column chain northward */
	C_RETURN_B = 17,
	C_DELTA_BCAST = 18,  /* column multicast from row 0 */
};

static struct wse_route_plan *training_plan(unsigned cols, unsigned rows)
{
	uint8_t map[32];

	for (int c = 0; c < 32; c++)
		map[c] = (uint8_t)(c / 8); /* the boards' map, docs/dt-binding.md */
	struct wse_route_plan *p = wse_route_plan_new(cols, rows, map, 4);

	assert_non_null(p);
	for (unsigned y = 0; y < rows; y++) {
		assert_int_equal(wse_route_row_multicast(p, C_WEIGHTS, y), 0);
		/* gradient chain: column x sends east on A (x even) or B (x odd) */
		for (unsigned x = 0; x < cols; x++) {
			unsigned out = (x % 2) ? C_GRAD_B : C_GRAD_A;

			assert_int_equal(wse_route_set(p, x, y, out, PR, PE), 0);
			if (x > 0)
				assert_int_equal(wse_route_set(p, x, y, (x % 2) ? C_GRAD_A : C_GRAD_B,
							       PW, PR), 0);
		}
	}
	for (unsigned x = 0; x < cols && rows > 1; x++) {
		assert_int_equal(wse_route_column_chain(p, C_REDUCE_A, C_REDUCE_B, x, 0, rows - 1), 0);
		assert_int_equal(wse_route_column_chain(p, C_RETURN_A, C_RETURN_B, x, rows - 1, 0), 0);
		for (unsigned y = 0; y < rows; y++) {
			unsigned rx = y == 0 ? PR : PN;
			unsigned tx = (y == 0 ? 0 : PR) | (y + 1 < rows ? PS : 0);

			assert_int_equal(wse_route_set(p, x, y, C_DELTA_BCAST, rx, tx), 0);
		}
	}
	return p;
}

static void check_plan(unsigned cols, unsigned rows)
{
	struct wse_route_plan *p = training_plan(cols, rows);
	struct wse_route_report rep;
	int rc = wse_route_check(p, &rep);

	if (rc) {
		print_error("%ux%u: %s: %s\n", cols, rows, wse_route_strerror(rc), rep.text);
		fail();
	}
	unsigned used = 0;

	for (unsigned c = 0; c < 32; c++) {
		unsigned any = 0;

		for (unsigned y = 0; y < rows; y++)
			for (unsigned x = 0; x < cols; x++) {
				unsigned rx, tx;

				assert_int_equal(wse_route_get(p, x, y, c, &rx, &tx), 0);
				any |= rx | tx;
			}
		if (any) {
			assert_true(c < 24); /* user colors only */
			used++;
		}
	}
	print_message("%ux%u: training route plan passes the checker, %u colors\n", cols,
		      rows, used);
	assert_true(used <= 24);
	wse_route_plan_free(p);
}

static void test_plans(void **state)
{
	(void)state;
	check_plan(2, 2);
	check_plan(4, 4);
	check_plan(8, 8);
	check_plan(3, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_plans) };

	return cmocka_run_group_tests(tests, NULL, NULL);
}
