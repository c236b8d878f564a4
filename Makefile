# Entry points for people and CI.  Everything runs inside .venv, which
# `make setup` creates from pyproject.toml (the test extra pins the
# reference, torch==2.13.0, which is only ever used by tests and benchmarks).

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
EXAMPLE := examples/toyops
OUT ?= out/toyops
TARGETS ?= all

.PHONY: setup demo test fuzz faults bench lint clean

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

# The long fault and hostile-input runs (CI runs a few of each in `make test`).
faults: setup
	SCHEMAC_KILL_TRIALS=25 SCHEMAC_YAML_MUTANTS=3000 $(BIN)/python -m pytest -q tests/test_output_kill.py tests/frontend/test_yaml_mutants.py

# Speed and memory, side by side with torchgen, reported as ratios.
bench: setup
	$(BIN)/python -m benchmarks

lint: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy

clean:
	rm -rf $(VENV) out
