// SPDX-License-Identifier: Apache-2.0
/* cmocka tests of the route-plan builders and the deadlock checker. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <wsemu/wse_wire.h>

#include "wse_route.h"

#define N BIT_(WSE_PORT_NORTH)
#define E BIT_(WSE_PORT_EAST)
#define S BIT_(WSE_PORT_SOUTH)
#define W BIT_(WSE_PORT_WEST)
#define R BIT_(WSE_PORT_RAMP)
#define BIT_(p) (1u << (p))

/* The boards' map: colors 0-7 VC0, 8-15 VC1, 16-23 VC2, 24-31 VC3. */
static void board_vc_map(uint8_t map[32])
{
	for (int c = 0; c < 32; c++)
		map[c] = (uint8_t)(c / 8);
}

static struct wse_route_plan *plan_new(unsigned cols, unsigned rows)
{
	uint8_t map[32];
	board_vc_map(map);
	struct wse_route_plan *p = wse_route_plan_new(cols, rows, map, 4);
	assert_non_null(p);
	return p;
}

static void expect_ok(struct wse_route_plan *p)
{
	struct wse_route_report rep;
	memset(&rep, 0, sizeof(rep));
	int err = wse_route_check(p, &rep);
	if (err)
		print_error("unexpected: %s: %s\n", wse_route_strerror(err), rep.text);
	assert_int_equal(err, 0);
}

/* The training plan: row multicast of weights on every row, reductions
 * chained down and up every column, on a WxH mesh. */
static void training_plan(unsigned cols, unsigned rows)
{
	struct wse_route_plan *p = plan_new(cols, rows);
	for (unsigned y = 0; y < rows; y++)
		assert_int_equal(wse_route_row_multicast(p, 0, y), 0);
	if (rows > 1)
		for (unsigned x = 0; x < cols; x++) {
			assert_int_equal(wse_route_column_chain(p, 8, 9, x, 0, rows - 1), 0);
			assert_int_equal(wse_route_column_chain(p, 10, 11, x, rows - 1, 0), 0);
		}
	expect_ok(p);
	wse_route_plan_free(p);
}

static void test_training_plans_accepted(void **state)
{
	(void)state;
	training_plan(2, 2);
	training_plan(4, 4);
	training_plan(8, 8);
	training_plan(5, 3);
	training_plan(1, 4);
}

/* Uniform-random traffic: one color per destination, XY routed, all in
 * one plan; XY routing has no turn cycle, so every VC graph is acyclic. */
static void test_xy_all_destinations_accepted(void **state)
{
	(void)state;
	struct wse_route_plan *p = plan_new(4, 4);
	for (unsigned d = 0; d < 16; d++)
		assert_int_equal(wse_route_xy_unicast(p, d, d % 4, d / 4), 0);
	expect_ok(p);
	unsigned rx, tx;
	/* Spot-check: color 5 targets (1,1); tile (3,0) sends it west. */
	assert_int_equal(wse_route_get(p, 3, 0, 5, &rx, &tx), 0);
	assert_int_equal(tx, W);
	assert_int_equal(wse_route_get(p, 1, 1, 5, &rx, &tx), 0);
	assert_int_equal(tx, R);
	assert_true(rx & N && rx & E && rx & W && rx & R);
	wse_route_plan_free(p);
}

/* One color going round a 2x2 ring is a cycle. */
static void test_ring_rejected(void **state)
{
	(void)state;
	struct wse_route_plan *p = plan_new(2, 2);
	assert_int_equal(wse_route_set(p, 0, 0, 3, S | R, E), 0);
	assert_int_equal(wse_route_set(p, 1, 0, 3, W, S), 0);
	assert_int_equal(wse_route_set(p, 1, 1, 3, N, W), 0);
	assert_int_equal(wse_route_set(p, 0, 1, 3, E, N), 0);
	struct wse_route_report rep;
	assert_int_equal(wse_route_check(p, &rep), WSE_ROUTE_ERROR_CYCLE);
	assert_int_equal(rep.vc, 0);
	assert_int_equal(rep.color, 3);
	assert_int_equal(rep.cycle_len, 4);
	assert_non_null(strstr(rep.text, "VC 0 cycle"));
	wse_route_plan_free(p);
}

