# The shared wire header and the RTL package agree (tests/wire).

$(BUILD)/tests/wire/check_wire: tests/wire/check_wire.c include/wsemu/wse_wire.h | deps
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -Wall -Wextra -Werror -Iinclude -o $@ $<

.PHONY: test-wire
test-wire: $(BUILD)/tests/wire/check_wire
	$< rtl/pkg/wse_pkg.sv

TEST_STAGES += test-wire
