# Route plans and the deadlock checker (train/route), with cmocka tests:
# the planner alone, without the libraries it is built into.

ROUTE_CFLAGS := -std=c11 -O1 -g $(CLIB_WARN) -Iinclude -Itrain/route
ROUTE_SRC    := train/route/wse_route.c

$(BUILD)/tests/route/test_route: tests/route/test_route.c $(ROUTE_SRC) train/route/wse_route.h include/wsemu/wse_wire.h | deps
	@mkdir -p $(dir $@)
	$(CC) $(ROUTE_CFLAGS) $(CLIB_FLAGS_san) -o $@ tests/route/test_route.c $(ROUTE_SRC) -lcmocka

.PHONY: test-route
test-route: $(BUILD)/tests/route/test_route
	$<

TEST_STAGES += test-route