/* Four flows, each turning once, close the classic turn cycle around a
 * 2x2 when they share a VC; spread over two VCs they are accepted. */
static void turn_cycle(struct wse_route_plan *p, const unsigned c[4])
{
	/* c0: (0,0) E -> (1,0) S -> (1,1) */
	assert_int_equal(wse_route_set(p, 0, 0, c[0], R, E), 0);
	assert_int_equal(wse_route_set(p, 1, 0, c[0], W, S), 0);
	assert_int_equal(wse_route_set(p, 1, 1, c[0], N, R), 0);
	/* c1: (1,0) S -> (1,1) W -> (0,1) */
	assert_int_equal(wse_route_set(p, 1, 0, c[1], R, S), 0);
	assert_int_equal(wse_route_set(p, 1, 1, c[1], N, W), 0);
	assert_int_equal(wse_route_set(p, 0, 1, c[1], E, R), 0);
	/* c2: (1,1) W -> (0,1) N -> (0,0) */
	assert_int_equal(wse_route_set(p, 1, 1, c[2], R, W), 0);
	assert_int_equal(wse_route_set(p, 0, 1, c[2], E, N), 0);
	assert_int_equal(wse_route_set(p, 0, 0, c[2], S, R), 0);
	/* c3: (0,1) N -> (0,0) E -> (1,0) */
	assert_int_equal(wse_route_set(p, 0, 1, c[3], R, N), 0);
	assert_int_equal(wse_route_set(p, 0, 0, c[3], S, E), 0);
	assert_int_equal(wse_route_set(p, 1, 0, c[3], W, R), 0);
}

static void test_shared_vc_turn_cycle_rejected(void **state)
{
	(void)state;
	const unsigned same_vc[4] = { 1, 2, 3, 4 };
	struct wse_route_plan *p = plan_new(2, 2);
	turn_cycle(p, same_vc);
	struct wse_route_report rep;
	assert_int_equal(wse_route_check(p, &rep), WSE_ROUTE_ERROR_CYCLE);
	assert_int_equal(rep.vc, 0);
	assert_int_equal(rep.cycle_len, 4);
	wse_route_plan_free(p);

	const unsigned two_vcs[4] = { 1, 2, 3, 17 }; /* c3 on VC2 */
	p = plan_new(2, 2);
	turn_cycle(p, two_vcs);
	expect_ok(p);
	wse_route_plan_free(p);
}

/* A permissive rx mask alone is not a dependency: no wavelet of color 1
 * can be in (0,0)'s south queue, so nothing waits behind it there. */
static void test_unused_rx_is_not_a_cycle(void **state)
{
	(void)state;
	const unsigned c[4] = { 1, 2, 3, 4 };
	struct wse_route_plan *p = plan_new(2, 2);
	turn_cycle(p, c);
	/* Break the cycle by removing flow c3, but leave c0 accepting S. */
	assert_int_equal(wse_route_set(p, 0, 1, 4, 0, 0), 0);
	assert_int_equal(wse_route_set(p, 0, 0, 4, 0, 0), 0);
	assert_int_equal(wse_route_set(p, 1, 0, 4, 0, 0), 0);
	assert_int_equal(wse_route_set(p, 0, 0, 1, S | R, E), 0);
	expect_ok(p);
	wse_route_plan_free(p);
}

