# Route plans and the deadlock checker (host-lib/route), with cmocka tests.

ROUTE_CFLAGS := -std=c11 -O1 -g -Wall -Wextra -Werror -Iinclude -Ihost-lib/route
ROUTE_SRC    := host-lib/route/wse_route.c

$(BUILD)/tests/route/test_route: tests/route/test_route.c $(ROUTE_SRC) host-lib/route/wse_route.h include/wsemu/wse_wire.h | deps
	@mkdir -p $(dir $@)
	$(CC) $(ROUTE_CFLAGS) -fsanitize=address,undefined -o $@ tests/route/test_route.c $(ROUTE_SRC) -lcmocka

.PHONY: test-route
test-route: $(BUILD)/tests/route/test_route
	$<

TEST_STAGES += test-route
