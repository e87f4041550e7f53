# Board configuration: each boards/<name>/<name>.dts is compiled by dtc and
# turned by wse-cfggen into the SystemVerilog package and the C header.
#   $(BUILD)/boards/<name>/<name>.dtb
#   $(BUILD)/boards/<name>/wse_cfg_pkg.sv
#   $(BUILD)/boards/<name>/wse_cfg.h

CFGGEN  := $(BUILD)/tools/wse-cfggen
CFG_DIR  = $(BUILD)/boards/$(1)

# The binding's rules are the wire library's (wsemu/wse_board.h).
$(CFGGEN): boards/cfggen/wse-cfggen.c include/wsemu/wse_board.h $(WIRE_A) | deps
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 $(CLIB_WARN) -Iinclude -o $@ $< $(WIRE_A) $(WIRE_LIBS)

$(BUILD)/boards/%.dtb: | deps
	@false

define BOARD_RULES
$(BUILD)/boards/$(1)/$(1).dtb: boards/$(1)/$(1).dts | deps
	@mkdir -p $$(dir $$@)
	dtc -q -I dts -O dtb -o $$@ $$<
$(BUILD)/boards/$(1)/wse_cfg_pkg.sv $(BUILD)/boards/$(1)/wse_cfg.h &: $(BUILD)/boards/$(1)/$(1).dtb $(CFGGEN)
	$(CFGGEN) $$< --sv $(BUILD)/boards/$(1)/wse_cfg_pkg.sv --h $(BUILD)/boards/$(1)/wse_cfg.h
board-$(1): $(BUILD)/boards/$(1)/wse_cfg_pkg.sv
endef
$(foreach b,$(BOARDS),$(eval $(call BOARD_RULES,$(b))))

.PHONY: boards test-boards $(addprefix board-,$(BOARDS))
boards: $(addprefix board-,$(BOARDS))

test-boards: boards
	./tests/boards/test-cfggen.sh $(CFGGEN) $(BUILD)/tests/boards


TEST_STAGES += test-boards