/* A multicast fork whose branch loops back through the fork's own input. */
static void test_multicast_fork_cycle_rejected(void **state)
{
	(void)state;
	struct wse_route_plan *p = plan_new(3, 2);
	assert_int_equal(wse_route_set(p, 0, 0, 4, W | S, E | R), 0);
	assert_int_equal(wse_route_set(p, 1, 0, 4, W, E | S | R), 0);
	assert_int_equal(wse_route_set(p, 2, 0, 4, W, R), 0);
	assert_int_equal(wse_route_set(p, 1, 1, 4, N, W), 0);
	assert_int_equal(wse_route_set(p, 0, 1, 4, E, N), 0);
	assert_int_equal(wse_route_check(p, NULL), WSE_ROUTE_ERROR_CYCLE);
	wse_route_plan_free(p);
}

static void test_off_mesh_and_dead_end(void **state)
{
	(void)state;
	struct wse_route_plan *p = plan_new(2, 2);
	assert_int_equal(wse_route_set(p, 0, 0, 6, R, N), 0);
	struct wse_route_report rep;
	assert_int_equal(wse_route_check(p, &rep), WSE_ROUTE_ERROR_OFF_MESH);
	assert_non_null(strstr(rep.text, "off the mesh"));
	/* East and west edges are the host streams: allowed. */
	assert_int_equal(wse_route_set(p, 0, 0, 6, R, W), 0);
	expect_ok(p);
	assert_int_equal(wse_route_set(p, 0, 0, 6, R, E), 0);
	assert_int_equal(wse_route_check(p, &rep), WSE_ROUTE_ERROR_DEAD_END);
	assert_int_equal(rep.x, 0);
	assert_int_equal(wse_route_set(p, 1, 0, 6, W, E), 0);
	expect_ok(p);
	wse_route_plan_free(p);
}

static void test_invalid_arguments(void **state)
{
	(void)state;
	uint8_t map[32];
	board_vc_map(map);
	assert_null(wse_route_plan_new(0, 4, map, 4));
	assert_null(wse_route_plan_new(4, 65, map, 4));
	assert_null(wse_route_plan_new(4, 4, map, 3)); /* map uses VC 3 */
	assert_null(wse_route_plan_new(4, 4, NULL, 4));
	struct wse_route_plan *p = plan_new(2, 2);
	assert_int_equal(wse_route_set(p, 2, 0, 0, R, R), WSE_ROUTE_ERROR_INVALID);
	assert_int_equal(wse_route_set(p, 0, 0, 32, R, R), WSE_ROUTE_ERROR_INVALID);
	assert_int_equal(wse_route_set(p, 0, 0, 0, 0x20, R), WSE_ROUTE_ERROR_INVALID);
	assert_int_equal(wse_route_row_multicast(p, 0, 2), WSE_ROUTE_ERROR_INVALID);
	assert_int_equal(wse_route_column_chain(p, 8, 8, 0, 0, 1), WSE_ROUTE_ERROR_INVALID);
	/* A builder never overwrites an existing entry, and leaves the plan
	 * unchanged when it refuses. */
	assert_int_equal(wse_route_set(p, 1, 0, 0, R, R), 0);
	assert_int_equal(wse_route_row_multicast(p, 0, 0), WSE_ROUTE_ERROR_INVALID);
	unsigned rx, tx;
	wse_route_get(p, 0, 0, 0, &rx, &tx);
	assert_int_equal(rx | tx, 0);
	assert_int_equal(wse_route_check(NULL, NULL), WSE_ROUTE_ERROR_INVALID);
	assert_string_equal(wse_route_strerror(-99), "unknown route error");
	wse_route_plan_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_training_plans_accepted),
		cmocka_unit_test(test_xy_all_destinations_accepted),
		cmocka_unit_test(test_ring_rejected),
		cmocka_unit_test(test_shared_vc_turn_cycle_rejected),
		cmocka_unit_test(test_unused_rx_is_not_a_cycle),
		cmocka_unit_test(test_multicast_fork_cycle_rejected),
		cmocka_unit_test(test_off_mesh_and_dead_end),
		cmocka_unit_test(test_invalid_arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
