# Shared RTL flow settings and the lint of the common leaves (rtl/prim,
# rtl/pkg). Part fragments reuse VERILATOR_LINT and RTL_INC; the source
# lists are rtl/*/files.mk, included through rtl/files.mk by the Makefile.

VERILATOR      ?= verilator
RTL_INC        := $(RTL_PRIM_INC)
VERILATOR_LINT := $(VERILATOR) --lint-only -Wall rtl/lint.vlt $(RTL_INC)

.PHONY: lint-prim
lint-prim: $(call RTL_CFG_PKG,$(BOARD)) | deps
	@set -e; for f in $(RTL_PRIM_SRCS); do \
	  echo "lint-prim: $$(basename $$f .sv)"; \
	  $(VERILATOR_LINT) --top-module $$(basename $$f .sv) $(RTL_PRIM_SRCS); done
	$(VERILATOR_LINT) $(RTL_PKG_SRCS) $(call RTL_CFG_PKG,$(BOARD)) --top-module prim_rst_sync $(RTL_PRIM_RST_SRCS)

LINT_STAGES += lint-prim
