# The shared wire and register headers and the RTL packages agree (tests/wire).

$(BUILD)/tests/wire/check_wire: tests/wire/check_wire.c include/wsemu/wse_wire.h include/wsemu/wse_regs.h | deps
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -Wall -Wextra -Werror -Iinclude -o $@ $<

.PHONY: test-wire
test-wire: $(BUILD)/tests/wire/check_wire
	$< rtl/pkg/wse_pkg.sv rtl/fabric/wse_mgmt_pkg.sv

TEST_STAGES += test-wire
