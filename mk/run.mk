# `make run`: the default demonstration on the simulated 4x4 mesh (no board
# needed). It builds the Verilator model of a 4x4 mesh of RV32IMF tiles
# with their dataflow units, loads a streamed-layer program into every tile
# through the management network, multicasts each row's weights along the
# row, runs the vector engines (FMACS with the scalar taken from the
# fabric), reduces the partial sums down the columns, and checks the result
# against a C reference bit for bit. Training on the mesh builds on this
# dataflow; until the mesh training backend exists, `make run-train-host`
# trains the default model with the host-reference backend.

.PHONY: run-mesh-layer
run-mesh-layer:
	@echo "wsemu: streamed layer on the simulated 4x4 mesh (board $(CORE_BOARD))"
	@$(MAKE) --no-print-directory test-pe-mesh

RUN_STAGE := run-mesh-layer
