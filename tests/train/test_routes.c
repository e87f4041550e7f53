/* The route plan of docs/training-dataflow.md section 6, as the mesh
 * backend builds it with train/route/wse_route.h, for the boards' mesh
 * sizes and others, checked for deadlock freedom, edges and dead ends by
 * wse_route_check. */
#include "tr_test.h"

#include <wsemu/wse_wire.h>

#include "train_mesh.h"
#include "wse_route.h"

static struct wse_route_plan *training_plan(unsigned cols, unsigned rows)
{
	uint8_t map[32];

	for (int c = 0; c < 32; c++)
		map[c] = (uint8_t)(c / 8); /* the boards' map, docs/dt-binding.md */
	struct wse_route_plan *p = train_mesh_route_plan(cols, rows, map, 4);

	assert_non_null(p);
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
