# Entry points for people and CI.  Everything runs inside .venv, which
# `make setup` creates from pyproject.toml (the test extra pins the
# reference, torch==2.13.0, which is only ever used by tests and benchmarks).

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
EXAMPLE := examples/toyops
OUT ?= out/toyops
TARGETS ?= all

.PHONY: setup demo test fuzz bench lint clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,dev]'
	touch $@

setup: $(VENV)/.installed

# The main job on the bundled default input.
demo: setup
	$(BIN)/schemac compile $(EXAMPLE)/native_functions.yaml \
	    --tags $(EXAMPLE)/tags.yaml --derivatives $(EXAMPLE)/derivatives.yaml \
	    -t $(TARGETS) -o $(OUT)
	@echo "generated files are in $(OUT)"

# The whole test suite (lint and type checks run as tests too).
test: setup
	$(BIN)/python -m pytest -n 2 -q

# A long grammar fuzz for local runs (CI runs a shorter one in `make test`).
fuzz: setup
	SCHEMAC_FUZZ_EXAMPLES=200000 $(BIN)/python -m pytest -q tests/grammar -k differential

# Speed and memory, side by side with torchgen, reported as ratios.
bench: setup
	$(BIN)/python -m benchmarks

lint: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy

clean:
	rm -rf $(VENV) out
