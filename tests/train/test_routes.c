/* The route plan of docs/training-dataflow.md section 6, as the mesh
 * backend builds it with train/route/wse_route.h, for the boards' mesh
 * sizes and others, checked for deadlock freedom, edges and dead ends by
 * wse_route_check; and the checked writer that refuses a plan the checker
 * rejects. */
#include "tr_test.h"

#include <wsemu/wse_wire.h>

#include "train_mesh.h"
#include "wse_route.h"
#include "wsehost.h"

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

/* The checked writer refuses a plan the checker rejects before it looks at
 * the device: a one-color ring around a 2x2, given no device at all, comes
 * back refused with the cycle in the report. The training plan passes the
 * check, leaves the report alone, and only then fails for want of a
 * device. (wse_route_write, the raw register write, checks nothing.) */
static void test_write_refuses_unsafe(void **state)
{
	(void)state;
	uint8_t map[32];
	const unsigned N = 1u << WSE_PORT_NORTH, E = 1u << WSE_PORT_EAST,
		       S = 1u << WSE_PORT_SOUTH, W = 1u << WSE_PORT_WEST,
		       R = 1u << WSE_PORT_RAMP;

	for (int c = 0; c < 32; c++)
		map[c] = (uint8_t)(c / 8);
	struct wse_route_plan *ring = wse_route_plan_new(2, 2, map, 4);

	assert_non_null(ring);
	assert_int_equal(wse_route_set(ring, 0, 0, 3, S | R, E), 0);
	assert_int_equal(wse_route_set(ring, 1, 0, 3, W, S), 0);
	assert_int_equal(wse_route_set(ring, 1, 1, 3, N, W), 0);
	assert_int_equal(wse_route_set(ring, 0, 1, 3, E, N), 0);
	struct wse_route_report rep;

	memset(&rep, 0, sizeof(rep));
	assert_int_equal(wse_route_plan_write(NULL, ring, WSE_FIRST_INFRA_COLOR, &rep),
			 WSE_ERROR_INVALID_PARAM);
	assert_int_equal(rep.cycle_len, 4);
	assert_non_null(strstr(rep.text, "VC 0 cycle"));
	print_message("unsafe plan refused: %s\n", rep.text);
	wse_route_plan_free(ring);

	struct wse_route_plan *p = training_plan(2, 2);

	memset(&rep, 0, sizeof(rep));
	assert_int_equal(wse_route_plan_write(NULL, p, WSE_FIRST_INFRA_COLOR, &rep),
			 WSE_ERROR_INVALID_PARAM);
	assert_int_equal(rep.text[0], 0);
	assert_int_equal(wse_route_plan_write(NULL, NULL, WSE_FIRST_INFRA_COLOR, NULL),
			 WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_route_plan_write(NULL, p, 0, NULL), WSE_ERROR_INVALID_PARAM);
	wse_route_plan_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_plans),
					    cmocka_unit_test(test_write_refuses_unsafe) };

	return cmocka_run_group_tests(tests, NULL, NULL);
}
