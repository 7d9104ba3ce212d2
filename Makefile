# Two entry points (see README Quickstart): `make demo` and `make test`.
PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint typecheck bench screenshots clean venv

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/judgeaudit demo --no-tui --events progress --out out/demo

test: $(STAMP)
	bash scripts/test.sh

lint: $(STAMP)
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/ruff format --check src tests bench scripts
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

bench: $(STAMP)  # the quick ones; bench/recorded_scale.py --pairs 5000000 takes about an hour
	$(BIN)/python bench/startup.py
	$(BIN)/python bench/llm_throughput.py
	$(BIN)/python bench/audit_throughput.py
	$(BIN)/python bench/report_scale.py
	$(BIN)/python bench/tui_load.py
	$(BIN)/python bench/rate_limited.py
	$(BIN)/python bench/bridge_overhead.py

screenshots: $(STAMP)
	$(BIN)/python scripts/screenshots.py

clean:
	rm -rf $(VENV) out .pytest_cache
